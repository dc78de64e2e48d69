/* What the room is told: a duplicate round's summary and the standings (paged), a classic
   game's spread, unseen tiles and end in words, and (delayed views only) the analysis. */
(function () {
  "use strict";
  var B = window.VeedorBoard;
  var fmt = window.VeedorLive.format;

  /* The summary's lines: [class, template, values]; ``{play}`` is a play (its blanks marked). */
  function summaryLines(T, s) {
    var lines = [];
    var m = s.summary;
    if (!m) { return lines; }
    lines.push(["big", "{play} · " + T.points, { play: m.play, n: m.score }]);
    if (m.annulled) {
      lines.push(["annulled-note", T.annulled, {}]);
      if (m.annulled_players) { lines.push(["", m.annulled_players === 1 ? T.annulled_one : T.annulled_many, { n: m.annulled_players }]); }
    }
    if (m.found === 0) { lines.push(["", T.found_none, {}]); }
    else if (m.finders.length === 1 && m.found === 1) { lines.push(["", T.found_one, { names: m.finders[0] }]); }
    else if (m.finders.length) { lines.push(["", T.found_few, { n: m.found, names: m.finders.join(", ") }]); }
    else { lines.push(["", T.found_many, { n: m.found }]); }
    m.bonus.forEach(function (b) { lines.push(["", T.bonus, { name: b.name, n: b.points }]); });
    if (m.best) {
      lines.push(m.best.names.length === m.best.count
        ? ["", T.best, { play: m.best.play, n: m.best.score, names: m.best.names.join(", ") }]
        : ["", T.best_many, { play: m.best.play, n: m.best.score, count: m.best.count }]);
    }
    lines.push(["", T.total, { n: s.master_total }]);
    return lines;
  }

  function renderSummary(node, T, s) {
    node.textContent = "";
    summaryLines(T, s).forEach(function (line) { node.appendChild(B.fill(B.el("p", line[0]), line[1], line[2], ["play"])); });
  }

  /* The standings table; returns its body rows (the pages are made by VeedorFit). */
  function renderStandings(node, T, s, final) {
    node.textContent = "";
    var table = B.el("table", "");
    var head = B.el("thead", "");
    var tr = B.el("tr", "");
    var cols = [["num", T.col_rank], ["name", T.col_name], ["num", T.col_total], ["num", T.col_pct]];
    if (final && s.tie_breaks) { cols.push(["num", T.col_masters], ["num", T.col_solos], ["num", T.col_deficit]); }
    else if (!final) { cols.push(["num", T.col_round]); }
    cols.forEach(function (c) { tr.appendChild(B.el("th", c[0], c[1])); });
    head.appendChild(tr);
    table.appendChild(head);
    var body = B.el("tbody", "");
    var rows = [];
    s.standings.forEach(function (p) {
      var row = B.el("tr", "");
      row.appendChild(B.el("td", "num", p.rank + "."));
      row.appendChild(B.el("td", "name", p.name));
      row.appendChild(B.el("td", "num", String(p.total)));
      row.appendChild(B.el("td", "num", p.pct.toFixed(1)));
      if (final && s.tie_breaks) {
        row.appendChild(B.el("td", "num", String(p.masters)));
        row.appendChild(B.el("td", "num", String(p.solos)));
        row.appendChild(B.el("td", "num", String(p.deficit)));
      } else if (!final) {
        row.appendChild(B.el("td", "num", String(p.round)));
      }
      body.appendChild(row);
      rows.push(row);
    });
    table.appendChild(body);
    node.appendChild(table);
    return { head: head, rows: rows };
  }

  function classicEnding(T, s) {
    var lines = [];
    var names = s.players.map(function (p) { return p.name; });
    var margin = Math.abs(s.players[0].score - s.players[1].score);
    lines.push(["winner-line", s.winner === null ? T.tie : fmt(T.winner_is, { name: names[s.winner], n: margin })]);
    lines.push(["", fmt(T.final_score, { a: names[0], x: s.players[0].score, b: names[1], y: s.players[1].score })]);
    var out = s.adjustments.filter(function (a) { return a.kind === "rack" && a.points > 0; })[0];
    if (s.ending && T["ending_" + s.ending]) {
      lines.push(["", fmt(T["ending_" + s.ending], { name: out ? names[out.player] : "" })]);
    }
    s.adjustments.forEach(function (a) {
      if (!a.points) { return; }
      var key = a.kind === "time" ? "adj_time" : (a.points > 0 ? "adj_out" : "adj_rack");
      if (Math.abs(a.points) === 1 && T[key + "_1"]) { key += "_1"; }
      lines.push(["", fmt(T[key], { name: names[a.player], n: Math.abs(a.points), rack: a.rack })]);
    });
    return lines;
  }

  function renderUnseen(node, s) {
    node.textContent = "";
    s.unseen.forEach(function (u) {
      var item = B.el("span", "");
      item.appendChild(B.el("b", "", u[0]));
      item.appendChild(document.createTextNode(u[1] > 1 ? "\u00d7" + u[1] : ""));
      node.appendChild(item);
    });
  }

  function renderAnalysis(node, T, a) {
    node.textContent = "";
    node.hidden = !a;
    if (!a) { return; }
    var title = T.analysis + " · " + (a.round ? fmt(T.round, { n: a.round }) + " · " : "") + (a.player ? a.player + " · " : "");
    var head = B.el("h3", "", title);
    head.appendChild(B.el("span", "play")).appendChild(B.play(a.play));
    node.appendChild(head);
    if (!a.plays) { node.appendChild(B.el("p", "", T.analysis_unknown)); return; }
    var list = B.el("ol", "");
    a.plays.forEach(function (p) {
      list.appendChild(B.fill(B.el("li", p.played ? "played" : ""), "{play} · " + T.points, { play: p.play, n: p.score }, ["play"]));
    });
    node.appendChild(list);
    if (a.rank) { node.appendChild(B.el("p", "", fmt(T.analysis_rank, { n: a.rank, total: a.count }))); }
  }

  window.VeedorRoom = { renderSummary: renderSummary, renderStandings: renderStandings, classicEnding: classicEnding,
    renderUnseen: renderUnseen, renderAnalysis: renderAnalysis };
})();
