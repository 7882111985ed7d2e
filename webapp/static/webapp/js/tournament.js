// Keeps a running tournament's bracket current: every few seconds the page is fetched again and
// #bracket-area (and the status, the lifecycle strip and the buttons when the state changed) replaced, so results appear as matches end without losing a
// half-filled form. It stops once the tournament is no longer running.
(function () {
  "use strict";
  var area = document.getElementById("bracket-area");
  if (!area || area.dataset.live !== "1") return;
  var PERIOD_MS = 4000;
  function tick() {
    fetch(window.location.pathname, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) { setTimeout(tick, PERIOD_MS); return; }
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("bracket-area");
        if (fresh) area.innerHTML = fresh.innerHTML;
        // When the state moves on (the last result finished it), the lifecycle strip and the buttons
        // follow; otherwise they are left alone, so a half-typed reason is not lost.
        var ids = ["match-counts"], before = document.getElementById("t-status"), after = doc.getElementById("t-status");
        if (before && after && before.textContent !== after.textContent) ids.push("lifecycle", "console-actions");
        ids.push("t-status");
        ids.forEach(function (id) {
          var mine = document.getElementById(id), theirs = doc.getElementById(id);
          if (mine && theirs) mine.innerHTML = theirs.innerHTML;
        });
        area.dataset.refreshed = String(Number(area.dataset.refreshed || 0) + 1);
        if (fresh && fresh.dataset.live === "1") setTimeout(tick, PERIOD_MS);
        else area.dataset.live = "0";
      })
      .catch(function () { setTimeout(tick, PERIOD_MS); });
  }
  setTimeout(tick, PERIOD_MS);
})();
