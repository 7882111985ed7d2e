// The board drawing shared by the replay viewer (viewer.js) and a person's table (table.js).
// It draws one generic board view (referee/core/view.py, docs/engine.md "The board view") in SVG:
// cells with their outlines (data-cell), markers, pieces with owner, label and kind (data-piece).
// It knows no game: every shape, colour and label comes from the view.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var SEAT_COLORS = ["#d9412b", "#2e6fdb", "#2a9d5b", "#b8860b", "#7b3fc4", "#e67e22"];
  var CELL_FILL = "#efe9dc", CELL_STROKE = "#b9ad95", MARKER_FILL = "#555555";

  function el(name, attrs, parent, text) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function seatColor(seat) { return typeof seat === "number" && seat >= 0 ? SEAT_COLORS[seat % SEAT_COLORS.length] : "#666666"; }
  function fix(v) { return (Math.round(v * 1000) / 1000).toString(); }

  // The drawing's frame: every cell's corners, a margin, and room below for the pieces off the board.
  var geometry = null;
  function measure(cells) {
    if (geometry && geometry.cells === cells) return geometry;
    var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, sizes = [];
    cells.forEach(function (c) {
      var cx = [], cy = [];
      c.points.forEach(function (p) { cx.push(p[0]); cy.push(p[1]); });
      var x0 = Math.min.apply(null, cx), x1 = Math.max.apply(null, cx), y0 = Math.min.apply(null, cy), y1 = Math.max.apply(null, cy);
      minX = Math.min(minX, x0); maxX = Math.max(maxX, x1); minY = Math.min(minY, y0); maxY = Math.max(maxY, y1);
      sizes.push(Math.min(x1 - x0, y1 - y0));
    });
    sizes.sort(function (a, b) { return a - b; });
    var unit = sizes.length ? sizes[Math.floor(sizes.length / 2)] || 1 : 1, pad = unit * 0.3;
    geometry = { cells: cells, unit: unit, minX: minX - pad, minY: minY - pad, w: maxX - minX + 2 * pad, h: maxY - minY + 2 * pad, foot: unit * 1.4 };
    return geometry;
  }
  // A piece's or marker's outline around (x, y) with half-size r.
  function shapeAt(kind, x, y, r, attrs, parent) {
    if (kind === "square" || kind === "rounded") {
      attrs.x = fix(x - r); attrs.y = fix(y - r); attrs.width = fix(2 * r); attrs.height = fix(2 * r);
      if (kind === "rounded") attrs.rx = fix(r * 0.5);
      return el("rect", attrs, parent);
    }
    if (kind === "triangle" || kind === "diamond") {
      var pts = kind === "triangle" ? [[x, y - r], [x + r, y + r * 0.8], [x - r, y + r * 0.8]] : [[x, y - r], [x + r, y], [x, y + r], [x - r, y]];
      attrs.points = pts.map(function (p) { return fix(p[0]) + "," + fix(p[1]); }).join(" ");
      return el("polygon", attrs, parent);
    }
    attrs.cx = fix(x); attrs.cy = fix(y); attrs.r = fix(r);
    if (kind === "ring") { attrs["stroke-width"] = fix(r * 0.3); attrs.stroke = attrs.fill; attrs.fill = "none"; }
    return el("circle", attrs, parent);
  }
  function classes(base, kind, extra) { return base + " " + base + "-" + String(kind || "").replace(/[^A-Za-z0-9-]/g, "-") + (extra || ""); }
  function tip(node, text) { el("title", {}, node, text); }
  function defaultSeatName(seat) { return "seat " + seat; }

  // Draws `view` into `svg` (emptied first). `cells`: the view's own cells or the ones sent once.
  // opts.cells / opts.pieces: {id: "class words"} of cells and pieces to highlight (the words are
  // added as classes: "target", "act", "dest", "selected"); opts.seatName(seat) names a seat;
  // opts.offCaption (default true) writes the pieces off the board below it.
  // Returns the pieces off the board.
  function render(svg, view, cells, opts) {
    opts = opts || {};
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var seatName = opts.seatName || defaultSeatName;
    var hitCell = opts.cells || {}, hitPiece = opts.pieces || {};
    view = view || {};
    cells = cells || [];
    var off = [];
    if (!cells.length) {
      svg.setAttribute("viewBox", "0 0 400 60");
      el("text", { x: 10, y: 35, "font-size": 14 }, svg, "This game draws no board; see the panel beside it.");
      (view.pieces || []).forEach(function (p) { off.push(p); });
      return off;
    }
    var g = measure(cells), u = g.unit, at = {};
    svg.setAttribute("viewBox", [g.minX, g.minY, g.w, g.h + (opts.offCaption === false ? 0 : g.foot)].map(fix).join(" "));
    cells.forEach(function (c) {
      at[c.id] = c.center;
      var hit = hitCell[c.id];
      var poly = el("polygon", {
        points: c.points.map(function (p) { return fix(p[0]) + "," + fix(p[1]); }).join(" "),
        fill: c.fill || CELL_FILL, stroke: hit ? "#111111" : CELL_STROKE, "stroke-width": fix(u * (hit ? 0.08 : 0.03)),
        "class": classes("cell", c.shape, (c.kind ? " " + c.kind : "") + (hit ? " " + hit : "")), "data-cell": c.id,
      }, svg);
      tip(poly, c.id + (c.kind ? " (" + c.kind.replace(/-/g, " ") + ")" : ""));
      if (c.label) el("text", { x: fix(c.center[0]), y: fix(c.center[1] - u * 0.3), "text-anchor": "middle", "font-size": fix(u * 0.22), fill: "#776b55", "class": "cell-label", "pointer-events": "none" }, svg, c.label);
    });
    (view.markers || []).forEach(function (m) {
      var o = at[m.cell]; if (!o) return;
      var fill = m.fill || MARKER_FILL;
      var node = shapeAt(m.shape, o[0], o[1], u * 0.3, m.hollow ? { fill: "none", stroke: fill, "stroke-width": fix(u * 0.04), "stroke-dasharray": fix(u * 0.08) + " " + fix(u * 0.08) } :
        { fill: fill, opacity: 0.85, stroke: "#222222", "stroke-width": fix(u * 0.02) }, svg);
      node.setAttribute("class", classes("marker", m.kind));
      node.setAttribute("data-cell", m.cell);
      tip(node, m.label);
    });
    // Pieces by cell, larger first, so a small piece sharing a cell (a carried token) stays visible.
    (view.pieces || []).slice().sort(function (a, b) { return b.size - a.size; }).forEach(function (p) {
      var o = p.cell ? at[p.cell] : null;
      if (!o) { off.push(p); return; }
      var r = u * p.size / 2, own = typeof p.owner === "number";
      var fill = p.fill || seatColor(p.owner), hit = hitPiece[p.id];
      var ring = p.fill && own ? seatColor(p.owner) : "#111111";
      var node = shapeAt(p.shape, o[0], o[1], r, { fill: fill, stroke: hit ? "#f5c518" : ring, "stroke-width": fix(u * (hit || (p.fill && own) ? 0.08 : 0.03)) }, svg);
      node.setAttribute("class", classes("piece", p.kind, (p.flags || []).map(function (f) { return " is-" + f.replace(/[^A-Za-z0-9]+/g, "-"); }).join("") + (hit ? " " + hit : "")));
      node.setAttribute("data-piece", p.id);
      if (p.cell) node.setAttribute("data-on", p.cell);
      if (p.flags && p.flags.indexOf("stone") >= 0) node.setAttribute("opacity", "0.5");
      tip(node, p.name + (own ? " (" + seatName(p.owner) + ")" : "") + (p.flags && p.flags.length ? ": " + p.flags.join(", ") : ""));
      if (p.label) el("text", { x: fix(o[0]), y: fix(o[1] + r * 0.3), "text-anchor": "middle", "font-size": fix(Math.max(r * 0.8, u * 0.2)), fill: "#ffffff", "font-weight": 700, "class": "piece-label", "pointer-events": "none" }, svg, p.label);
      if (p.badge) el("text", { x: fix(o[0]), y: fix(o[1] + r + u * 0.28), "text-anchor": "middle", "font-size": fix(u * 0.26), "class": "piece-badge", "pointer-events": "none" }, svg, p.badge);
    });
    if (off.length && opts.offCaption !== false) {
      var names = off.map(function (p) { return p.name + (typeof p.owner === "number" ? " (" + seatName(p.owner) + ")" : ""); });
      el("text", { x: fix(g.minX + u * 0.2), y: fix(g.minY + g.h + g.foot * 0.55), "font-size": fix(u * 0.32), "class": "offboard-caption" }, svg, "Off the board: " + names.join(", "));
    }
    return off;
  }

  window.BrawlBoard = { NS: NS, el: el, seatColor: seatColor, render: render, SEAT_COLORS: SEAT_COLORS };
})();
