// Rating-history charts drawn as SVG. Reads the JSON named by each .chart element's data-chart
// attribute: [{name, points: [[isoTime, elo, ...], ...]}, ...]. No libraries, works offline.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#2357c6", "#d9412b", "#2a9d5b", "#b8860b", "#7b3fc4", "#0e8a9c", "#c2417f", "#5b6b7b"];

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(node);
    return node;
  }

  function draw(box) {
    var source = document.getElementById(box.getAttribute("data-chart"));
    if (!source) return;
    var series = JSON.parse(source.textContent || "[]");
    var W = 900, H = 260, L = 48, R = 110, T = 12, B = 28;
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "class": "rating-chart" }, box);
    var all = [];
    series.forEach(function (s) { s.points.forEach(function (p) { all.push([Date.parse(p[0]), p[1]]); }); });
    if (!all.length) {
      el("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, svg).textContent = "No rated matches yet";
      return;
    }
    var t0 = Math.min.apply(null, all.map(function (p) { return p[0]; }));
    var t1 = Math.max.apply(null, all.map(function (p) { return p[0]; }));
    var y0 = Math.min.apply(null, all.map(function (p) { return p[1]; }));
    var y1 = Math.max.apply(null, all.map(function (p) { return p[1]; }));
    if (t1 === t0) t1 = t0 + 1;
    var pad = Math.max(10, (y1 - y0) * 0.08); y0 -= pad; y1 += pad;
    function x(t) { return L + (t - t0) / (t1 - t0) * (W - L - R); }
    function y(v) { return T + (1 - (v - y0) / (y1 - y0)) * (H - T - B); }
    for (var i = 0; i <= 4; i++) {
      var v = y0 + (y1 - y0) * i / 4;
      el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), "class": "grid" }, svg);
      el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, svg).textContent = Math.round(v);
    }
    el("line", { x1: L, x2: L, y1: T, y2: H - B, "class": "axis" }, svg);
    el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, "class": "axis" }, svg);
    // Dates for long ranges, date and time (UTC) for short ones.
    function stamp(t) { var iso = new Date(t).toISOString(); return t1 - t0 < 2 * 86400000 ? iso.slice(5, 16).replace("T", " ") : iso.slice(0, 10); }
    el("text", { x: L, y: H - 8 }, svg).textContent = stamp(t0);
    el("text", { x: W - R, y: H - 8, "text-anchor": "end" }, svg).textContent = stamp(t1);
    var wantPeak = box.getAttribute("data-peak") === "1";
    // End labels are placed top to bottom at least 12 units apart so they never overlap.
    var labelY = {}, lastY = -Infinity;
    series.map(function (s, n) { return { n: n, y: s.points.length ? y(s.points[s.points.length - 1][1]) : null }; })
      .filter(function (e) { return e.y !== null; })
      .sort(function (a, b) { return a.y - b.y; })
      .forEach(function (e) { lastY = Math.max(e.y, lastY + 12); labelY[e.n] = lastY; });
    series.forEach(function (s, n) {
      if (!s.points.length) return;
      var color = COLORS[n % COLORS.length];
      var pts = s.points.map(function (p) { return x(Date.parse(p[0])).toFixed(1) + "," + y(p[1]).toFixed(1); });
      if (pts.length === 1) pts.push(pts[0]);
      el("polyline", { points: pts.join(" "), fill: "none", stroke: color, "stroke-width": 1.8, "class": "series" }, svg);
      var last = s.points[s.points.length - 1];
      el("text", { x: W - R + 6, y: labelY[n] + 4, fill: color, style: "fill:" + color }, svg).textContent = s.name + " " + Math.round(last[1]);
      if (wantPeak) {
        var peak = s.points.reduce(function (a, b) { return b[1] > a[1] ? b : a; });
        el("circle", { cx: x(Date.parse(peak[0])), cy: y(peak[1]), r: 4, fill: "#d9412b", "class": "peak" }, svg);
        el("text", { x: x(Date.parse(peak[0])) + 6, y: y(peak[1]) - 6 }, svg).textContent = "peak " + Math.round(peak[1]);
      }
    });
  }

  document.querySelectorAll(".chart[data-chart]").forEach(draw);
})();
