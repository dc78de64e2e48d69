/* A classic table's clock as the server sent it (``GameClock.to_json``), carried forward in time
   here: ``at(clock, seconds)`` is the clock that many seconds after the message was built; the
   tablet's own press is shown at once (``afterPress``) until the server answers. ``renderPanel``
   draws both clocks on the room's screens and the overlays' ``clock`` part. */
(function () {
  "use strict";
  var fmt = window.VeedorLive.format;

  function copy(clock) { return JSON.parse(JSON.stringify(clock)); }

  function chess(c) { return c.mode !== "temporizador"; }

  function warning(c) {
    if (chess(c) || c.side === null || c.side === undefined) { return 0; }
    var left = c.players[c.side].remaining;
    if (left <= 0) { return 4; }
    return c.warnings.filter(function (signal) { return left <= signal; }).length;
  }

  function penalty(over) { return over > 0 ? 10 * Math.ceil(over / 60) : 0; }  // C.35

  /* The clock ``dt`` seconds later: the running player's time, the game's time (C.30: never paused). */
  function at(clock, dt) {
    var c = copy(clock);
    if (c.state === "none" || c.state === "ready" || dt <= 0) { return c; }
    if (c.game_left !== null && c.state !== "ended") { c.game_left -= dt; }
    if (c.state !== "running" || c.running === null) { return c; }
    var p = c.players[c.running];
    p.used += dt;
    if (chess(c)) {
      p.remaining -= dt;
      p.over = Math.max(0, -p.remaining);
      p.penalty = penalty(p.over);
    } else {
      c.turn_used += dt;
      p.remaining = Math.max(0, c.limit - c.turn_used);
    }
    c.warning = warning(c);
    return c;
  }

  /* What the server will do with ``player``'s press (``GameClock.press``), shown before it answers. */
  function afterPress(clock, player) {
    var c = copy(clock);
    if (c.counting === player) {
      c.counting = null;
    } else {
      c.turns[player] += 1;
      if (c.mode === "no_corrido") {
        c.state = "counting"; c.counting = player; c.side = null; c.running = null;
        return c;
      }
    }
    c.state = "running"; c.side = 1 - player; c.running = 1 - player;
    if (!chess(c)) { c.turn_used = 0; c.players.forEach(function (p) { p.remaining = c.limit; }); }
    c.warning = 0;
    return c;
  }

  /* The player whose half a press belongs to now: the one whose time runs, or who counts. */
  function engaged(c) {
    if (c.state === "counting") { return c.counting; }
    if (c.state === "running") { return c.running; }
    return null;
  }

  function clockText(seconds) {
    var negative = seconds < 0;
    var s = negative ? Math.floor(-seconds) : Math.ceil(seconds);
    var m = Math.floor(s / 60);
    s = s % 60;
    return (negative ? "−" : "") + m + ":" + (s < 10 ? "0" : "") + s;
  }

  /* One player's half: its time, a note in words and a class (running, counting, warn1..3, over). */
  function half(c, i, T) {
    var p = c.players[i];
    var out = { time: clockText(p.remaining), note: "", cls: "" };
    if (c.state === "ended") {
      out.note = p.penalty ? fmt(T.penalty, { n: p.penalty }) : T.ended;
      out.cls = p.penalty ? "over" : "";
      return out;
    }
    if (c.state === "paused") { out.note = T.paused; out.cls = i === c.side ? "paused" : ""; return out; }
    if (c.state === "counting" && c.counting === i) { out.note = T.counting; out.cls = "counting"; return out; }
    if (c.state !== "running" || c.running !== i) {
      out.note = p.penalty ? fmt(T.penalty_so_far, { n: p.penalty }) : "";
      out.cls = p.penalty ? "over" : "";
      return out;
    }
    out.cls = "running";
    if (!chess(c)) {
      out.note = c.warning >= 4 ? T.time_over : (c.warning ? fmt(T.warning, { n: c.warning }) : T.turn);
      out.cls += c.warning ? " warn" + Math.min(c.warning, 3) + (c.warning >= 4 ? " over" : "") : "";
    } else if (p.over > 0) {
      out.note = fmt(T.penalty_so_far, { n: p.penalty });
      out.cls += " over";
    } else {
      out.note = T.turn;
      out.cls += p.remaining <= 60 ? " warn1" : "";
    }
    return out;
  }

  /* The game's time in words (C.30), or "" without one. */
  function gameTime(c, T) {
    if (c.state === "ended" && c.ending === "45.5") { return T.ended_on_time; }
    if (c.game_left === null || c.game_left === undefined) { return ""; }
    return c.game_left > 0 ? fmt(T.game_left, { t: clockText(c.game_left) }) : T.game_over;
  }

  /* Both clocks for the room's screen (``node``: the clock part of a classic table). */
  function renderPanel(node, clock, names, T, dt) {
    if (!clock || clock.kind !== "classic") { node.hidden = true; return; }
    node.hidden = false;
    var c = at(clock, dt);
    var rows = node.querySelectorAll(".clock-row");
    if (rows.length !== 2) {
      node.textContent = "";
      for (var k = 0; k < 2; k++) {
        var row = document.createElement("div");
        row.className = "clock-row";
        ["who", "time", "note"].forEach(function (part) {
          var span = document.createElement("span");
          span.className = part;
          row.appendChild(span);
        });
        node.appendChild(row);
      }
      var foot = document.createElement("div");
      foot.className = "clock-foot";
      node.appendChild(foot);
      rows = node.querySelectorAll(".clock-row");
    }
    for (var i = 0; i < 2; i++) {
      var h = half(c, i, T);
      var cls = "clock-row " + h.cls;
      if (rows[i].className !== cls) { rows[i].className = cls; }
      setText(rows[i].children[0], names[i] || "");
      setText(rows[i].children[1], h.time);
      setText(rows[i].children[2], h.note);
    }
    setText(node.querySelector(".clock-foot"), c.state === "ready" ? T.ready : gameTime(c, T));
  }

  function setText(node, text) { if (node.textContent !== text) { node.textContent = text; } }

  window.VeedorClocks = {
    at: at, afterPress: afterPress, engaged: engaged, half: half, gameTime: gameTime,
    clockText: clockText, renderPanel: renderPanel, setText: setText
  };
})();
