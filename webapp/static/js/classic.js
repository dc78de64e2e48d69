/* The classic-table console: the board, and a reload when another source changes the game. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var json = function (id) { return JSON.parse($(id).textContent); };
  var root = $("classic-console");
  if (!root) { return; }
  var boardData = json("board-data");
  window.VeedorBoard.build($("board"), boardData.premiums, boardData.marks);
  window.VeedorBoard.render($("board"), json("board-state"), [], json("tile-values"));
  var version = Number(root.dataset.version);
  window.VeedorLive.connect(root.dataset.stream, function (message) {
    if (message.version === version) { return; }
    var typing = Array.prototype.some.call(document.querySelectorAll("input:not([type=hidden])"), function (i) { return i.value; });
    if (typing) { $("stale").hidden = false; } else { location.reload(); }
  }, function () {});
})();
