/* The table's clock on a phone or tablet: two halves, one press (a tap on your half, or the
   space bar) ends your turn. The time is the server's: each message says the clock at the
   moment it was built and this page carries it forward (VeedorClocks.at), so a reload or a
   lost network shows the right time again. A press is shown at once and sent with how long
   ago it was made (delay_ms), retried until the server answers. Presses go with the device
   key of the table's clock (#clave=... once, or typed here), or with an arbiter's session,
   which alone may pause. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var json = function (id) { return JSON.parse($(id).textContent); };
  var T = json("clock-i18n");
  var config = json("clock-config");
  var C = window.VeedorClocks;
  var KEY = "veedor-reloj-clave";
  var SIDE = "veedor-reloj-lado-" + config.game;

  var message = json("initial");
  var shown = { clock: message.clock, t0: performance.now() };  // what the halves show
  var pending = null;  // a press not yet answered: {player, tapped}
  var notice = { text: "", until: 0 };
  var timeAsked = -1;  // the version at which the end on time was asked
  var lastWarning = 0;
  var audio = null;

  var token = keyFromAddress() || localStorage.getItem(KEY) || "";

  function keyFromAddress() {
    var match = /(?:^|[#&])clave=([^&]+)/.exec(window.location.hash);
    if (!match) { return ""; }
    var key = decodeURIComponent(match[1]);
    localStorage.setItem(KEY, key);
    history.replaceState(null, "", window.location.pathname + window.location.search);
    return key;
  }

  function canAct() { return Boolean(token) || config.arbiter; }

  function live() { return C.at(shown.clock, (performance.now() - shown.t0) / 1000); }

  function say(text, seconds) { notice = { text: text, until: performance.now() + 1000 * (seconds || 4) }; }

  /* -- talking to the server ----------------------------------------------------------- */

  /* ``arbiterOnly``: with the arbiter's session even where a device key is kept (a correction). */
  function post(body, arbiterOnly) {
    var headers = { "Content-Type": "application/json", "Accept": "application/json" };
    var url = config.arbiter_url;
    if (token && !arbiterOnly) { headers.Authorization = "Bearer " + token; url = config.device_url; }
    else if (config.csrf) { headers["X-CSRF-Token"] = config.csrf; }
    return fetch(url, { method: "POST", headers: headers, body: JSON.stringify(body), credentials: "same-origin", cache: "no-store" });
  }

  /* ``quiet``: a retried press refused because the first one arrived after all. */
  function answered(response, quiet) {
    return response.json().catch(function () { return {}; }).then(function (body) {
      if (response.status === 201) { apply(body); return true; }
      if (quiet && response.status === 409) { refresh(); return false; }
      if ((response.status === 401 || response.status === 403) && token) {
        token = ""; localStorage.removeItem(KEY); say(T.key_bad, 8);
      } else {
        say(body.error || String(response.status));
      }
      refresh();
      return false;
    });
  }

  function act(action) {
    if (!canAct()) { return; }
    post({ action: action }).then(answered).catch(function () { say(T.offline); });
  }

  function press(player) {
    if (!canAct() || pending) { return; }
    var now = live();
    if (C.engaged(now) !== player) { return; }
    wake();
    pending = { player: player, tapped: performance.now(), tries: 0 };
    shown = { clock: C.afterPress(now, player), t0: pending.tapped };
    render();
    sendPress();
  }

  function sendPress() {
    if (!pending) { return; }
    var delay = Math.round(performance.now() - pending.tapped);
    pending.tries += 1;
    var retried = pending.tries > 1;
    post({ action: "press", player: pending.player, delay_ms: delay })
      .then(function (response) { pending = null; return answered(response, retried); })
      .catch(function () { say(T.offline, 2); window.setTimeout(sendPress, 1000); });
  }

  function refresh() {
    fetch(config.state_url, { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; })
      .then(function (m) { if (m) { apply(m); } }).catch(function () {});
  }

  function apply(m) {
    if (m.version < message.version) { return; }  // an older state, overtaken
    message = m;
    if (!pending) { shown = { clock: m.clock, t0: performance.now() }; }
    render();
  }

  /* -- drawing ------------------------------------------------------------------------ */

  function render() {
    var c = live();
    var s = message.state;
    var none = c.state === "none";
    for (var i = 0; i < 2; i++) {
      var node = $("half-" + i);
      var h = none ? { time: "–", note: "", cls: "" } : C.half(c, i, T);
      var mine = C.engaged(c) === i && canAct();
      var cls = "half " + h.cls + (mine ? " pressable" : "");
      if (node.className !== cls) { node.className = cls; }
      C.setText(node.querySelector(".name"), s.players[i].name);
      C.setText(node.querySelector(".score"), String(s.players[i].score));
      C.setText(node.querySelector(".time"), h.time);
      C.setText(node.querySelector(".note"), h.note);
    }
    var status = none ? T.no_clock : c.state === "ready" ? T.ready : c.state === "ended" ? T.ended
      : (canAct() ? T.press_hint : T.no_device);
    C.setText($("status"), status);
    var gameTime = none ? "" : C.gameTime(c, T);
    if (!none && c.game_left !== null && c.game_left <= 0 && c.state !== "ended") { gameTime = T.waiting_end; }
    C.setText($("game-time"), gameTime);
    $("start").hidden = !(c.state === "ready" && canAct());
    $("pause").hidden = !(config.arbiter && (c.state === "running" || c.state === "counting"));
    $("resume").hidden = !(config.arbiter && c.state === "paused");
    $("key-form").hidden = canAct() || none;
    C.setText($("message"), performance.now() < notice.until ? notice.text : "");
    signal(c);
    endOnTime(c);
  }

  /* The temporizador's three signals (C.33): one, two, three short tones, then a long one. */
  function signal(c) {
    var level = c.state === "running" ? c.warning : 0;
    if (level > lastWarning && audio) { tones(level >= 4 ? 1 : level, level >= 4 ? 0.9 : 0.12); }
    lastWarning = level;
  }

  function tones(count, length) {
    for (var k = 0; k < count; k++) {
      var oscillator = audio.createOscillator();
      var gain = audio.createGain();
      oscillator.frequency.value = 880;
      oscillator.connect(gain);
      gain.connect(audio.destination);
      var start = audio.currentTime + k * (length + 0.12);
      oscillator.start(start);
      oscillator.stop(start + length);
    }
  }

  function wake() {  // sound may only start after a touch or a key
    if (audio || !(window.AudioContext || window.webkitAudioContext)) { return; }
    audio = new (window.AudioContext || window.webkitAudioContext)();
  }

  /* The game's time is over and the turns are even: the game ends on time (C.30, C.45.5). */
  function endOnTime(c) {
    if (!canAct() || pending || c.state === "ended" || c.game_left === null || c.game_left > 0) { return; }
    if (!message.clock.even || message.state.ending || timeAsked === message.version) { return; }
    timeAsked = message.version;
    post({ action: "time" }).then(function (r) { if (r.status === 201) { return r.json().then(apply); } return null; })
      .catch(function () { timeAsked = -1; });
  }

  /* -- the players' hands ------------------------------------------------------------- */

  [0, 1].forEach(function (i) {
    $("half-" + i).addEventListener("pointerdown", function (event) { event.preventDefault(); press(i); });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== " " || event.target.tagName === "INPUT") { return; }
    event.preventDefault();
    if (!event.repeat) { var c = live(); if (C.engaged(c) !== null) { press(C.engaged(c)); } }
  });
  $("start").addEventListener("click", function () { wake(); act("start"); });
  $("pause").addEventListener("click", function () { act("pause"); });
  $("resume").addEventListener("click", function () { act("resume"); });
  $("swap").addEventListener("click", function () {
    var swapped = !$("face").classList.contains("swapped");
    $("face").classList.toggle("swapped", swapped);
    localStorage.setItem(SIDE, swapped ? "1" : "");
  });
  $("key-form").addEventListener("submit", function (event) {
    event.preventDefault();
    token = $("key").value.trim();
    if (token) { localStorage.setItem(KEY, token); }
    render();
  });
  $("face").classList.toggle("swapped", localStorage.getItem(SIDE) === "1");
  if ($("correct-form")) { $("correct-form").addEventListener("submit", correct); }

  /* The arbiter sets a player's time left, with the reason (C.36): "m:ss", "-m:ss" when over. */
  function correct(event) {
    event.preventDefault();
    var match = /^\s*([-\u2212]?)(\d+):([0-5]\d)\s*$/.exec($("correct-time").value);
    if (!match) { say(T.bad_time, 6); return; }
    var seconds = (match[1] ? -1 : 1) * (60 * Number(match[2]) + Number(match[3]));
    post({ action: "set", player: Number($("correct-player").value), remaining: seconds, reason: $("correct-reason").value }, true)
      .then(function (response) {
        return answered(response).then(function (ok) { if (ok) { say(T.corrected); $("correct-reason").value = ""; } });
      })
      .catch(function () { say(T.offline); });
  }

  window.VeedorTableClock = { live: live, message: function () { return message; } };  // for the tests' measures
  render();
  setInterval(render, 100);
  window.VeedorLive.connect($("face").dataset.stream, apply, function (ok) { $("reconnecting").hidden = ok; });
})();
