/* The 15x15 board and tiles, drawn from labels ('' empty, lowercase a blank), and plays
   written as text: a blank's letter (lowercase in the notation, D.III.20.1) is shown as a
   capital in a circle, as on the slips, never as a lowercase letter ("DOlIESEN" would read
   DOIIESEN). The text itself keeps the notation, so it copies as written. */
(function () {
  "use strict";
  var ROWS = "ABCDEFGHIJKLMNO";
  var PREMIUM_CLASS = { "d": "dl", "t": "tl", "D": "dw", "T": "tw", "*": "star", ".": "" };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function tile(label, values, extra) {
    var blank = label !== "?" && label !== label.toUpperCase();
    var upper = label.toUpperCase();
    var node = el("div", "tile" + (blank || label === "?" ? " blank" : "") + (upper.length > 1 ? " digraph" : "") + (extra ? " " + extra : ""));
    node.appendChild(el("span", "letter", label === "?" ? "" : upper));
    if (!blank && label !== "?" && values[upper] !== undefined) {
      node.appendChild(el("span", "value", String(values[upper])));
    }
    return node;
  }

  var DIGRAPHS = ["ch", "ll", "rr"];

  /* ``text`` (a play in canonical notation, or a sentence holding one) as nodes: each blank
     (a lowercase letter, or a lowercase CH, LL or RR: one tile) in a span.blank-letter. */
  function play(text) {
    var out = document.createDocumentFragment();
    var plain = "";
    var i = 0;
    while (i < text.length) {
      var ch = text[i];
      if (ch === ch.toUpperCase()) { plain += ch; i += 1; continue; }
      var size = DIGRAPHS.indexOf(text.substr(i, 2)) >= 0 ? 2 : 1;
      if (plain) { out.appendChild(document.createTextNode(plain)); plain = ""; }
      out.appendChild(el("span", "blank-letter", text.substr(i, size)));
      i += size;
    }
    if (plain) { out.appendChild(document.createTextNode(plain)); }
    return out;
  }

  /* ``node`` shows the play ``text`` (see ``play``); nothing is redrawn when it is the same. */
  function setPlay(node, text) {
    if (node.dataset.play === text) { return; }
    node.dataset.play = text;
    node.textContent = "";
    node.appendChild(play(text));
  }

  /* ``template`` ("... {play} ...") filled with ``values`` into ``node``: the values named in
     ``plays`` as plays (``play``), the others as plain text. */
  function fill(node, template, values, plays) {
    template.split(/(\{\w+\})/).forEach(function (piece) {
      var key = /^\{(\w+)\}$/.test(piece) ? piece.slice(1, -1) : null;
      if (key === null) { if (piece) { node.appendChild(document.createTextNode(piece)); } return; }
      var value = values[key] === undefined ? "" : String(values[key]);
      if ((plays || []).indexOf(key) >= 0) {
        var span = el("span", "play");
        span.appendChild(play(value));
        node.appendChild(span);
      } else {
        node.appendChild(document.createTextNode(value));
      }
    });
    return node;
  }

  function build(container, premiums, marks) {
    container.textContent = "";
    container.appendChild(el("div", "corner"));
    for (var c = 1; c <= 15; c++) { container.appendChild(el("div", "coord col", String(c))); }
    var cells = [];
    for (var r = 0; r < 15; r++) {
      container.appendChild(el("div", "coord row", ROWS[r]));
      var row = [];
      for (var k = 0; k < 15; k++) {
        var kind = premiums[r][k];
        var cell = el("div", "sq " + PREMIUM_CLASS[kind]);
        cell.dataset.square = ROWS[r] + (k + 1);
        var mark = marks[kind];
        if (mark) { cell.appendChild(el("span", "premium", mark)); }
        container.appendChild(cell);
        row.push(cell);
      }
      cells.push(row);
    }
    container._cells = cells;
    container._marks = marks;
    container._premiums = premiums;
  }

  function render(container, board, last, values) {
    var highlight = {};
    (last || []).forEach(function (sq) { highlight[sq[0] * 15 + sq[1]] = true; });
    for (var r = 0; r < 15; r++) {
      for (var c = 0; c < 15; c++) {
        var cell = container._cells[r][c];
        var label = board[r][c];
        var key = label + (highlight[r * 15 + c] ? "*" : "");
        if (cell.dataset.tile === key) { continue; }
        cell.dataset.tile = key;
        cell.textContent = "";
        if (label) {
          cell.appendChild(tile(label, values, highlight[r * 15 + c] ? "last" : ""));
        } else {
          var mark = container._marks[container._premiums[r][c]];
          if (mark) { cell.appendChild(el("span", "premium", mark)); }
        }
      }
    }
  }

  window.VeedorBoard = { build: build, render: render, tile: tile, el: el, play: play, setPlay: setPlay, fill: fill };
})();
