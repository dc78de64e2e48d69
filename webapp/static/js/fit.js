/* Fitting text to the screen. Texts wrap only between words (the CSS never breaks a word:
   no overflow-wrap anywhere); a panel whose words do not fit is shrunk as a whole (--k), a
   play or a title by itself (--fw). A long table is cut into pages: every page the same for
   a given screen (the cut never depends on the page shown, so no row is on two pages),
   whole rows only, at least MIN_ROWS a page but the last. */
(function () {
  "use strict";
  var MIN_K = 0.35;
  var MIN_ROWS = 12;

  function overflows(box) {
    return box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1;
  }

  /* A word wider than the element that holds it, anywhere in ``box`` (tiles aside: their
     letters are sized on the tile). */
  function spills(box) {
    var nodes = box.querySelectorAll("*");
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.clientWidth > 0 && n.scrollWidth > n.clientWidth + 1 && !n.closest(".tile")) { return true; }
    }
    return false;
  }

  function setK(box, k) { box.style.setProperty("--k", k.toFixed(3)); }

  /* Shrink ``box``'s texts until it holds them and no word spills; ``layout`` (optional) lays
     the box out again after each step and returns false when the step does not fit either. */
  function shrink(box, layout) {
    var k = 1;
    for (;;) {
      setK(box, k);
      var laid = layout ? layout() !== false : true;
      if ((laid && !overflows(box) && !spills(box)) || k <= MIN_K) { return k; }
      k *= 0.9;
    }
  }

  /* One element's font (its CSS uses --fw) made small enough for its longest word. */
  function fitWidth(node) {
    node.style.setProperty("--fw", "1");
    for (var i = 0; i < 4 && node.clientWidth > 0 && node.scrollWidth > node.clientWidth + 1; i++) {
      var fw = Number(node.style.getPropertyValue("--fw")) * node.clientWidth / node.scrollWidth * 0.98;
      node.style.setProperty("--fw", fw.toFixed(3));
    }
  }

  /* The pages of ``rows`` (tr elements, all shown while measured) in ``holder`` below ``head``:
     lists of row indices. The first page has ``room`` pixels of height, the others ``room +
     more`` (what the first page shows above them). ``ok`` is false when a page but the last
     holds fewer than MIN_ROWS rows, or a row is taller than a page. */
  function pages(holder, head, rows, more) {
    rows.forEach(function (r) { r.classList.remove("off"); });
    var top = head ? head.getBoundingClientRect().bottom : holder.getBoundingClientRect().top;
    var room = holder.getBoundingClientRect().bottom - top - 1;
    var boxes = rows.map(function (r) { return r.getBoundingClientRect(); });
    var out = [];
    var ok = true;
    var start = 0;
    while (start < rows.length) {
      var limit = room + (out.length ? more : 0);
      var end = start;
      while (end < rows.length && boxes[end].bottom - boxes[start].top <= limit) { end++; }
      if (end === start) { ok = false; end = start + 1; }
      if (end < rows.length && end - start < MIN_ROWS) { ok = false; }
      var page = [];
      for (var i = start; i < end; i++) { page.push(i); }
      out.push(page);
      start = end;
    }
    return { pages: out.length ? out : [[]], ok: ok };
  }

  /* Show the rows of ``page`` (indices) only; the others keep their columns' widths. */
  function show(rows, page) {
    rows.forEach(function (r, i) { r.classList.toggle("off", page.indexOf(i) < 0); });
  }

  window.VeedorFit = { overflows: overflows, spills: spills, shrink: shrink, fitWidth: fitWidth, pages: pages,
    show: show, MIN_ROWS: MIN_ROWS };
})();
