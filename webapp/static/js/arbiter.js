/* The duplicate console: slips by keyboard with the score as one types, live lists, clock. */
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
  function renderLists(s) {
    state = s;
    var missing = $("missing");
    if (!missing) { return; }
    missing.textContent = "";
    s.missing.forEach(function (t) {
      var chip = B.el("button", "chip", String(t));
      chip.type = "button";
      chip.dataset.table = t;
      missing.appendChild(chip);
    });
    $("missing-count").textContent = String(s.missing.length);
    var body = $("slips").tBodies[0];
    body.textContent = "";
    s.slips.forEach(function (x) {
      var row = B.el("tr", x.reason ? "zero" : "");
      row.appendChild(B.el("td", "num", String(x.table)));
      row.appendChild(B.el("td", "", x.name));
      row.appendChild(B.el("td", "play", x.play));
      row.appendChild(B.el("td", "num", String(x.score)));
      var reason = B.el("td", "reason", x.reason);
      if (x.corrected) { reason.appendChild(document.createTextNode(" ")); reason.appendChild(B.el("span", "badge", T.corrected_badge)); }
      row.appendChild(reason);
      var cell = B.el("td", "");
      var edit = B.el("button", "link edit", T.edit);
      edit.type = "button";
      edit.dataset.table = x.table;
      edit.dataset.play = x.written;
      cell.appendChild(edit);
      row.appendChild(cell);
      body.appendChild(row);
    });
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
    return (t && t.value) || (p && p.value) || (m && m.value) || document.activeElement.tagName === "TEXTAREA";
  }

  function refresh() {
    var shown = $("slip-round") ? $("slip-round").value : "";
    fetch(root.dataset.state + (shown ? "?ronda=" + shown : ""), { headers: { Accept: "application/json" }, credentials: "same-origin" })
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
  var form = $("slip-form");
  if (!form) { return; }
  var table = $("slip-table"), play = $("slip-play"), preview = $("preview");
  var reasonBox = $("reason-box"), reason = $("slip-reason");
  var voidFlag = $("flag-void"), voidReason = $("void-reason"), voidMenu = $("void-menu");
  var checkSeq = 0, timer = null, correcting = false, confirming = null;
  var unconfirmed = null;  // the slip a "¿seguro?" was asked for: {t, play}
  var notice = null;  // a doubtful slip left unstored: {t, text}, said before the preview until that table is stored
  var typedAhead = null;  // keys typed while a slip is being stored
  var choosingVoid = false;  // F4: the void reasons shown, one chosen by its number

  function params() {
    var data = new URLSearchParams();
    data.set("round", $("slip-round").value);
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
        setCorrecting(!!res.existing || !!res.closed);
        if (res.closed && !res.existing) { parts.push(T.closed); cls += " warn"; }
        if (res.confirm) { parts.push(res.confirm); cls = "bad"; }
        if (res.existing) { parts.push(fmt(T.already, res.existing)); cls += " warn"; }
        show(parts.join(" · "), cls);
      })
      .catch(function () { if (seq === checkSeq) { show(T.network, "bad"); } });
  }

  function later() { confirming = null; clearTimeout(timer); timer = setTimeout(check, 120); }

  function setCorrecting(on) { correcting = on; reasonBox.hidden = !on; }

  function setVoid(value) {
    choosingVoid = false;
    voidMenu.hidden = true;
    voidFlag.checked = Boolean(value);
    voidReason.disabled = !value;
    voidReason.value = value;
    later();
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
    table.value = ""; play.value = ""; reason.value = "";
    $("flag-blank").checked = false; $("flag-late").checked = false;
    setVoid("");
    unconfirmed = null;
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
    unconfirmed = null; confirming = null;
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
    if (correcting) { data.set("reason", reason.value); }
    typedAhead = [];
    fetch(root.dataset.slip, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRF-Token": root.dataset.csrf }
    }).then(function (r) { return r.json(); })
      .then(function (res) {
        if (res.stored) { setCorrecting(true); show(res.error, "bad"); reason.focus(); return; }
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
        var text = fmt(res.repeated ? T.repeated : res.corrected ? T.corrected : T.saved, { t: res.table, play: res.result.play || T.no_play, n: res.result.score });
        if (!res.result.valid) { text += " · " + res.result.reason; }
        clear();
        show(text, res.result.valid ? "ok saved" : "bad saved");
        renderLists(res.state);
      })
      .catch(function () { show(T.network, "bad"); })
      .then(function () { var keys = typedAhead || []; typedAhead = null; typeAgain(keys); });
  }

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
  table.addEventListener("input", later);
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
    if (target.classList.contains("chip")) { table.value = target.dataset.table; play.value = ""; play.focus(); check(); }
    if (target.classList.contains("edit")) { table.value = target.dataset.table; play.value = target.dataset.play; play.focus(); check(); }
  });
  var masterForm = $("master-form");
  if (masterForm) {
    masterForm.addEventListener("submit", function (e) {
      var chosen = masterForm.querySelector("input[name=play]:checked");
      var left = clock && (clock.state === "running" || clock.state === "paused") ?
        (clock.state === "running" ? clock.remaining - (performance.now() - clockAt) / 1000 : clock.remaining) : 0;
      var question = left > 0 ? fmt(T.confirm_early, { left: mmss(left), play: chosen ? chosen.value : "" })
                              : fmt(T.confirm_master, { play: chosen ? chosen.value : "" });
      if (!window.confirm(question)) { e.preventDefault(); return; }
      $("master-early").value = left > 0 ? "1" : "";
    });
  }
  table.focus();
})();
