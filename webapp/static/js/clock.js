/* The round clock's calls (D.III.13), shared by the projection screen and the arbiter's console.

   The judge calls "TIEMPO" when the round's time starts, warns at 1 minute and at 30 seconds
   left, calls "ALCEN" at 5 seconds and "TIEMPO" when the time is up. Each warning is shown for
   CALL_SECONDS from its time (1:00 to 0:56, 0:30 to 0:26 on the clock), never later: a note
   that stayed would say "30 segundos" with 9 left. The clock's colour keeps the stage
   (under a minute, under 30 seconds). ALCEN and the closing TIEMPO are banners. */
(function () {
  "use strict";
  var CALL_SECONDS = 5;
  var WARNINGS = [[60, "warn1", "one_minute"], [30, "warn2", "thirty"]];

  /* Seconds left at ``now`` (ms, performance.now()) of a clock message received at ``at``. */
  function remaining(clock, at, now) {
    if (clock.state !== "running") { return clock.remaining; }
    return Math.max(0, clock.remaining - (now - at) / 1000);
  }

  /* What the clock shows with ``left`` seconds: ``cls`` (its colour), ``call`` (a key of the
     page's texts, or "" for none) and ``banner`` (the call is ALCEN or the closing TIEMPO). */
  function call(clock, left) {
    if (clock.state === "idle") { return { cls: "idle", call: "ready", banner: false }; }
    if (clock.state === "paused") { return { cls: "paused", call: "paused", banner: false }; }
    if (clock.state === "closed" || left <= 0) { return { cls: "over", call: "tiempo", banner: true }; }
    if (left <= 5) { return { cls: "alcen", call: "alcen", banner: true }; }
    for (var i = WARNINGS.length - 1; i >= 0; i--) {
      var at = WARNINGS[i][0];
      if (left <= at) { return { cls: WARNINGS[i][1], call: left > at - CALL_SECONDS ? WARNINGS[i][2] : "", banner: false }; }
    }
    var starting = Boolean(clock.total) && left > clock.total - CALL_SECONDS;
    return { cls: starting ? "start" : "", call: starting ? "tiempo" : "", banner: false };
  }

  /* ``m:ss``, seconds rounded up: the clock reads 0:30 until 30 seconds are left. */
  function mmss(seconds) {
    var s = Math.ceil(seconds);
    var m = Math.floor(s / 60);
    s = s % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  window.VeedorClock = { call: call, remaining: remaining, mmss: mmss, CALL_SECONDS: CALL_SECONDS };
})();
