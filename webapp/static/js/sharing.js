/* Several consoles, one round: what one console keeps of its own share of the work.

   - "Mis mesas": the tables this console types ("1-30, 41"), which filter its missing list;
   - the slips it stored itself ("round:table" -> the slip's time of entry, as the server gives it),
     which tell them from the slips another console or the scanner stored;
   - the slips it typed for a table that had one stored elsewhere, waiting for the arbiter to decide
     (both entries kept: what is stored, what was typed).
   Kept in the browser tab (sessionStorage), per game: a reload keeps them, another tab is another console. */
(function () {
  "use strict";

  /* "1-30, 41 45-50" -> [[1, 30], [41, 41], [45, 50]]; "" -> [] (every table); null when unreadable. */
  function parseTables(text) {
    var cleaned = String(text).replace(/[\u2013\u2014]/g, "-").replace(/\s*-\s*/g, "-").trim();
    if (!cleaned) { return []; }
    var ranges = [];
    var parts = cleaned.split(/[\s,;]+/);
    for (var i = 0; i < parts.length; i++) {
      var m = /^(\d{1,4})(?:-(\d{1,4}))?$/.exec(parts[i]);
      if (!m) { return null; }
      var from = Number(m[1]), to = m[2] ? Number(m[2]) : from;
      if (to < from) { return null; }
      ranges.push([from, to]);
    }
    return ranges;
  }

  /* Whether table number ``t`` is among ``ranges`` (no ranges: every table is). */
  function inTables(ranges, t) {
    if (!ranges.length) { return true; }
    for (var i = 0; i < ranges.length; i++) { if (t >= ranges[i][0] && t <= ranges[i][1]) { return true; } }
    return false;
  }

  /* JSON values of this tab for one game; without sessionStorage (a private window), for this page only. */
  function tabStore(gameId) {
    var prefix = "veedor:" + gameId + ":";
    var memory = {};
    return {
      get: function (name, fallback) {
        try {
          var text = window.sessionStorage.getItem(prefix + name);
          return text === null ? fallback : JSON.parse(text);
        } catch (e) { return name in memory ? memory[name] : fallback; }
      },
      set: function (name, value) {
        memory[name] = value;
        try { window.sessionStorage.setItem(prefix + name, JSON.stringify(value)); } catch (e) { /* kept in memory */ }
      }
    };
  }

  function key(round, table) { return String(round) + ":" + String(table); }

  window.VeedorSharing = { parseTables: parseTables, inTables: inTables, tabStore: tabStore, key: key };
})();
