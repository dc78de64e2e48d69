/* Several tables at once (views.stream.tables): as many columns as give each table's part the most
   room, the part's shape (``data-aspect``: its width over its height) and each table's name counted. */
(function () {
  "use strict";
  var grid = document.getElementById("tables");
  var cells = grid.children.length;
  var aspect = Number(grid.dataset.aspect) || 1;

  function layout() {
    var style = getComputedStyle(grid);
    var gap = parseFloat(style.columnGap) || 0;
    var pad = parseFloat(style.paddingLeft) || 0;
    var label = grid.querySelector(".table-name");
    var named = label ? label.getBoundingClientRect().height : 0;
    var best = null;
    for (var cols = 1; cols <= cells; cols++) {
      var rows = Math.ceil(cells / cols);
      var width = (grid.clientWidth - 2 * pad - (cols - 1) * gap) / cols;
      var height = (grid.clientHeight - 2 * pad - (rows - 1) * gap) / rows - named;
      var shown = Math.min(width, height * aspect);  // the part's width in its cell
      if (best === null || shown > best.shown + 0.5) { best = { cols: cols, rows: rows, shown: shown }; }
    }
    grid.style.gridTemplateColumns = "repeat(" + best.cols + ", minmax(0, 1fr))";
    grid.style.gridTemplateRows = "repeat(" + best.rows + ", minmax(0, 1fr))";
  }

  layout();
  window.addEventListener("resize", layout);
})();
