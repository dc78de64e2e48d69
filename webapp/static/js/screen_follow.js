/* A venue's named screen: asks every few seconds which game it should show and moves there
   when that changes (a table's next game, a rotation, a new duplicate game). A waiting screen
   (no game yet) shows the room's notices the answer carries in its band (#notices). */
(function () {
  "use strict";
  var me = document.currentScript;
  var shown = me.getAttribute("data-game") || null;
  var every = 5000;

  function check() {
    fetch(me.getAttribute("data-target"), { cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (answer) {
        if (answer && (answer.game || null) !== shown) {
          window.location.replace(me.getAttribute("data-screen"));
          return;
        }
        if (answer && answer.follow_seconds) { every = answer.follow_seconds * 1000; }
        if (answer && !shown) { showNotices(answer.notices || []); }
        window.setTimeout(check, every);
      })
      .catch(function () { window.setTimeout(check, every); });
  }

  function showNotices(list) {
    var band = document.getElementById("notices");
    if (!band) { return; }
    var key = list.map(function (n) { return n.id; }).join(",");
    if (band.dataset.key === key) { return; }
    band.dataset.key = key;
    band.textContent = "";
    list.forEach(function (n) {
      var span = document.createElement("span");
      span.className = "notice";
      span.textContent = n.text;
      band.appendChild(span);
    });
    band.hidden = list.length === 0;
    document.body.classList.toggle("with-notices", list.length > 0);
  }

  window.setTimeout(check, every);
})();
