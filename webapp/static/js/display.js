/* The projection screen: board, round, rack, clock with the D.III.13 warnings, master play. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var json = function (id) { return JSON.parse($(id).textContent); };
  var T = json("i18n");
  var values = json("tile-values");
  var boardData = json("board-data");
  var fmt = window.VeedorLive.format;
  var B = window.VeedorBoard;

  var state = null;
  var clock = { state: "none" };
  var clockAt = performance.now();

  B.build($("board"), boardData.premiums, boardData.marks);

  function setText(id, text) { var n = $(id); if (n.textContent !== text) { n.textContent = text; } }

  function remaining() {
    if (clock.state !== "running") { return clock.remaining; }
    return Math.max(0, clock.remaining - (performance.now() - clockAt) / 1000);
  }

  function mmss(seconds) {
    var s = Math.ceil(seconds);
    var m = Math.floor(s / 60);
    s = s % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function tick() {
    var node = $("clock");
    var alert = $("alert");
    var cls = "clock";
    var note = "";
    var big = "";
    if (!state || state.mode !== "duplicate" || clock.state === "none") {
      node.hidden = true;
      alert.hidden = true;
      return;
    }
    node.hidden = false;
    var left = remaining();
    setText("clock-time", mmss(left));
    if (clock.state === "idle") { cls += " idle"; note = T.ready; }
    else if (clock.state === "paused") { cls += " paused"; note = T.paused; }
    else if (clock.state === "closed" || left <= 0) { cls += " over"; note = T.tiempo; big = T.tiempo; }
    else if (left <= 5) { cls += " alcen"; note = T.alcen; big = T.alcen; }
    else if (left <= 30) { cls += " warn2"; note = T.thirty; }
    else if (left <= 60) { cls += " warn1"; note = T.one_minute; }
    if (node.className !== cls) { node.className = cls; }
    setText("clock-note", note);
    if (big) {
      setText("alert", big);
      alert.className = "alert " + (big === T.alcen ? "alcen" : "tiempo");
      alert.hidden = false;
    } else {
      alert.hidden = true;
    }
  }

  function renderRack(rack) {
    var node = $("rack");
    var key = rack.join(",");
    if (node.dataset.key === key) { return; }
    node.dataset.key = key;
    node.textContent = "";
    rack.forEach(function (label) { node.appendChild(B.tile(label, values)); });
  }

  function renderDuplicate(s) {
    setText("round", s.round ? (s.rounds ? fmt(T.round_of, { n: s.round, total: s.rounds }) : fmt(T.round, { n: s.round })) : T.waiting);
    renderRack(s.phase === "ronda" ? s.rack : (s.phase === "maestra" ? s.rack : []));
    var master = $("master");
    var showMaster = s.master && (s.phase === "maestra" || s.phase === "fin" || s.phase === "ronda");
    master.hidden = !showMaster;
    if (showMaster) {
      var current = s.phase !== "ronda";
      master.className = "master" + (current ? " fresh" : " previous");
      setText("master-label", current ? T.master : fmt(T.master_of, { n: s.master.round }));
      setText("master-play", s.master.play);
      setText("master-score", fmt(T.points, { n: s.master.score }));
      setText("master-total", fmt(T.total, { n: s.master_total }) + (s.master.annulled ? " · " + fmt(T.annulled, { why: s.master.annulled }) : ""));
    }
    var leaders = $("leaders");
    leaders.hidden = s.phase !== "fin";
    if (s.phase === "fin") {
      leaders.textContent = "";
      leaders.appendChild(B.el("h2", "", T.ended));
      var list = B.el("ol", "");
      s.leaders.forEach(function (l) {
        var item = B.el("li", "");
        item.appendChild(B.el("span", "rank", l.rank + "."));
        item.appendChild(B.el("span", "name", l.name));
        item.appendChild(B.el("span", "total", String(l.total)));
        list.appendChild(item);
      });
      leaders.appendChild(list);
    }
    var foot = [];
    if (s.phase === "ronda") { foot.push(fmt(T.submitted, { n: s.submitted, total: s.players })); }
    if (s.redraws && s.phase === "ronda") { foot.push(fmt(T.redraws, { n: s.redraws })); }
    foot.push(fmt(T.bag, { n: s.bag }));
    setText("foot", foot.join(" · "));
  }

  function renderClassic(s) {
    setText("round", "");
    var players = $("players");
    players.textContent = "";
    s.players.forEach(function (p, i) {
      var row = B.el("div", "player" + (s.to_move === i && !s.ended ? " to-move" : "") + (s.winner === i ? " winner" : ""));
      row.appendChild(B.el("span", "name", p.name));
      row.appendChild(B.el("span", "score", String(p.score)));
      players.appendChild(row);
    });
    var list = $("last-plays");
    list.textContent = "";
    s.last_plays.forEach(function (t) {
      var item = B.el("li", t.withdrawn ? "withdrawn" : "");
      item.appendChild(B.el("span", "who", t.player));
      var what = t.kind === "pass" ? T.pass : (t.kind === "exchange" ? T.exchange + " " + t.count : t.text);
      item.appendChild(B.el("span", "what", what));
      item.appendChild(B.el("span", "pts", t.points === null ? "" : String(t.points)));
      list.appendChild(item);
    });
    setText("foot", s.ended ? T.ended + (s.ending ? " · " + s.ending : "") : fmt(T.bag, { n: s.bag }));
  }

  function apply(message) {
    state = message.state;
    clock = message.clock;
    clockAt = performance.now();
    document.body.className = "screen mode-" + state.mode + " phase-" + state.phase;
    setText("game-name", state.name);
    var cameraDown = Boolean(message.camera && !message.camera.signal);  // never a possibly stale board
    $("camera-down").hidden = !cameraDown;
    $("board").hidden = cameraDown;
    B.render($("board"), state.board, state.last, values);
    if (state.mode === "duplicate") { renderDuplicate(state); } else { renderClassic(state); }
    tick();
  }

  apply(json("initial"));
  setInterval(tick, 200);
  window.VeedorLive.connect($("screen").dataset.stream, apply, function (ok) { $("reconnecting").hidden = ok; });
})();
