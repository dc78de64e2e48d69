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
  var form = $("slip-form");
  if (!form) { return; }
  var table = $("slip-table"), play = $("slip-play"), preview = $("preview");
  var reasonBox = $("reason-box"), reason = $("slip-reason");
  var voidFlag = $("flag-void"), voidReason = $("void-reason");
  var checkSeq = 0, timer = null, correcting = false, confirming = null;

  function params() {
    var data = new URLSearchParams();
    data.set("round", $("slip-round").value);
    data.set("table", table.value.trim());
    data.set("play", play.value);
    if ($("flag-blank").checked) { data.set("blank", "1"); }
    if ($("flag-late").checked) { data.set("late", "1"); }
    if (voidFlag.checked) { data.set("void", voidReason.value || voidReason.options[1].value); }
    return data;
  }

  function show(text, cls) { preview.textContent = text; preview.className = "preview " + (cls || ""); }

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
        if (res.existing) { parts.push(fmt(T.already, { play: res.existing.play || T.no_play, n: res.existing.score })); cls += " warn"; }
        show(parts.join(" · "), cls);
      })
      .catch(function () { if (seq === checkSeq) { show(T.network, "bad"); } });
  }

  function later() { confirming = null; clearTimeout(timer); timer = setTimeout(check, 120); }

  function setCorrecting(on) { correcting = on; reasonBox.hidden = !on; }

  function clear() {
    table.value = ""; play.value = ""; reason.value = "";
    $("flag-blank").checked = false; $("flag-late").checked = false; voidFlag.checked = false;
    voidReason.disabled = true; voidReason.value = "";
    setCorrecting(false);
    table.focus();
  }

  function submit() {
    if (!table.value.trim()) { table.focus(); return; }
    if (correcting && !reason.value.trim()) { show(T.need_reason, "bad"); reason.focus(); return; }
    var data = params();
    var asked = data.toString();
    if (confirming === asked) { data.set("confirm", "1"); }  // the second Enter on a doubtful notation
    data.set("csrf_token", root.dataset.csrf);
    if (correcting) { data.set("reason", reason.value); }
    fetch(root.dataset.slip, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRF-Token": root.dataset.csrf }
    }).then(function (r) { return r.json(); })
      .then(function (res) {
        if (res.error) { show(res.error, "bad"); return; }
        if (res.confirm) { confirming = asked; show(res.confirm, "bad"); play.focus(); return; }
        confirming = null;
        var text = fmt(res.repeated ? T.repeated : res.corrected ? T.corrected : T.saved, { t: res.table, play: res.result.play || T.no_play, n: res.result.score });
        if (!res.result.valid) { text += " · " + res.result.reason; }
        clear();
        show(text, res.result.valid ? "ok saved" : "bad saved");
        renderLists(res.state);
      })
      .catch(function () { show(T.network, "bad"); });
  }

  function toggle(box) { box.checked = !box.checked; box.dispatchEvent(new Event("change")); }

  form.addEventListener("submit", function (e) { e.preventDefault(); submit(); });
  table.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { e.preventDefault(); if (table.value.trim()) { play.focus(); check(); } }
  });
  table.addEventListener("input", later);
  play.addEventListener("input", later);
  reason.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); submit(); } });
  voidFlag.addEventListener("change", function () {
    voidReason.disabled = !voidFlag.checked;
    if (voidFlag.checked && !voidReason.value) { voidReason.selectedIndex = 1; }
    later();
  });
  voidReason.addEventListener("change", later);
  $("flag-blank").addEventListener("change", later);
  $("flag-late").addEventListener("change", later);
  form.addEventListener("keydown", function (e) {
    if (e.key === "F2") { e.preventDefault(); toggle($("flag-blank")); }
    else if (e.key === "F3") { e.preventDefault(); toggle($("flag-late")); }
    else if (e.key === "F4") { e.preventDefault(); toggle(voidFlag); }
    else if (e.key === "Escape") { e.preventDefault(); clear(); show("", ""); }
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
