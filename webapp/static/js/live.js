/* Live updates by Server-Sent Events: reconnects by itself and says so. */
(function () {
  "use strict";
  var STALE_MS = 40000; // the server sends a ping at least every 15 s
  var GRACE_MS = 2500; // a reconnection quicker than this is not shown

  function connect(url, onMessage, onStatus) {
    var source = null;
    var lastSeen = Date.now();
    var retryTimer = null;
    var downTimer = null;

    function up() {
      lastSeen = Date.now();
      if (downTimer) { clearTimeout(downTimer); downTimer = null; }
      onStatus(true);
    }

    function down() {
      if (!downTimer) { downTimer = setTimeout(function () { onStatus(false); }, GRACE_MS); }
    }

    function open() {
      if (source) { source.close(); }
      source = new EventSource(url);
      source.addEventListener("open", up);
      source.addEventListener("state", function (event) {
        up();
        onMessage(JSON.parse(event.data));
      });
      source.addEventListener("ping", up);
      source.addEventListener("error", function () {
        down();
        if (source.readyState === EventSource.CLOSED) { retry(); }
      });
    }

    function retry() {
      if (retryTimer) { return; }
      retryTimer = setTimeout(function () { retryTimer = null; open(); }, 2000);
    }

    setInterval(function () {
      if (Date.now() - lastSeen > STALE_MS) { down(); lastSeen = Date.now(); open(); }
    }, 5000);
    open();
    return { close: function () { if (source) { source.close(); } } };
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) {
      return values[key] === undefined ? "" : String(values[key]);
    });
  }

  window.VeedorLive = { connect: connect, format: format };
})();
