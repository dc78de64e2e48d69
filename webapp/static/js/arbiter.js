/* The duplicate console: slips by keyboard with the score as one types, live lists, clock.
   Several consoles may share a round (sharing.js): each one's missing list may keep to its tables,
   the slips another console stores appear live, and a slip typed for a table stored elsewhere is
   never stored over it: both are shown under "Por decidir" until the arbiter chooses one. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var json = function (id) { return JSON.parse($(id).textContent); };
  var root = $("console");
  if (!root) { return; }
  var T = json("i18n");
  var values = json("tile-values");
  var boardData = json("board-data");
  var fmt = window.VeedorLive.format;
  var B = window.VeedorBoard;
  var version = Number(root.dataset.version);
  var state = json("console-state");
  var clock = state.clock;
  var clockAt = performance.now();
  var share = window.VeedorSharing;
  var kept = share.tabStore(root.dataset.game);
  var mine = kept.get("mine", {});  // "round:table" -> the time of entry of a slip this console stored
  var conflicts = kept.get("conflicts", []);  // slips typed for a table stored elsewhere, to decide
  var myTables = share.parseTables(kept.get("tables", "")) || [];  // "Mis mesas": [] is every table
  var shownRows = null;  // "round:table" -> time of entry, of the rows last shown (null: none yet)

  B.build($("board"), boardData.premiums, boardData.marks);
  B.render($("board"), json("board-state"), json("board-last"), values);
  json("rack-state").forEach(function (label) { $("rack").appendChild(B.tile(label, values)); });

  // -- clock: the calls of D.III.13 at their times (clock.js, as on the screens) ---------
  var C = window.VeedorClock;
  function tick() {
    var node = $("clock");
    if (!clock || clock.state === "none") { node.hidden = true; return; }
    node.hidden = false;
    var left = C.remaining(clock, clockAt, performance.now());
    var shown = C.call(clock, left);
    node.className = "clock" + (shown.cls ? " " + shown.cls : "");
    $("clock-time").textContent = C.mmss(left);
    $("clock-note").textContent = shown.call ? T[shown.call] : "";
  }
  setInterval(tick, 250);
  tick();

  /* How many players found a play, in words: "Nadie la encontró", "La encontró 1 jugador", "La encontraron 3 jugadores". */
  function foundText(n) { return n === 0 ? T.found_none : (n === 1 ? T.found_one : fmt(T.found_many, { n: n })); }

  // -- lists -------------------------------------------------------------------------
  /* Whether the slip of table ``t`` in round ``n``, entered at ``at``, is one this console stored. */
  function isMine(n, t, at) { return mine[share.key(n, t)] === at; }

  function renderLists(s) {
    if (s.round === state.round && s.version < state.version) { return; }  // overtaken by a later state
    state = s;
    var missing = $("missing");
    if (!missing) { return; }
    missing.textContent = "";
    var shown = s.missing.filter(function (t) { return share.inTables(myTables, t); });
    shown.forEach(function (t) {
      var chip = B.el("button", "chip", String(t));
      chip.type = "button";
      chip.dataset.table = t;
      missing.appendChild(chip);
    });
    $("missing-count").textContent = String(shown.length);
    $("missing-all").textContent = myTables.length ? fmt(T.missing_all, { n: s.missing.length }) : "";
    var body = $("slips").tBodies[0];
    body.textContent = "";
    var rows = {};
    s.slips.forEach(function (x) {
      var k = share.key(s.round, x.table);
      var own = isMine(s.round, x.table, x.at);
      var arrived = shownRows !== null && shownRows[k] !== x.at && !own;  // stored elsewhere since the last look
      rows[k] = x.at;
      var row = B.el("tr", (x.reason ? "zero" : "") + (own ? " mine" : "") + (arrived ? " arrived" : ""));
      row.appendChild(B.el("td", "num", String(x.table)));
      row.appendChild(B.el("td", "", x.name));
      row.appendChild(B.el("td", "play", x.play));
      row.appendChild(B.el("td", "num", String(x.score)));
      var reason = B.el("td", "reason", x.reason);
      if (x.corrected) { reason.appendChild(document.createTextNode(" ")); reason.appendChild(B.el("span", "badge", T.corrected_badge)); }
      row.appendChild(reason);
      row.appendChild(B.el("td", "by", own ? fmt(T.by_here, { by: x.by }) : x.by));
      var cell = B.el("td", "");
      var edit = B.el("button", "link edit", T.edit);
      edit.type = "button";
      edit.dataset.table = x.table;
      edit.dataset.play = x.written;
      edit.dataset.at = x.at;
      cell.appendChild(edit);
      row.appendChild(cell);
      body.appendChild(row);
    });
    shownRows = rows;
    var found = {};
    s.slips.forEach(function (x) { if (!x.reason) { found[x.play] = (found[x.play] || 0) + 1; } });
    document.querySelectorAll(".found").forEach(function (n) { n.textContent = foundText(found[n.dataset.play] || 0); });
  }

  function structuralChange(s) {
    return String(s.current_round) !== root.dataset.current || s.phase !== root.dataset.phase ||
      (s.round === Number(root.dataset.current) && (s.master || "") !== root.dataset.master);
  }

  function busy() {
    var t = $("slip-table"), p = $("slip-play"), m = $("manual-rack");
    return (t && t.value) || (p && p.value) || (m && m.value) || document.activeElement.tagName === "TEXTAREA" ||
      document.activeElement === $("my-tables");
  }

  var pageRound = $("slip-round") ? $("slip-round").value : "";  // the round the page shows
  function refresh() {
    fetch(root.dataset.state + (pageRound ? "?ronda=" + pageRound : ""), { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (!s) { return; }
        if (structuralChange(s)) {
          if (busy()) { $("stale").hidden = false; } else { location.reload(); }
          return;
        }
        renderLists(s);
      });
  }

  renderLists(state);
  window.VeedorLive.connect(root.dataset.stream, function (message) {
    clock = message.clock;
    clockAt = performance.now();
    if (message.version !== version) { version = message.version; refresh(); }
  }, function (ok) { root.classList.toggle("offline", !ok); });

  // -- the slip form -----------------------------------------------------------------
  // Mesa, Intro, jugada, Intro. Keys typed while a slip is being stored are kept and typed again
  // once its answer is shown, so nothing of the next slip goes into this one. After a "¿seguro?"
  // the play is selected: typing replaces it, Intro stores it as it is; a number alone typed there
  // is the next table (a play is never a number), the doubtful slip left unstored and said so until
  // that table is stored (or Esc). F4 shows the void reasons, one chosen by its number.
  // A table whose slip this console did not store (another console's, the scanner's) is said as it
  // is typed; Intro sends the slip anyway and the server, which lets one slip in at a time, answers
  // with what is stored: both go under "Por decidir" until the arbiter keeps one, and the form is
  // free for the next slip. A correction names the stored slip it replaces ("replaces"): one stored
  // meanwhile comes back to be decided again.
  var form = $("slip-form");
  if (!form) { return; }
  var table = $("slip-table"), play = $("slip-play"), preview = $("preview"), round = $("slip-round");
  var reasonBox = $("reason-box"), reason = $("slip-reason"), tablesInput = $("my-tables");
  var voidFlag = $("flag-void"), voidReason = $("void-reason"), voidMenu = $("void-menu");
  var checkSeq = 0, timer = null, correcting = false, confirming = null;
  var unconfirmed = null;  // the slip a "¿seguro?" was asked for: {t, play}
  var notice = null;  // a doubtful slip left unstored: {t, text}, said before the preview until that table is stored
  var typedAhead = null;  // keys typed while a slip is being stored
  var choosingVoid = false;  // F4: the void reasons shown, one chosen by its number
  var deliberate = null;  // "round:table" the arbiter chose to correct ("corregir", "Sustituirla")
  var replacing = null;  // the time of entry of the stored slip a correction replaces

  function params() {
    var data = new URLSearchParams();
    data.set("round", round.value);
    data.set("table", table.value.trim());
    data.set("play", play.value);
    if ($("flag-blank").checked) { data.set("blank", "1"); }
    if ($("flag-late").checked) { data.set("late", "1"); }
    if (voidFlag.checked && voidReason.value) { data.set("void", voidReason.value); }
    return data;
  }

  function show(text, cls) {
    preview.textContent = notice ? notice.text + (text ? " · " + text : "") : text;
    preview.className = "preview " + (notice ? "bad" : cls || "");
  }

  function check() {
    if (!table.value.trim()) { show("", ""); setCorrecting(false); return; }
    var seq = ++checkSeq;
    fetch(root.dataset.check + "?" + params().toString(), { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (res) {
        if (seq !== checkSeq) { return; }
        if (res.error) { show(res.error, "bad"); setCorrecting(false); return; }
        var parts = [fmt(T.player_at, { t: res.table, name: res.name })];
        var cls = "";
        if (res.result) {
          if (res.result.valid) { parts.push((res.result.play || "") + " → " + fmt(T.points, { n: res.result.score })); cls = "ok"; }
          else { parts.push(fmt(T.zero, { why: res.result.reason })); cls = "bad"; }
        }
        var k = share.key(res.round, res.table);
        var own = !!res.existing && (deliberate === k || isMine(res.round, res.table, res.existing.at));
        if (deliberate !== k) { replacing = own ? res.existing.at : null; }
        setCorrecting(own || (!!res.closed && !res.existing));
        if (res.closed && !res.existing) { parts.push(T.closed); cls += " warn"; }
        if (res.confirm) { parts.push(res.confirm); cls = "bad"; }
        if (res.existing) { parts.push(fmt(own ? T.already : T.elsewhere, res.existing)); cls += " warn"; }
        if (!share.inTables(myTables, Number(res.table))) {
          parts.push(fmt(T.not_my_table, { t: res.table, tables: tablesInput.value.trim() })); cls += " warn";
        }
        show(parts.join(" · "), cls);
      })
      .catch(function () { if (seq === checkSeq) { show(T.network, "bad"); } });
  }

  function later() { confirming = null; clearTimeout(timer); timer = setTimeout(check, 120); }

  function setCorrecting(on) { correcting = on; reasonBox.hidden = !on; }

  function setVoid(value, quiet) {
    choosingVoid = false;
    voidMenu.hidden = true;
    voidFlag.checked = Boolean(value);
    voidReason.disabled = !value;
    voidReason.value = value;
    if (!quiet) { later(); }
  }

  function openVoidMenu() {
    choosingVoid = true;
    voidMenu.hidden = false;
    voidFlag.checked = true;
    voidReason.disabled = false;
    show(T.void_choose, "warn");
  }

  function chooseVoid(key) {
    var n = Number(key);
    if (key.length === 1 && n >= 1 && n < voidReason.options.length) { setVoid(voidReason.options[n].value); }
    else if (key === "Escape" || key === "F4") { setVoid(""); }
    else { show(T.void_choose, "bad"); }
  }

  function clear() {
    clearTimeout(timer);
    checkSeq++;  // an answer to a check of the slip just cleared is not shown
    table.value = ""; play.value = ""; reason.value = "";
    round.value = pageRound;
    $("flag-blank").checked = false; $("flag-late").checked = false;
    setVoid("", true);
    unconfirmed = null; deliberate = null; replacing = null;
    setCorrecting(false);
    table.focus();
  }

  /* Keys typed while a slip is stored, typed again where the answer left the focus. */
  function typeKey(key) {
    var field = document.activeElement;
    if (key === "Enter") {
      if (field === table) { enterTable(); } else if (field === play) { enterPlay(); } else if (field === reason) { submit(); }
      return;
    }
    if (field !== table && field !== play && field !== reason) { return; }
    if (key === "Backspace") {
      var from = field.selectionStart === field.selectionEnd ? Math.max(0, field.selectionStart - 1) : field.selectionStart;
      field.setRangeText("", from, field.selectionEnd, "end");
    } else {
      field.setRangeText(key, field.selectionStart, field.selectionEnd, "end");
    }
    later();
  }

  function typeAgain(keys) {
    while (keys.length && !typedAhead) { typeKey(keys.shift()); }
    if (typedAhead) { typedAhead = keys.concat(typedAhead); }  // an Intro among them is storing another slip
  }

  function enterTable() { if (table.value.trim()) { play.focus(); check(); } }

  function enterPlay() {
    var typed = play.value.trim();
    if (/^[0-9]+$/.test(typed)) { nextTable(typed); return; }
    submit();
  }

  function nextTable(number) {
    if (unconfirmed) { notice = { t: unconfirmed.t, text: fmt(T.not_saved, unconfirmed) }; }
    unconfirmed = null; confirming = null; deliberate = null;
    table.value = number; play.value = ""; reason.value = "";
    play.focus();
    check();
  }

  function submit() {
    if (!table.value.trim()) { table.focus(); return; }
    if (voidFlag.checked && !voidReason.value) { show(T.void_needed, "bad"); return; }
    if (correcting && !reason.value.trim()) { show(T.need_reason, "bad"); reason.focus(); return; }
    var data = params();
    var asked = data.toString();
    if (confirming === asked) { data.set("confirm", "1"); }  // the second Enter on a doubtful notation
    data.set("csrf_token", root.dataset.csrf);
    if (correcting) {
      data.set("reason", reason.value);
      if (replacing) { data.set("replaces", replacing); }
    }
    var sentReason = correcting ? reason.value : "";
    typedAhead = [];
    fetch(root.dataset.slip, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRF-Token": root.dataset.csrf }
    }).then(function (r) { return r.json(); })
      .then(function (res) {
        if (res.error && res.stored) {
          var ownSlip = !res.changed && isMine(res.stored.round, res.stored.table, res.stored.at);
          if (ownSlip && !typedAhead.length) {  // Intro before the preview said so: a correction, here
            deliberate = share.key(res.stored.round, res.stored.table);
            replacing = res.stored.at;
            setCorrecting(true); show(res.error, "bad"); reason.focus();
          } else { decideLater(res, sentReason); }
          return;
        }
        if (res.error) { show(res.error, "bad"); return; }
        if (res.confirm) {
          confirming = asked;
          unconfirmed = { t: table.value.trim(), play: play.value };
          show(res.confirm, "bad");
          play.focus();
          play.select();  // typing replaces it; Intro stores it as it is
          return;
        }
        confirming = null;
        if (notice && String(res.table) === notice.t) { notice = null; }
        var entry = res.entry;
        var k = share.key(entry.round, entry.table);
        if (!res.repeated) { mine[k] = entry.at; kept.set("mine", mine); }
        dropConflict(k);
        var own = isMine(entry.round, entry.table, entry.at);
        var said = res.repeated ? (own ? T.repeated : T.repeated_elsewhere) : res.corrected ? T.corrected : T.saved;
        var text = fmt(said, { t: res.table, play: res.result.play || T.no_play, n: res.result.score,
                               source: entry.source, by: entry.by, when: entry.when });
        if (!res.result.valid) { text += " · " + res.result.reason; }
        clear();
        show(text, res.result.valid ? "ok saved" : "bad saved");
        if (String(res.state.round) === pageRound) { renderLists(res.state); }  // else a slip of another round
      })
      .catch(function () { show(T.network, "bad"); })
      .then(function () { var keys = typedAhead || []; typedAhead = null; typeAgain(keys); });
  }

  // -- two entries for one table: "Por decidir" ----------------------------------------

  /* The server did not store the slip: the table has one this console had not stored or chosen to
     replace (another console's, stored maybe a moment before). Both are kept to decide; the form is freed. */
  function decideLater(res, sentReason) {
    var c = { key: share.key(res.stored.round, res.stored.table), round: res.stored.round, table: res.stored.table,
              name: res.stored.name, stored: res.stored, typed: res.typed, reason: sentReason, changed: !!res.changed };
    conflicts = conflicts.filter(function (x) { return x.key !== c.key; }).concat([c]);
    saveConflicts();
    confirming = null;
    clear();
    show(fmt(T.to_decide, { t: c.table, by: c.stored.by }), "bad");
  }

  function saveConflicts() { kept.set("conflicts", conflicts); renderConflicts(); }

  function dropConflict(k) {
    var left = conflicts.filter(function (x) { return x.key !== k; });
    if (left.length !== conflicts.length) { conflicts = left; saveConflicts(); }
  }

  function conflictOf(k) { return conflicts.filter(function (x) { return x.key === k; })[0]; }

  function renderConflicts() {
    var list = $("conflict-list");
    list.textContent = "";
    $("conflicts").hidden = !conflicts.length;
    conflicts.forEach(function (c) {
      var item = B.el("li", "conflict");
      item.dataset.table = c.table;
      item.appendChild(B.el("strong", "", fmt(c.changed ? T.conflict_changed : T.conflict_head, { t: c.table, name: c.name, n: c.round })));
      item.appendChild(B.el("div", "entry stored", fmt(T.conflict_stored, c.stored)));
      var typed = fmt(T.conflict_typed, { play: c.typed.play || c.typed.written || T.no_play, n: c.typed.score });
      item.appendChild(B.el("div", "entry typed", typed + (c.typed.reason ? " · " + c.typed.reason : "")));
      var actions = B.el("div", "actions");
      [["keep", T.keep], ["replace", T.replace]].forEach(function (a) {
        var button = B.el("button", a[0], a[1]);
        button.type = "button";
        button.dataset.conflict = c.key;
        actions.appendChild(button);
      });
      item.appendChild(actions);
      list.appendChild(item);
    });
  }

  function keepStored(c) {
    dropConflict(c.key);
    clear();
    show(fmt(T.kept, { t: c.table, play: c.stored.play, n: c.stored.score, typed: c.typed.written || T.no_play }), "ok");
  }

  /* The typed slip back in the form, to replace the stored one it was shown beside, with a reason. */
  function replaceStored(c) {
    clear();
    round.value = c.round;
    table.value = c.table;
    play.value = c.typed.written;
    $("flag-blank").checked = c.typed.blank;
    $("flag-late").checked = c.typed.late;
    setVoid(c.typed.void, true);
    deliberate = c.key;
    replacing = c.stored.at;
    setCorrecting(true);
    reason.value = c.reason || "";
    reason.focus();
    check();
  }

  // -- "Mis mesas": the tables this console types --------------------------------------

  function applyTables() {
    var parsed = share.parseTables(tablesInput.value);
    tablesInput.classList.toggle("bad", parsed === null);
    if (parsed === null) { show(fmt(T.tables_bad, { text: tablesInput.value.trim() }), "bad"); return false; }
    myTables = parsed;
    kept.set("tables", tablesInput.value.trim());
    renderLists(state);
    return true;
  }

  tablesInput.value = kept.get("tables", "");
  tablesInput.addEventListener("change", applyTables);
  tablesInput.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { e.preventDefault(); if (applyTables()) { table.focus(); } }
  });
  renderConflicts();

  function toggle(box) { box.checked = !box.checked; box.dispatchEvent(new Event("change")); }

  form.addEventListener("submit", function (e) { e.preventDefault(); submit(); });
  form.addEventListener("keydown", function (e) {  // before any field sees the key
    if (choosingVoid) { e.preventDefault(); e.stopPropagation(); chooseVoid(e.key); return; }
    if (typedAhead && (e.key.length === 1 || e.key === "Enter" || e.key === "Backspace")) {
      e.preventDefault(); e.stopPropagation(); typedAhead.push(e.key);
    }
  }, true);
  table.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { e.preventDefault(); enterTable(); }
  });
  play.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { e.preventDefault(); enterPlay(); }
  });
  table.addEventListener("input", function () { deliberate = null; later(); });
  play.addEventListener("input", later);
  reason.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); submit(); } });
  voidFlag.addEventListener("change", function () { if (voidFlag.checked) { openVoidMenu(); } else { setVoid(""); } });
  voidReason.addEventListener("change", function () { setVoid(voidReason.value); });
  $("flag-blank").addEventListener("change", later);
  $("flag-late").addEventListener("change", later);
  form.addEventListener("keydown", function (e) {
    if (e.key === "F2") { e.preventDefault(); toggle($("flag-blank")); }
    else if (e.key === "F3") { e.preventDefault(); toggle($("flag-late")); }
    else if (e.key === "F4") {
      e.preventDefault();
      if (voidFlag.checked) { setVoid(""); } else { openVoidMenu(); }
    }
    else if (e.key === "Escape") { e.preventDefault(); notice = null; clear(); show("", ""); }
  });
  document.addEventListener("click", function (e) {
    var target = e.target;
    if (target.classList.contains("chip")) {
      clear(); table.value = target.dataset.table; play.focus(); check();
    }
    if (target.classList.contains("edit")) {
      clear();
      table.value = target.dataset.table; play.value = target.dataset.play;
      deliberate = share.key(round.value, target.dataset.table);
      replacing = target.dataset.at || null;
      play.focus(); check();
    }
    var c = target.dataset.conflict ? conflictOf(target.dataset.conflict) : null;
    if (c) { if (target.classList.contains("keep")) { keepStored(c); } else { replaceStored(c); } }
  });
  var masterForm = $("master-form");
  if (masterForm) {
    masterForm.addEventListener("submit", function (e) {
      var chosen = masterForm.querySelector("input[name=play]:checked");
      var left = clock && (clock.state === "running" || clock.state === "paused") ?
        (clock.state === "running" ? clock.remaining - (performance.now() - clockAt) / 1000 : clock.remaining) : 0;
      var question = left > 0 ? fmt(T.confirm_early, { left: C.mmss(left), play: chosen ? chosen.value : "" })
                              : fmt(T.confirm_master, { play: chosen ? chosen.value : "" });
      if (!window.confirm(question)) { e.preventDefault(); return; }
      $("master-early").value = left > 0 ? "1" : "";
    });
  }
  table.focus();
})();
