// Live timeline: polls for rows newer than the page has and inserts them
// in time order. One request per interval (at least a second) while the
// page is visible and the box is ticked; no request while hidden.
(function () {
  "use strict";
  var list = document.getElementById("timeline");
  if (!list || !list.dataset.live) return;
  var box = document.getElementById("live");
  var status = document.getElementById("live-status");
  var gap = document.getElementById("gap");
  var m = list.dataset.m, t = list.dataset.t;
  var every = Math.max(1000, parseInt(list.dataset.interval, 10) || 2000);
  var timer = null, busy = false;

  function say(text) { if (status) status.textContent = text; }

  function insert(row) {
    var key = row.dataset.key;
    var items = list.querySelectorAll("li.item");
    for (var i = 0; i < items.length; i++) {
      // Keys sort as the timeline does; a date line above stays above.
      if (items[i].dataset.key < key) {
        list.insertBefore(row, items[i]);
        return;
      }
    }
    list.appendChild(row);
  }

  function poll() {
    if (busy || document.hidden || (box && !box.checked)) return;
    busy = true;
    var url = list.dataset.live + "&m=" + encodeURIComponent(m) + "&t=" + encodeURIComponent(t);
    fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        m = r.headers.get("X-Airi-Last-Message") || m;
        t = r.headers.get("X-Airi-Last-Tick") || t;
        if (gap && r.headers.get("X-Airi-Gap")) gap.hidden = false;
        return r.text();
      })
      .then(function (html) {
        var tpl = document.createElement("template");
        tpl.innerHTML = html;
        var rows = tpl.content.querySelectorAll("li.item");
        for (var i = rows.length - 1; i >= 0; i--) {
          rows[i].classList.add("fresh");
          insert(rows[i]);
        }
        var empty = document.querySelector("p.empty");
        if (rows.length && empty) empty.hidden = true;
        say("updated " + new Date().toLocaleTimeString());
      })
      .catch(function (e) { say("live · " + e.message + ", retrying"); })
      .then(function () { busy = false; });
  }

  function start() { if (!timer) timer = setInterval(poll, every); }
  function stop() { if (timer) { clearInterval(timer); timer = null; } }
  if (box) box.addEventListener("change", function () { if (box.checked) { start(); poll(); } else { stop(); say("paused"); } });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) poll(); });
  start();

})();
