/* A venue's named screen: asks every few seconds which game it should show and moves there
   when that changes (a table's next game, a rotation, a new duplicate game). */
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
        window.setTimeout(check, every);
      })
      .catch(function () { window.setTimeout(check, every); });
  }

  window.setTimeout(check, every);
})();
