/* Fitting text to the screen: shrink a panel's texts (--k) until nothing overflows it, and
   cut a long table into pages that fit (rows are never cut, names wrap rather than vanish). */
(function () {
  "use strict";
  var MIN_K = 0.35;

  function overflows(box) {
    return box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1;
  }

  function setK(box, k) { box.style.setProperty("--k", k.toFixed(3)); }

  /* Shrink ``box``'s texts until it holds them; ``layout`` (optional) lays the box out again
     after each step (paging) and is called once at the start. */
  function shrink(box, layout) {
    var k = 1;
    setK(box, k);
    if (layout) { layout(); }
    while (overflows(box) && k > MIN_K) {
      k *= 0.9;
      setK(box, k);
      if (layout) { layout(); }
    }
    return k;
  }

  /* Pages of ``rows`` (tr elements) that fit in ``holder``'s height below ``head``. */
  function pages(holder, head, rows) {
    rows.forEach(function (r) { r.classList.remove("off"); });
    var room = holder.clientHeight - (head ? head.offsetHeight : 0) - 2;
    var out = [];
    var page = [];
    var used = 0;
    rows.forEach(function (r) {
      var h = r.offsetHeight;
      if (page.length && used + h > room) { out.push(page); page = []; used = 0; }
      page.push(r);
      used += h;
    });
    if (page.length) { out.push(page); }
    return out;
  }

  function show(rows, chosen) {
    rows.forEach(function (r) { r.classList.toggle("off", chosen.indexOf(r) < 0); });
  }

  window.VeedorFit = { overflows: overflows, shrink: shrink, pages: pages, show: show };
})();
