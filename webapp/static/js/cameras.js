/* The camera panel: live state every 2 s; a new or resolved doubt offers a reload
   (or reloads by itself when the arbiter is not typing). */
(function () {
  "use strict";
  var panel = document.getElementById("camera-panel");
  if (!panel) { return; }
  var url = panel.dataset.state;

  function typing() {
    var el = document.activeElement;
    return el && (el.tagName === "INPUT" || el.tagName === "SELECT") && el.value;
  }

  function update(cameras) {
    var changed = false;
    cameras.forEach(function (cam) {
      var card = document.getElementById("camera-" + cam.name);
      if (!card) { changed = true; return; }
      var set = function (field, text) {
        var node = card.querySelector('[data-field="' + field + '"]');
        if (node && node.textContent !== String(text)) { node.textContent = String(text); }
      };
      set("label", cam.label);
      set("reason", cam.reason);
      set("last_frame", cam.last_frame || "–");
      set("fps", cam.fps);
      var badge = card.querySelector('[data-field="label"]');
      badge.className = "badge camera-label " + (cam.signal ? "ok" : "down");
      var img = card.querySelector('[data-field="preview"]');
      if (img && cam.preview && img.dataset.at !== cam.preview_at) {
        img.dataset.at = cam.preview_at;
        img.src = img.src.split("?")[0] + "?t=" + encodeURIComponent(cam.preview_at || "");
        img.hidden = false;
      }
      var ids = cam.doubts.map(function (d) { return d.id; }).join(",");
      if (ids !== card.dataset.doubts) { changed = true; }
      var cal = cam.calibration ? (cam.calibration.pending ? "pendiente" : "hecha") : "";
      if (cal !== card.dataset.calibration) { changed = true; }
    });
    if (changed) {
      if (typing()) { document.getElementById("camera-news").hidden = false; } else { window.location.reload(); }
    }
  }

  function poll() {
    fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) { update(data); } })
      .catch(function () {});
  }
  setInterval(poll, 2000);
})();
