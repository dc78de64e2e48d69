/* The stream's additions to an overlay (display.js calls them; the page's "stream-data" says what the
   server knows, views.overlay.stream_settings): each player's club and EloDI beside the name, and
   their photo (else their initials, when some player of the list has a photo); the lower third after each master (the master, the round's top plays and
   who found each), shown for ``seconds`` then gone until the next master; the standings across the
   tournament's games, asked again when this game publishes a master and every POLL_MS (the other
   games), paged like the game's (fit.js: whole rows, every page the same for a given size). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var B = window.VeedorBoard;
  var F = window.VeedorFit;
  var fmt = window.VeedorLive.format;
  var data = JSON.parse($("stream-data").textContent);
  var T = JSON.parse($("stream-i18n").textContent);
  var POLL_MS = 15000;
  var D = {};  // the screen's own words (display's i18n), given by ``start``

  /* -- beside the names ---------------------------------------------------------------------- */

  function initials(name) {
    var words = name.split(/[\s-]+/).filter(function (w) { return /^[A-ZÁÉÍÓÚÑÜ]/.test(w); });
    var picked = words.length > 1 ? [words[0], words[words.length - 1]] : words;
    return picked.map(function (w) { return w[0]; }).join("") || name.slice(0, 1).toUpperCase();
  }

  /* A photo when the list gave one, else the initials in a circle. */
  function badge(who, name) {
    if (who.photo) {
      var img = B.el("img", "who-badge photo");
      img.src = who.photo;
      img.alt = "";
      img.addEventListener("error", function () { img.replaceWith(B.el("span", "who-badge initials", initials(name))); });
      return img;
    }
    return B.el("span", "who-badge initials", initials(name));
  }

  function meta(who) {
    var parts = [];
    if (who.club) { parts.push(who.club); }
    if (who.rating !== null && who.rating !== undefined) { parts.push(fmt(T.elodi, { n: who.rating })); }
    return parts.join(" · ");
  }

  function anyPhoto(list) { return list.some(function (who) { return Boolean(who && who.photo); }); }

  /* ``node`` (a name's element) wrapped with club and EloDI under it, and the player's badge before it
     when ``badged``. */
  function beside(node, who, name, badged) {
    var holder = B.el(node.tagName === "TD" ? "div" : "span", "who-line");
    var text = B.el("span", "who-text");
    while (node.firstChild) { text.appendChild(node.firstChild); }
    var line = meta(who);
    var lines = B.el("span", "who-lines");
    lines.appendChild(text);
    if (line) { lines.appendChild(B.el("span", "meta", line)); }
    if (badged) { holder.appendChild(badge(who, name)); }
    holder.appendChild(lines);
    node.appendChild(holder);
  }

  function person(key) { return (data.people || {})[key] || null; }
  var gamePhotos = anyPhoto(Object.keys(data.people || {}).map(person));

  /* A classic player's row of the scores part (key "0" or "1"). */
  function decoratePlayer(row, key, name) {
    var who = person(key);
    if (who) { beside(row.querySelector(".name"), who, name, gamePhotos); }
  }

  /* The game's standings: each row's name with its player's club, photo and EloDI. */
  function decorateStandings(rows, lines) {
    rows.forEach(function (row, i) {
      var who = lines[i] ? person(lines[i].player) : null;
      if (who) { beside(row.querySelector("td.name"), who, lines[i].name, gamePhotos); }
    });
  }

  /* -- the lower third ----------------------------------------------------------------------- */

  var lower = { round: null, timer: null };

  function hideLower() { var box = $("lower-third"); if (box) { box.hidden = true; } }

  function renderLower(box, told) {
    box.textContent = "";
    var head = B.el("div", "lower-head");
    head.appendChild(B.el("div", "lower-round", fmt(T.lower_round, { n: told.round })));
    head.appendChild(B.fill(B.el("div", "lower-master"), "{play}", { play: told.master }, ["play"]));
    head.appendChild(B.el("div", "lower-score", fmt(D.points, { n: told.score })));
    if (told.annulled) { head.appendChild(B.el("div", "annulled-note", D.annulled)); }
    box.appendChild(head);
    var list = B.el("ol", "lower-plays");
    list.setAttribute("aria-label", T.lower_top);
    told.plays.forEach(function (p) {
      var item = B.el("li", p.master ? "is-master" : "");
      item.appendChild(B.fill(B.el("span", "lower-play"), "{play}", { play: p.play }, ["play"]));
      item.appendChild(B.el("span", "lower-points", String(p.score)));
      var who = p.found === 0 ? T.nobody : (p.names.length ? p.names.join(", ") : fmt(T.found_count, { n: p.found }));
      item.appendChild(B.el("span", "lower-who", who));
      list.appendChild(item);
    });
    box.appendChild(list);
    box.hidden = false;
    F.shrink(box);
    document.fonts.ready.then(function () { F.shrink(box); });  // measured again with the page's own font
  }

  /* After a master (the state's summary names a round not shown yet), its lower third for a while. */
  function updateLower(state) {
    var box = $("lower-third");
    if (!box || !box.classList.contains("shown")) { return; }
    if (state.mode !== "duplicate" || !state.summary || (state.phase !== "maestra" && state.phase !== "fin")) { return; }
    var round = state.summary.round;
    if (round === lower.round) { return; }
    lower.round = round;
    var url = data.lower + (data.lower.indexOf("?") >= 0 ? "&" : "?") + "ronda=" + round;
    fetch(url, { cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error(String(r.status)); } return r.json(); })
      .then(function (told) {
        if (!told || told.round !== lower.round) { return; }
        renderLower(box, told);
        clearTimeout(lower.timer);
        lower.timer = setTimeout(hideLower, data.seconds * 1000);
      })
      .catch(function () { lower.round = null; });  // asked again with the next message
  }

  /* -- the standings across the tournament's games --------------------------------------------- */

  var event = { body: null, table: null, page: 0, pages: 1 };

  function cell(row, cls, text) { row.appendChild(B.el("td", cls, text)); }

  function columns(body) {
    if (body.kind === "classic") { return [T.col_played, T.col_wins, T.col_spread]; }
    return [T.col_played, D.col_total, D.col_pct, T["col_" + body.criterion]];
  }

  function figures(body, line) {
    if (body.kind === "classic") { return [String(line.played), String(line.wins), (line.spread > 0 ? "+" : "") + line.spread]; }
    var value = body.criterion === "deviation" ? line.value.toFixed(3) : line.value.toFixed(2);
    return [String(line.played), String(line.total), line.pct.toFixed(1), value];
  }

  function renderEvent(body) {
    var box = $("event-standings");
    event.body = body;
    $("event-title").textContent = T.event_title + " · " + body.name;
    var holder = $("event-table");
    holder.textContent = "";
    box.hidden = !body.kind;
    if (!body.kind) { event.table = null; return; }
    var table = B.el("table", "");
    var head = B.el("thead", "");
    var tr = B.el("tr", "");
    tr.appendChild(B.el("th", "num", D.col_rank));
    tr.appendChild(B.el("th", "name", D.col_name));
    columns(body).forEach(function (c) { tr.appendChild(B.el("th", "num", c)); });
    head.appendChild(tr);
    table.appendChild(head);
    var tbody = B.el("tbody", "");
    var photos = anyPhoto(body.lines);
    var rows = body.lines.map(function (line) {
      var row = B.el("tr", "");
      cell(row, "num", line.rank + ".");
      var name = B.el("td", "name", line.name);
      beside(name, line, line.name, photos);
      row.appendChild(name);
      figures(body, line).forEach(function (f) { cell(row, "num", f); });
      tbody.appendChild(row);
      return row;
    });
    table.appendChild(tbody);
    holder.appendChild(table);
    event.table = { head: head, rows: rows };
    layoutEvent();
    document.fonts.ready.then(layoutEvent);  // the rows' heights with the page's own font
  }

  function layoutEvent() {
    var box = $("event-standings");
    if (!event.table || box.hidden) { return; }
    var cut = null;
    F.shrink(box, function () { cut = F.pages($("event-table"), event.table.head, event.table.rows, 0); return cut.ok; });
    event.pages = cut.pages.length;
    var index = event.page % event.pages;
    F.show(event.table.rows, cut.pages[index]);
    $("event-page").textContent = event.pages > 1 ? fmt(D.page, { n: index + 1, total: event.pages }) : "";
  }

  var asked = { last: "", timer: null, key: null, polling: false };

  function askEvent() {
    clearTimeout(asked.timer);
    fetch(data.tournament, { cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error(String(r.status)); } return r.text(); })
      .then(function (text) { if (text !== asked.last) { asked.last = text; renderEvent(JSON.parse(text)); } })
      .catch(function () {})
      .then(function () { asked.timer = setTimeout(askEvent, POLL_MS); });
  }

  /* The game's masters change the standings: asked again at each one (and at the end). */
  function updateEvent(state) {
    if (!asked.polling) { return; }
    var key = state.mode === "duplicate" ? (state.summary ? state.summary.round : 0) + ":" + state.ended : String(state.ended);
    if (asked.key !== null && key !== asked.key) { askEvent(); }
    asked.key = key;
  }

  /* display.js starts the parts shown: ``D`` the screen's words, ``every`` the pages' turn (ms). */
  function start(words, every) {
    D = words;
    var box = $("event-standings");
    if (box && box.classList.contains("shown") && data.tournament) {
      asked.polling = true;
      askEvent();
      setInterval(function () { event.page += 1; layoutEvent(); }, every);
    }
  }

  function update(state) {
    updateLower(state);
    updateEvent(state);
  }

  window.VeedorStream = { decoratePlayer: decoratePlayer, decorateStandings: decorateStandings, update: update,
    start: start, resize: function () { layoutEvent(); var box = $("lower-third"); if (box && !box.hidden) { F.shrink(box); } } };
})();
