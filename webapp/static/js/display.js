/* The projection screen: board, round, rack (D.III.17), clock with the D.III.13 warnings,
   master play; after a master, the board in turn with the round's summary and the standings
   (paged); a classic table's scores, last plays, unseen tiles (and, in a delayed view, the rack of
   the player to move where the arbiter recorded it) and end. The same page serves the overlays of a
   stream (one part, transparent; stream.js adds the players' clubs, photos and EloDI, the lower third
   and the tournament's standings) and the delayed broadcast view (polled). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var json = function (id) { return JSON.parse($(id).textContent); };
  var T = json("i18n");
  var clockWords = json("clock-i18n");
  var values = json("tile-values");
  var boardData = json("board-data");
  var fmt = window.VeedorLive.format;
  var B = window.VeedorBoard;
  var F = window.VeedorFit;
  var R = window.VeedorRoom;
  var C = window.VeedorClock;
  var S = window.VeedorStream || null;  // the overlays' additions (stream.js), when the page has them
  var root = $("screen");
  var view = root.dataset.view || "room";
  var part = root.dataset.part || "";
  var alternate = Math.max(2, Number(root.dataset.alternate) || 8) * 1000;

  var state = null;
  var clock = { state: "none" };
  var notices = [];  // the director's notices to the room, as the last message gave them
  var toMove = null;  // a classic table's rack of the player to move, when a delayed message tells it
  var clockAt = performance.now();
  var showing = "board";  // or "summary"
  var page = 0;
  var pageCount = 1;
  var summaryKey = "";
  var table = null;
  var withSummary = true;  // the round's summary above the standings' first page

  B.build($("board"), boardData.premiums, boardData.marks);

  if (view === "overlay") {
    document.body.classList.add("part-" + part);
    Array.prototype.forEach.call(document.querySelectorAll(".part"), function (node) {
      node.classList.toggle("shown", (node.dataset.part || "").split(" ").indexOf(part) >= 0);
    });
  }

  function setText(id, text) { var n = $(id); if (n.textContent !== text) { n.textContent = text; } }

  /* The clock and its calls (D.III.13, ``VeedorClock``); ALCEN and the closing TIEMPO grow
     into a banner in the clock's own place, so that the side is fitted again around it and
     the banner covers nothing. */
  function tick() {
    if (state && state.mode === "classic") {  // both players' clocks (VeedorClocks)
      window.VeedorClocks.renderPanel($("clocks"), clock, state.players.map(function (p) { return p.name; }),
        clockWords, (performance.now() - clockAt) / 1000);
    }
    var node = $("clock");
    if (!state || state.mode !== "duplicate" || clock.state === "none") {
      node.hidden = true;
      return;
    }
    node.hidden = false;
    var left = C.remaining(clock, clockAt, performance.now());
    setText("clock-time", C.mmss(left));
    var shown = C.call(clock, left);
    var cls = "clock part" + (node.classList.contains("shown") ? " shown" : "") + (shown.cls ? " " + shown.cls : "") +
      (shown.banner && view !== "overlay" ? " banner" : "");
    var note = shown.call ? T[shown.call] : "";
    if (node.className !== cls || $("clock-note").textContent !== note) {
      node.className = cls;
      setText("clock-note", note);
      fitSide();
    }
  }

  function renderRack(s) {
    var node = $("rack");
    var kept = s.phase === "ronda" || s.phase === "maestra" ? s.rack_kept : [];
    var fresh = s.phase === "ronda" || s.phase === "maestra" ? s.rack_new : [];
    var key = kept.join(",") + "|" + fresh.join(",");
    if (node.dataset.key === key) { return; }
    node.dataset.key = key;
    node.textContent = "";
    kept.forEach(function (label) { node.appendChild(B.tile(label, values, "kept")); });
    if (kept.length && fresh.length) { node.appendChild(B.el("span", "rack-gap")); }
    fresh.forEach(function (label) { node.appendChild(B.tile(label, values)); });
  }

  function renderDuplicate(s) {
    setText("round", s.round ? (s.rounds ? fmt(T.round_of, { n: s.round, total: s.rounds }) : fmt(T.round, { n: s.round })) : T.waiting);
    renderRack(s);
    var master = $("master");
    var showMaster = Boolean(s.master);
    master.hidden = !showMaster;
    if (showMaster) {
      var current = s.phase !== "ronda";
      master.classList.toggle("fresh", current);
      master.classList.toggle("previous", !current);
      setText("master-label", current ? T.master : fmt(T.master_of, { n: s.master.round }));
      B.setPlay($("master-play"), s.master.play);
      setText("master-score", fmt(T.points, { n: s.master.score }));
      setText("master-total", fmt(T.total, { n: s.master_total }));
      $("master-annulled").hidden = !s.master.annulled;
    }
    var foot = [];
    if (s.phase === "ronda") { foot.push(fmt(T.submitted, { n: s.submitted, total: s.players })); }
    if (s.redraws && s.phase === "ronda") { foot.push(fmt(T.redraws, { n: s.redraws })); }
    foot.push(s.ended ? T.ended : fmt(T.bag, { n: s.bag }));
    setText("foot", foot.join(" · "));
  }

  /* The players as the list of plays names them: the first name, or the initials when both
     players share it (the scores above carry the whole names). */
  function shortNames(names) {
    var first = names.map(function (n) { return n.split(/\s+/)[0]; });
    var initials = names.map(function (n) {
      return n.split(/[\s-]+/).filter(function (w) { return /^[A-ZÁÉÍÓÚÑÜ]/.test(w); }).map(function (w) { return w[0] + "."; }).join(" ") || n;
    });
    var out = {};
    names.forEach(function (n, i) { out[n] = first[0] === first[1] && names[0] !== names[1] ? initials[i] : first[i]; });
    return out;
  }

  function renderClassic(s) {
    setText("round", "");
    var players = $("players");
    players.textContent = "";
    s.players.forEach(function (p, i) {
      var row = B.el("div", "player" + (s.to_move === i && !s.ended ? " to-move" : "") + (s.winner === i ? " winner" : ""));
      row.appendChild(B.el("span", "name", p.name));
      row.appendChild(B.el("span", "score", String(p.score)));
      if (S) { S.decoratePlayer(row, String(i), p.name); }
      players.appendChild(row);
    });
    var short = shortNames(s.players.map(function (p) { return p.name; }));
    var ahead = s.players[0].score === s.players[1].score ? null : (s.players[0].score > s.players[1].score ? 0 : 1);
    var margin = Math.abs(s.players[0].score - s.players[1].score);  // the leader's margin, never negative
    setText("spread", ahead === null ? fmt(T.level, { n: s.players[0].score }) : fmt(T.ahead, { name: short[s.players[ahead].name], n: margin }));
    $("spread").hidden = s.ended;  // the end says it in its first line: "Gana Bruno por 29"
    var list = $("last-plays");
    list.textContent = "";
    s.last_plays.forEach(function (t) {
      var item = B.el("li", t.withdrawn ? "withdrawn" : "");
      item.appendChild(B.el("span", "who", short[t.player] || t.player));
      var what = B.el("span", "what");
      if (t.kind === "pass") { what.textContent = T.pass; }
      else if (t.kind === "exchange") { what.textContent = T.exchange + " " + t.count; }
      else { what.classList.add("play"); what.appendChild(B.play(t.text)); }
      item.appendChild(what);
      item.appendChild(B.el("span", "pts", t.points === null ? "" : String(t.points)));
      list.appendChild(item);
    });
    var ending = $("ending");
    ending.hidden = !s.ended;
    ending.textContent = "";
    if (s.ended) {
      R.classicEnding(T, s).forEach(function (line) { ending.appendChild(B.el("p", line[0], line[1])); });
    }
    $("last-plays").hidden = s.ended && view !== "overlay";
    var rack = renderToMove(s);
    $("unseen-head").hidden = s.ended || (rack && view === "overlay");  // an overlay's rack part: the rack alone
    $("unseen").hidden = s.ended || (rack && view === "overlay");
    setText("unseen-head", fmt(T.unseen, { n: s.unseen_count }));
    R.renderUnseen($("unseen"), s);
    setText("foot", s.ended ? T.ended : fmt(T.bag, { n: s.bag }));
  }

  /* The rack of the player to move, as a delayed message tells it (views.overlay.rack_to_move): its
     known tiles, and how many more it holds. True when shown. */
  function renderToMove(s) {
    var r = s.ended ? null : toMove;
    var box = $("to-move-rack");
    box.hidden = !r;
    if (!r) { return false; }
    var more = r.unknown === 1 ? T.rack_unseen_one : fmt(T.rack_unseen, { n: r.unknown });
    setText("to-move-head", fmt(T.rack_of, { name: r.name }) + (r.unknown ? " " + more : ""));
    var tiles = $("to-move-tiles");
    tiles.textContent = "";
    r.tiles.forEach(function (label) { tiles.appendChild(B.tile(label, values)); });
    return true;
  }

  /* -- the board in turn with the summary and the standings ------------------------------ */

  function hasSummary(s) {
    return s && s.mode === "duplicate" && (s.phase === "maestra" || s.phase === "fin") && s.standings.length > 0;
  }

  /* The summary view laid out for the page shown. Its texts shrink until every page of the
     standings holds whole rows (the cut, F.pages, is made with every row measured and is the
     same whatever page is shown); the round's summary stands above the first page only. */
  function layoutSummary() {
    var box = $("summary-view");
    if (box.hidden || !table) { return; }
    var summary = $("round-summary");
    var standings = $("standings");
    $("page-note").hidden = standings.hidden;
    if (standings.hidden) { summary.hidden = !withSummary; pageCount = 1; F.shrink(box); return; }
    var cut = null;
    F.shrink(box, function () {
      summary.hidden = !withSummary;
      var more = withSummary ? summary.getBoundingClientRect().height + parseFloat(getComputedStyle(box).rowGap || "0") : 0;
      cut = F.pages(standings, table.head, table.rows, more);
      return cut.ok;
    });
    pageCount = cut.pages.length;
    var index = page % pageCount;
    summary.hidden = !withSummary || index > 0;
    F.show(table.rows, cut.pages[index]);
    setText("page-note", pageCount > 1 ? fmt(T.page, { n: index + 1, total: pageCount }) : "");
  }

  function renderStage() {
    var s = state;
    var overlayPart = view === "overlay" && (part === "summary" || part === "standings");
    var summary = hasSummary(s) || (overlayPart && s.mode === "duplicate" && Boolean(s.summary));  // an overlay keeps it
    var wantSummary = summary && (showing === "summary" || overlayPart);
    $("summary-view").hidden = !wantSummary;
    $("board-wrap").hidden = wantSummary && view !== "overlay";
    document.body.classList.toggle("summary-shown", wantSummary && view !== "overlay");  // the whole screen
    if (!wantSummary) { return; }
    var final = s.phase === "fin";
    var title = fmt(T.summary_of, { n: s.summary ? s.summary.round : s.round });
    setText("summary-title", final ? T.final_standings : (view === "overlay" && part === "standings" ? T.standings : title));
    withSummary = !final && !(view === "overlay" && part !== "summary");
    $("standings").hidden = view === "overlay" && part !== "standings";
    R.renderSummary($("round-summary"), T, s);
    table = R.renderStandings($("standings"), T, s, final);
    if (S) { S.decorateStandings(table.rows, s.standings); }
    layoutSummary();
  }

  function turn() {
    if (!hasSummary(state)) { showing = "board"; return; }
    if (view === "overlay") { page += 1; renderStage(); return; }
    if (showing === "board") { showing = "summary"; page = 0; }  // the summary and every page, then the board
    else if (page + 1 < pageCount) { page += 1; }
    else { showing = "board"; }
    renderStage();
    fitSide();
  }

  function fitSide() { F.shrink($("side"), function () { F.fitWidth($("master-play")); }); }

  /* The director's notices (records.notices): a band above the screen that the grid makes room
     for (body.with-notices), so it covers nothing; its texts shrink until they fit the band. */
  function renderNotices(list) {
    var band = $("notices");
    var key = list.map(function (n) { return n.id; }).join(",");
    document.body.classList.toggle("with-notices", list.length > 0);
    band.hidden = list.length === 0;
    if (band.dataset.key !== key) {
      band.dataset.key = key;
      band.textContent = "";
      list.forEach(function (n) { band.appendChild(B.el("span", "notice", n.text)); });
    }
    if (list.length) { F.shrink(band); }
  }

  function apply(message) {
    var before = state;
    state = message.state;
    clock = message.clock;
    clockAt = performance.now();
    document.body.className = "screen" + (view === "overlay" ? " overlay part-" + part : "") + " mode-" + state.mode + " phase-" + state.phase;
    notices = message.notices || [];
    toMove = message.rack || null;
    renderNotices(notices);
    setText("game-name", state.name + (message.delay ? " · " + fmt(T.delayed, { n: message.delay }) : ""));
    var cameraDown = Boolean(message.camera && !message.camera.signal);  // never a possibly stale board
    $("camera-down").hidden = !cameraDown;
    $("board").hidden = cameraDown;
    B.render($("board"), state.board, state.last, values);
    if (state.mode === "duplicate") { renderDuplicate(state); } else { renderClassic(state); }
    if ($("analysis")) { R.renderAnalysis($("analysis"), T, message.analysis || null); }
    var key = hasSummary(state) ? state.phase + ":" + (state.summary ? state.summary.round : 0) : "";
    if (key && key !== summaryKey) { showing = "summary"; page = 0; }  // a new master: its summary at once
    if (!key) { showing = "board"; }
    summaryKey = key;
    renderStage();
    if (S) { S.update(state); }
    tick();
    fitSide();
    return before;
  }

  function poll(url) {
    var last = "";
    function once() {
      fetch(url, { cache: "no-store" })
        .then(function (r) { if (!r.ok) { throw new Error(String(r.status)); } return r.text(); })
        .then(function (text) {
          $("reconnecting").hidden = true;
          if (text !== last) { last = text; apply(JSON.parse(text)); }
        })
        .catch(function () { $("reconnecting").hidden = false; })
        .then(function () { window.setTimeout(once, 1000); });
    }
    window.setTimeout(once, 1000);
  }

  if (S) { S.start(T, alternate); }
  apply(json("initial"));
  setInterval(tick, 200);
  var turner = setInterval(turn, alternate);
  document.addEventListener("keydown", function (event) {  // the operator moves on by hand: space or arrow
    if (event.key === " " || event.key === "ArrowRight") {
      clearInterval(turner);
      turn();
      turner = setInterval(turn, alternate);
    }
  });
  window.addEventListener("resize", function () {
    renderNotices(notices);
    layoutSummary();
    fitSide();
    if (S) { S.resize(); }
  });
  if (root.dataset.poll) {
    poll(root.dataset.poll);
  } else {
    window.VeedorLive.connect(root.dataset.stream, apply, function (ok) { $("reconnecting").hidden = ok; });
  }
})();
