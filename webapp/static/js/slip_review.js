/* The slips panel: keys A (accept), C (correct), 1-5 (correct with the likely play of that number), V (void),
   D (discard a page that is no slip, once confirmed), J/K (next/previous); reload on news. A decision that would replace a stored slip takes the reason typed in its
   item first. */
(function () {
  "use strict";
  var panel = document.getElementById("slip-panel");
  if (!panel) { return; }
  var items = Array.prototype.slice.call(document.querySelectorAll(".slip-item"));
  var selected = 0;

  function select(index) {
    if (!items.length) { return; }
    selected = (index + items.length) % items.length;
    items.forEach(function (item, i) { item.classList.toggle("selected", i === selected); });
    items[selected].scrollIntoView({ block: "nearest" });
  }

  function typing(target) {
    return target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName);
  }

  function press(selector) {
    var button = items[selected] && items[selected].querySelector(selector);
    if (button && !button.disabled) { button.click(); }
  }

  /* The n-th likely play of the selected slip sent as its correction: a click on it, then C's button. */
  function choose(n) {
    var button = items[selected] && items[selected].querySelectorAll(".use-play")[n - 1];
    if (!button) { return; }
    button.click();
    press(".act-correct");
  }

  /* A discard, by key or by mouse, names the page and asks first (the scan is kept either way). */
  Array.prototype.forEach.call(document.querySelectorAll(".act-dismiss"), function (button) {
    button.addEventListener("click", function (event) {
      if (!window.confirm(button.getAttribute("data-confirm"))) { event.preventDefault(); }
    });
  });

  items.forEach(function (item, i) {
    item.addEventListener("focusin", function () { select(i); });
    item.addEventListener("click", function () { select(i); });
    Array.prototype.forEach.call(item.querySelectorAll(".use-play"), function (button) {
      button.addEventListener("click", function () {
        var input = item.querySelector(".act-play");
        input.value = button.getAttribute("data-play");
        input.focus();
      });
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (typing(event.target)) {
      if (event.key === "Escape") { event.target.blur(); }
      if (event.key === "Enter" && event.target.classList.contains("act-play")) {
        event.preventDefault();
        event.target.form.querySelector(".act-correct").click();
      }
      /* The reason to replace a stored slip: Enter sends the decision asked for, else leaves the field for A, C, V. */
      if (event.key === "Enter" && event.target.classList.contains("act-replacing") &&
          !event.target.form.querySelector(".act-replace")) {
        event.preventDefault();
        event.target.blur();
      }
      return;
    }
    var key = event.key.toLowerCase();
    if (key === "a") { press(".act-accept"); }
    else if (key === "c") {
      var input = items[selected] && items[selected].querySelector(".act-play");
      if (input) { event.preventDefault(); input.focus(); }
    }
    else if (/^[1-9]$/.test(key)) { choose(Number(key)); }
    else if (key === "v") { press(".act-void"); }
    else if (key === "d") { press(".act-dismiss"); }
    else if (key === "j" || event.key === "ArrowDown") { event.preventDefault(); select(selected + 1); }
    else if (key === "k" || event.key === "ArrowUp") { event.preventDefault(); select(selected - 1); }
    else { return; }
  });

  /* News (slips read or flagged, decisions made elsewhere): reload unless the arbiter is typing. */
  var version = panel.getAttribute("data-version");
  var stale = document.getElementById("stale");
  function check() {
    fetch(panel.getAttribute("data-status"), { headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (!state || state.version === version) { return; }
        var busy = typing(document.activeElement) && document.activeElement.value;
        if (busy) { stale.hidden = false; } else { window.location.reload(); }
      })
      .catch(function () { /* offline for a moment: try again later */ });
  }
  setInterval(check, 3000);
  select(0);
})();
