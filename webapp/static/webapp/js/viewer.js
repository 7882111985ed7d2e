// The replay viewer: fetches spectator frames (/api/v1/matches/<id>/frames/, or /live/ while the
// match runs), draws the board in SVG and steps through them. Renderers read the spectator Observation of each game's .proto and
// are tolerant: unknown fields are ignored, positions are found under common names, and any game
// without a dedicated renderer is drawn by the generic one (pieces on a grid plus the raw state).
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var SEAT_COLORS = ["#d9412b", "#2e6fdb", "#2a9d5b", "#b8860b"];
  var root = document.getElementById("viewer");
  if (!root) return;
  var board = document.getElementById("board");
  var log = document.getElementById("event-log");
  var pub = document.getElementById("public-state");
  var seek = document.getElementById("seek");
  var label = document.getElementById("frame-label");
  var playBtn = document.getElementById("play-btn");
  var speed = document.getElementById("speed");
  var message = document.getElementById("viewer-message");
  var data = null, current = 0, timer = null;

  function el(name, attrs, parent, text) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  // --- Tolerant readers -------------------------------------------------------------------
  function num(v) { return typeof v === "number" ? v : (typeof v === "string" && v !== "" && !isNaN(+v) ? +v : null); }
  // Returns {a, b} (q/r, x/y, col/row) for an object or a coordinate string, or null.
  function pos(o) {
    if (o === null || o === undefined) return null;
    if (typeof o === "string") {
      var h = o.match(/^q(-?\d+)r(-?\d+)$/);
      if (h) return { a: +h[1], b: +h[2], hex: true };
      var m = o.match(/^r?(-?\d+)[c,:\s](-?\d+)$/) || o.match(/^\(?(-?\d+)\s*,\s*(-?\d+)\)?$/);
      if (m) return { a: +m[2], b: +m[1], rc: /^r/.test(o) };
      return null;
    }
    if (Array.isArray(o) && o.length === 2 && num(o[0]) !== null && num(o[1]) !== null) return { a: +o[0], b: +o[1] };
    if (typeof o !== "object") return null;
    if (num(o.q) !== null && num(o.r) !== null) return { a: +o.q, b: +o.r, hex: true };
    if (num(o.x) !== null && num(o.y) !== null) return { a: +o.x, b: +o.y };
    if (num(o.col) !== null && num(o.row) !== null) return { a: +o.col, b: +o.row };
    if (num(o.c) !== null && num(o.r) !== null) return { a: +o.c, b: +o.r };
    var keys = ["pos", "position", "hex", "cell", "coord", "at", "square", "location"];
    for (var i = 0; i < keys.length; i++) { if (o[keys[i]] !== undefined) { var p = pos(o[keys[i]]); if (p) return p; } }
    return null;
  }
  function seatOf(o) {
    var keys = ["seat", "owner", "player", "controller", "team"];
    for (var i = 0; i < keys.length; i++) { if (num(o[keys[i]]) !== null) return +o[keys[i]]; }
    return null;
  }
  function nameOf(o) { return o.name || o.kind || o.type || o.id || ""; }
  // Collects every object with a position, tagged with the key of the list it was found in.
  function pieces(obs, path, out) {
    out = out || [];
    if (Array.isArray(obs)) {
      obs.forEach(function (item) {
        if (item && typeof item === "object" && !Array.isArray(item)) {
          var p = pos(item);
          if (p) out.push({ key: path, obj: item, p: p });
          else pieces(item, path, out);
        }
      });
    } else if (obs && typeof obs === "object") {
      Object.keys(obs).forEach(function (k) { pieces(obs[k], k, out); });
    }
    return out;
  }
  function classify(key, obj) {
    var s = (String(key) + " " + String(obj.kind || obj.type || "")).toLowerCase();
    var kinds = ["statue", "trap", "champion", "creature", "orb", "portal", "hex", "cell", "tile", "wall", "obstacle", "unit"];
    for (var i = 0; i < kinds.length; i++) { if (s.indexOf(kinds[i]) >= 0) return kinds[i]; }
    return "piece";
  }

  // --- Renderers --------------------------------------------------------------------------
  function hexArena(obs, svg) {
    var ps = pieces(obs, "root");
    var size = 22, pts = [];
    function center(p) { return { x: size * Math.sqrt(3) * (p.a + p.b / 2), y: size * 1.5 * p.b }; }
    var cells = ps.filter(function (x) { return /hex|cell|tile/.test(classify(x.key, x.obj)); });
    var radius = num(obs.radius) || num((obs.arena || obs.board || {}).radius) || 4;
    if (!cells.length) {
      for (var q = -radius; q <= radius; q++) for (var r = Math.max(-radius, -q - radius); r <= Math.min(radius, -q + radius); r++) cells.push({ p: { a: q, b: r }, obj: {} });
    }
    var all = cells.concat(ps);
    var xs = all.map(function (c) { return center(c.p).x; }), ys = all.map(function (c) { return center(c.p).y; });
    var minX = Math.min.apply(null, xs) - size * 1.2, minY = Math.min.apply(null, ys) - size * 1.2;
    var w = Math.max.apply(null, xs) - minX + size * 1.2, h = Math.max.apply(null, ys) - minY + size * 1.2;
    svg.setAttribute("viewBox", [minX, minY, w, h].join(" "));
    cells.forEach(function (c) {
      var o = center(c.p), corners = [];
      for (var i = 0; i < 6; i++) { var ang = Math.PI / 180 * (60 * i - 30); corners.push((o.x + size * Math.cos(ang)).toFixed(1) + "," + (o.y + size * Math.sin(ang)).toFixed(1)); }
      el("polygon", { points: corners.join(" "), fill: c.obj.terrain === "blocked" ? "#c9c2b6" : "#efe9dc", stroke: "#b9ad95", "class": "hex" }, svg);
    });
    ps.forEach(function (x) {
      var kind = classify(x.key, x.obj);
      if (/hex|cell|tile/.test(kind)) return;
      var o = center(x.p), seat = seatOf(x.obj), color = seat !== null ? SEAT_COLORS[seat % 4] : "#666";
      if (kind === "statue") el("rect", { x: o.x - 8, y: o.y - 8, width: 16, height: 16, fill: color, stroke: "#222", "class": "statue" }, svg);
      else if (kind === "trap") el("polygon", { points: [o.x, o.y - 9, o.x + 9, o.y + 7, o.x - 9, o.y + 7].join(" "), fill: "#222", opacity: 0.75, "class": "trap" }, svg);
      else {
        el("circle", { cx: o.x, cy: o.y, r: 12, fill: color, stroke: "#111", "class": kind }, svg);
        el("text", { x: o.x, y: o.y + 4, "text-anchor": "middle", "font-size": 9, fill: "#fff" }, svg, String(nameOf(x.obj)).slice(0, 3));
        if (num(x.obj.hp) !== null || num(x.obj.health) !== null) el("text", { x: o.x, y: o.y + 22, "text-anchor": "middle", "font-size": 8 }, svg, "♥" + (x.obj.hp !== undefined ? x.obj.hp : x.obj.health));
      }
    });
  }

  function gridArena(obs, svg, n) {
    var ps = pieces(obs, "root"), cell = 24;
    var size = n || num(obs.size) || num((obs.arena || obs.board || {}).size) || 20;
    ps.forEach(function (x) { size = Math.max(size, x.p.a + 1, x.p.b + 1); });
    svg.setAttribute("viewBox", [0, 0, size * cell, size * cell].join(" "));
    for (var i = 0; i < size; i++) for (var j = 0; j < size; j++) {
      el("rect", { x: i * cell, y: j * cell, width: cell, height: cell, fill: (i + j) % 2 ? "#f1efe7" : "#e9e6da", "class": "cell" }, svg);
    }
    ps.forEach(function (x) {
      var kind = classify(x.key, x.obj), cx = x.p.a * cell + cell / 2, cy = x.p.b * cell + cell / 2;
      var seat = seatOf(x.obj), color = seat !== null ? SEAT_COLORS[seat % 4] : "#555";
      if (kind === "orb") el("circle", { cx: cx, cy: cy, r: 6, fill: "#f5c518", stroke: "#8a6d00", "class": "orb" }, svg);
      else if (kind === "portal") el("circle", { cx: cx, cy: cy, r: 10, fill: "none", stroke: "#7b3fc4", "stroke-width": 3, "class": "portal" }, svg);
      else if (kind === "wall" || kind === "obstacle") el("rect", { x: cx - 11, y: cy - 11, width: 22, height: 22, fill: "#777", "class": kind }, svg);
      else {
        el("rect", { x: cx - 9, y: cy - 9, width: 18, height: 18, rx: 4, fill: color, stroke: "#111", "class": kind }, svg);
        el("text", { x: cx, y: cy + 3, "text-anchor": "middle", "font-size": 8, fill: "#fff" }, svg, String(nameOf(x.obj)).slice(0, 2));
      }
    });
  }

  // A hex board (layout kind "hex", as Super Fantasy Brawl's): the arena from the layout (statues, zones, deployment rows),
  // trap hexes and champions from the observation. Hexes are axial (q, r), "q-1r4" in observations.
  var ZONE_FILL = { red: "#f6d5cf", yellow: "#f7ecc2", blue: "#d3e1f7" };
  var STATUE_FILL = { red: "#c0392b", yellow: "#d4a017", blue: "#2e6fdb" };
  function hexBoard(obs, svg, layout) {
    layout = layout || {};
    var R = num(layout.radius) || 4, size = 26;
    function center(q, r) { return { x: size * Math.sqrt(3) * (q + r / 2), y: size * 1.5 * r }; }
    function hexPoly(q, r, attrs) {
      var o = center(q, r), corners = [];
      for (var i = 0; i < 6; i++) { var ang = Math.PI / 180 * (60 * i - 30); corners.push((o.x + size * 0.97 * Math.cos(ang)).toFixed(1) + "," + (o.y + size * 0.97 * Math.sin(ang)).toFixed(1)); }
      attrs.points = corners.join(" ");
      return el("polygon", attrs, svg);
    }
    var ext = size * Math.sqrt(3) * (R + 0.6);
    // The bottom margin leaves room below the lowest HP labels (centre + 26) for the "On gate:" caption.
    svg.setAttribute("viewBox", [-ext, -size * 1.5 * R - size * 1.3, 2 * ext, size * 3 * R + size * 3.6].join(" "));
    var zoneOf = {};
    Object.keys(layout.zones || {}).forEach(function (c) { (layout.zones[c] || []).forEach(function (h) { zoneOf[h[0] + "," + h[1]] = c; }); });
    var deployOf = {};
    (layout.deployment || []).forEach(function (side, i) { side.forEach(function (h) { deployOf[h[0] + "," + h[1]] = i; }); });
    for (var q = -R; q <= R; q++) for (var r = Math.max(-R, -q - R); r <= Math.min(R, -q + R); r++) {
      var key = q + "," + r, fill = ZONE_FILL[zoneOf[key]] || (deployOf[key] !== undefined ? "#e4efe4" : "#efe9dc");
      hexPoly(q, r, { fill: fill, stroke: "#b9ad95", "class": "hex", "data-hex": "q" + q + "r" + r });
    }
    (obs.trap_hexes || []).forEach(function (t) {
      var p = pos(t.hex); if (!p) return;
      var o = center(p.a, p.b);
      if (t.has_trap) el("polygon", { points: [o.x, o.y - 10, o.x + 10, o.y + 8, o.x - 10, o.y + 8].join(" "), fill: "#222", opacity: 0.8, "class": "trap" }, svg);
      else el("polygon", { points: [o.x, o.y - 10, o.x + 10, o.y + 8, o.x - 10, o.y + 8].join(" "), fill: "none", stroke: "#777", "stroke-dasharray": "2 2", "class": "trap-empty" }, svg);
    });
    (layout.statues || []).forEach(function (st) {
      var p = pos(st.hex); if (!p) return;
      var o = center(p.a, p.b);
      el("rect", { x: o.x - 11, y: o.y - 11, width: 22, height: 22, rx: 3, fill: STATUE_FILL[st.colour] || "#888", stroke: "#222", "class": "statue" }, svg);
    });
    (obs.champions || []).forEach(function (c) {
      var p = pos(c.hex);
      if (!p || c.on_gate) return;
      var o = center(p.a, p.b), seat = num(c.seat) || 0;
      el("circle", { cx: o.x, cy: o.y, r: 15, fill: SEAT_COLORS[seat % 4], stroke: c.levelled ? "#f5c518" : "#111", "stroke-width": c.levelled ? 3 : 1.5, "class": "champion", "data-id": c.id }, svg);
      el("text", { x: o.x, y: o.y + 4, "text-anchor": "middle", "font-size": 10, fill: "#fff", "font-weight": 700 }, svg, String(c.id || "").slice(0, 3));
      el("text", { x: o.x, y: o.y + 26, "text-anchor": "middle", "font-size": 9 }, svg, (num(c.hp) !== null ? (c.hp - (c.damage || 0)) + "/" + c.hp : ""));
    });
    var gate = (obs.champions || []).filter(function (c) { return c.on_gate; }).map(function (c) { return title(c.id) + " (" + seatName(num(c.seat) || 0) + ")"; });
    if (gate.length) el("text", { x: -ext + 4, y: size * 1.5 * R + size * 2.1, "font-size": 10, "class": "gate-caption" }, svg, "On gate: " + gate.join(", "));
  }

  // A square board (layout kind "square", as ScrumBrawl's: 20x20, row and col from 1): creatures, orbs and portals.
  var CREATURE_FILL = { red: "#d9412b", blue: "#2e6fdb", green: "#2a9d5b", orange: "#e67e22", purple: "#7b3fc4" };
  function squareBoard(obs, svg, layout) {
    var n = (layout && num(layout.size)) || 20, o0 = (layout && num(layout.origin)) || 1, cell = 24;
    svg.setAttribute("viewBox", [0, 0, n * cell, n * cell].join(" "));
    for (var i = 0; i < n; i++) for (var j = 0; j < n; j++) {
      el("rect", { x: j * cell, y: i * cell, width: cell, height: cell, fill: (i + j) % 2 ? "#f1efe7" : "#e9e6da", "class": "cell" }, svg);
    }
    function at(o) { return { x: (num(o.col) - o0) * cell + cell / 2, y: (num(o.row) - o0) * cell + cell / 2 }; }
    (obs.portals || []).forEach(function (p) {
      if (num(p.row) === null) return;
      var c = at(p), owner = num(p.owner);
      el("circle", { cx: c.x, cy: c.y, r: 10, fill: "none", stroke: owner !== null && owner >= 0 ? SEAT_COLORS[owner % 4] : "#7b3fc4", "stroke-width": 3, "class": "portal" }, svg);
    });
    (obs.creatures || []).forEach(function (cr) {
      if (num(cr.row) === null) return;
      var c = at(cr), owner = num(cr.owner) || 0;
      el("rect", { x: c.x - 10, y: c.y - 10, width: 20, height: 20, rx: cr.flying ? 10 : 3, fill: CREATURE_FILL[cr.color] || "#555",
        stroke: SEAT_COLORS[owner % 4], "stroke-width": 3, opacity: cr.stone ? 0.5 : 1, "class": "creature", "data-id": cr.id }, svg);
      el("text", { x: c.x, y: c.y + 3, "text-anchor": "middle", "font-size": 8, fill: "#fff", "font-weight": 700 }, svg, String(cr.name || cr.id || "").slice(0, 3));
    });
    (obs.orbs || []).forEach(function (orb) {
      if (num(orb.row) === null) return;
      var c = at(orb);
      el("circle", { cx: c.x + (orb.carrier ? 7 : 0), cy: c.y - (orb.carrier ? 7 : 0), r: 5, fill: "#f5c518", stroke: "#8a6d00", "class": "orb" }, svg);
    });
  }

  // Renderers by the board layout's kind (GameInfo.board, sent as data.board): the viewer names no
  // game, so a new game with a hex or square board is drawn without changes here.
  var RENDERERS = { hex: hexBoard, square: squareBoard };
  function rendererFor(layout) {
    var r = layout && RENDERERS[layout.kind];
    return r ? function (obs, svg) { r(obs, svg, layout); } : generic;
  }
  function generic(obs, svg) {
    var ps = pieces(obs, "root");
    if (ps.some(function (x) { return x.p.hex; })) return hexArena(obs, svg);
    if (ps.length) return gridArena(obs, svg, 0);
    svg.setAttribute("viewBox", "0 0 400 60");
    el("text", { x: 10, y: 35, "font-size": 14 }, svg, "No board in this observation; see the state panel.");
  }

  // Public cards, scores and other public state, as a table of scalars plus the raw JSON.
  function publicState(frame) {
    var obs = frame.observation || {};
    var html = "";
    var scores = obs.scores || obs.score || obs.vp || obs.victory_points;
    if (!scores && Array.isArray(obs.players) && obs.players.length && obs.players[0].blue_chips !== undefined) {
      scores = obs.players.map(function (p) { return (p.blue_chips || 0) + " blue / " + (p.red_chips || 0) + " red chips"; });
    }
    if (Array.isArray(scores)) {
      html += "<table class='compact'><tr><th>Seat</th><th class='num'>Score</th></tr>" + scores.map(function (s, i) {
        return "<tr><td><span class='swatch s" + i + "'></span>" + esc((data.seats || [])[i] || i) + "</td><td class='num'>" + esc(typeof s === "object" ? JSON.stringify(s) : s) + "</td></tr>";
      }).join("") + "</table>";
    }
    var players = obs.players;
    if (Array.isArray(players) && players.length) {
      var cols = Object.keys(players[0]).filter(function (k) { return k !== "seat" && k !== "team" && typeof players[0][k] !== "object"; });
      html += "<table class='compact players'><tr><th>Seat</th>" + cols.map(function (k) { return "<th>" + esc(k.replace(/_/g, " ")) + "</th>"; }).join("") + "</tr>" +
        players.map(function (p, i) {
          return "<tr><td><span class='swatch s" + i + "'></span>" + esc((data.seats || [])[i] || i) + "</td>" + cols.map(function (k) { return "<td>" + esc(p[k]) + "</td>"; }).join("") + "</tr>";
        }).join("") + "</table>";
      players.forEach(function (p, i) {
        if (Array.isArray(p.discard) && p.discard.length) html += "<p><small>Seat " + i + " discard: " + esc(p.discard.join(", ")) + "</small></p>";
      });
    }
    if (Array.isArray(obs.track) && obs.track.length) {
      html += "<p><small>Challenge track: " + obs.track.map(function (t) { return esc(t.challenge) + " (" + esc(t.value) + ")"; }).join(" · ") + "</small></p>";
    }
    if (Array.isArray(obs.discard) && obs.discard.length) {
      html += "<p><small>Discard: " + obs.discard.slice(-8).map(function (c) { return esc(c.name || c.card || c); }).join(", ") + "</small></p>";
    }
    if (obs.round !== undefined) html += "<p>Round " + esc(obs.round) + (obs.phase ? " · " + esc(obs.phase) : "") + "</p>";
    if (frame.to_move) html += "<p>To move: " + esc(seatName(frame.to_move.seat)) + " (" + esc(String(frame.to_move.kind).replace(/_/g, " ")) + ")</p>";
    html += "<details><summary>Public state</summary><pre>" + esc(JSON.stringify(obs, null, 1)) + "</pre></details>";
    pub.innerHTML = html;
  }
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }

  // --- The game record: events in plain words ------------------------------------------------
  // Piece names: ScrumBrawl creatures are ids ("k23") whose names appear in the observations and in
  // events that place them; Super Fantasy Brawl champions are named by their id ("nyx" -> "Nyx").
  var names = {};
  function title(s) { s = String(s || ""); return s ? s.charAt(0).toUpperCase() + s.slice(1) : ""; }
  function seatName(seat) {
    var n = (data && data.seats || [])[seat];
    return n !== undefined && n !== null && n !== "" ? n + " (seat " + seat + ")" : "seat " + seat;
  }
  function learnNames(obs) {
    (obs.creatures || []).forEach(function (c) { if (c.id && c.name) names[c.id] = c.name; });
  }
  function piece(id) {
    if (id === undefined || id === null || id === "") return "";
    if (names[id]) return names[id];
    if (/^[a-z]+$/.test(String(id))) return title(id);  // a piece named by its id ("nyx"), not numbered ("k23")
    return String(id);
  }
  function hexWords(h) { var p = pos(h); return p ? "hex (" + p.a + ", " + p.b + ")" : String(h); }
  function square(d, pre) { pre = pre || ""; return "(" + d[pre + "row"] + ", " + d[pre + "col"] + ")"; }
  function list(v) { return Array.isArray(v) ? v.join(", ") : String(v); }
  function ranksWords(ranks) {
    if (!Array.isArray(ranks)) return "";
    return ranks.map(function (r, seat) { return seatName(seat) + " " + ordinal(r); }).join(", ");
  }
  function ordinal(n) { return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : n + "th"; }
  // One sentence per event kind of both games; any other kind is spelled out from its data.
  var SAY = {
    // Super Fantasy Brawl
    attack_declined: function (d) { return piece(d.champion) + " does not attack with " + d.card; },
    attack_roll: function (d) { return piece(d.champion) + " attacks: strength " + d.strength + " against defence " + d.defence + ", " + d.amount + " damage"; },
    card_played: function (d) { return seatName(d.seat) + " plays " + d.card + " on " + piece(d.champion) + (d.core ? " (" + d.core + " core)" : ""); },
    challenge_scored: function (d) { return seatName(d.seat) + " scores challenge " + d.challenge + " for " + d.amount + " VP (VP now " + list(d.vps) + ")"; },
    challenges_reshuffled: function (d) { return "The challenge deck is reshuffled (" + d.count + " cards)"; },
    damage: function (d) { return piece(d.champion) + " takes " + d.amount + " damage" + (d.source ? " from " + piece(d.source) : "") + (d.hp_left !== undefined ? ", " + d.hp_left + " HP left" : ""); },
    deck_reshuffled: function (d) { return seatName(d.seat) + " reshuffles the deck (" + d.count + " cards)"; },
    deployed: function (d) { return seatName(d.seat) + " deploys " + piece(d.champion) + " on " + hexWords(d.hex); },
    first_player: function (d) { return seatName(d.seat) + " plays first"; },
    hand_discarded: function (d) { return seatName(d.seat) + " discards " + list(d.cards); },
    heal: function (d) { return piece(d.champion) + " heals " + d.amount + (d.source ? " (" + piece(d.source) + ")" : ""); },
    match_over: function (d) { return "Game over: " + ranksWords(d.ranks) + (d.reason ? " — " + d.reason : ""); },
    moved: function (d) { return piece(d.champion) + " " + (d.mode === "move" || !d.mode ? "moves" : d.mode.replace(/_/g, " ") + "s") + " from " + hexWords(d.from_hex) + " to " + hexWords((d.path || []).slice(-1)[0] || d.from_hex); },
    mulligan: function (d) { return seatName(d.seat) + " mulligans " + d.count + " card" + (d.count === 1 ? "" : "s"); },
    no_attack: function (d) { return piece(d.champion) + " has no one to attack with " + d.card; },
    no_target: function (d) { return piece(d.champion) + " has no target for " + d.card; },
    picked: function (d) { return seatName(d.seat) + " picks " + piece(d.champion); },
    planned: function (d) { return seatName(d.seat) + " plans " + d.count + " card" + (d.count === 1 ? "" : "s"); },
    post_attack_declined: function (d) { return piece(d.champion) + " declines the " + d.keyword + " of " + d.card; },
    reaction: function (d) { return seatName(d.seat) + " reacts with " + d.card + " on " + piece(d.champion) + " (defence " + d.defence + ")"; },
    rooted: function (d) { return piece(d.champion) + " is rooted" + (d.source ? " by " + piece(d.source) : ""); },
    side_chosen: function (d) { return seatName(d.seat) + " chooses side " + d.value; },
    skill: function (d) { return piece(d.champion) + " uses " + d.card + (d.target ? " on " + piece(d.target) : ""); },
    standard_action: function (d) { return seatName(d.seat) + " takes the " + d.action + " action with " + piece(d.champion); },
    stunned: function (d) { return piece(d.champion) + " is stunned" + (d.card ? " by " + d.card : ""); },
    track_advanced: function (d) { return "The challenge track advances: " + (d.challenges || []).filter(Boolean).join(", "); },
    trap_placed: function (d) { return seatName(d.seat) + " places a trap on " + hexWords(d.hex); },
    trap_sprung: function (d) { return piece(d.champion) + " springs a " + d.trap_kind + " trap on " + hexWords(d.hex) + (d.amount ? " (" + d.amount + ")" : ""); },
    // ScrumBrawl
    ability: function (d) { return piece(d.creature) + " uses " + d.name; },
    alter: function (d) { return seatName(d.seat) + " plays " + d.name + (d.purpose ? " to " + d.purpose : "") + " (dice " + list(d.dice) + ")"; },
    attack: function (d) { return piece(d.creature) + " attacks " + piece(d.target) + (d.detail ? " (" + d.detail + ")" : ""); },
    catch_roll: function (d) { return piece(d.creature) + " tries to catch from " + piece(d.target) + ": rolls " + list(d.dice) + ", total " + d.total + " — " + d.result; },
    chip: function (d) { return seatName(d.seat) + " gains a " + d.detail + " chip"; },
    creature_placed: function (d) { return seatName(d.seat) + " places " + (d.name || piece(d.creature)) + " on " + square(d); },
    crushed: function (d) { return (d.name || piece(d.creature)) + " is crushed on " + square(d); },
    destroyed: function (d) { return (d.name || piece(d.creature)) + " is destroyed on " + square(d) + (d.target ? " by " + piece(d.target) : "") + (d.detail ? " (" + d.detail + ")" : ""); },
    discard: function (d) { return seatName(d.seat) + " discards " + (d.name || d.card); },
    discard_hand: function (d) { return seatName(d.seat) + " discards the hand"; },
    dispel: function (d) { return seatName(d.seat) + " dispels " + (d.detail || d.card); },
    draw: function (d) { return seatName(d.seat) + " draws " + (d.count ? d.count + " cards" : "a card"); },
    effect: function (d) { return (d.detail || d.name) + " takes effect"; },
    enchanted: function (d) { return piece(d.creature) + " is enchanted with " + (d.name || d.card); },
    enchantment_lost: function (d) { return (d.name || d.card) + " is lost" + (d.detail ? " (" + d.detail + ")" : ""); },
    enchantment_moved: function (d) { return "An enchantment moves from " + piece(d.creature) + " to " + piece(d.target); },
    end: function (d) { return "Game over: " + ranksWords(d.ranks) + (d.detail ? " — " + d.detail : ""); },
    event: function (d) { return seatName(d.seat) + " plays the event " + (d.name || d.card); },
    event_cancelled: function (d) { return "The event " + (d.name || d.card) + " is cancelled"; },
    event_discarded: function (d) { return seatName(d.seat) + " discards the event " + (d.name || d.card); },
    event_option: function (d) { return "Event " + d.name + (d.dice ? " (dice " + list(d.dice) + ")" : ""); },
    fissure: function (d) { return "A fissure opens on " + square(d); },
    fumble: function (d) { return piece(d.creature) + " fumbles the " + d.orb; },
    lightning: function (d) { return "Lightning strikes " + square(d); },
    magic: function (d) { return (d.name || piece(d.creature)) + " casts " + d.card + (d.target ? " on " + piece(d.target) : ""); },
    move: function (d) { return piece(d.creature) + " moves from " + square(d, "from_") + " to " + square(d); },
    orb_drawn: function (d) { return "The " + d.orb + " is drawn"; },
    orb_loose: function (d) { return "The " + d.orb + " bounces from " + square(d, "from_") + " to " + square(d); },
    orb_placed: function (d) { return "The " + d.orb + " is placed on " + square(d); },
    orb_removed: function (d) { return "The " + d.orb + " is removed"; },
    orb_shatters: function (d) { return "The " + d.orb + " shatters"; },
    pickup: function (d) { return piece(d.creature) + " picks up the " + d.orb; },
    play: function (d) { return seatName(d.seat) + " plays " + (d.name || d.card); },
    portal_destroyed: function (d) { return "Portal " + d.portal + " is destroyed"; },
    portal_placed: function (d) { return "Portal " + d.portal + " is placed on " + square(d); },
    reroll: function (d) { return "Reroll: " + d.detail; },
    reshuffle: function () { return "The deck is reshuffled"; },
    roll: function (d) { return (d.seat !== undefined ? seatName(d.seat) + " rolls " : "Roll ") + list(d.dice) + (d.purpose ? " to " + d.purpose : ""); },
    setup: function () { return "The arena is set up"; },
    shot: function (d) { return piece(d.creature) + " scores the " + d.orb + " through portal " + d.portal; },
    shot_roll: function (d) { return piece(d.creature) + " shoots at portal " + d.portal + ": rolls " + list(d.dice) + ", total " + d.total + " — " + d.result; },
    skin: function (d) { return seatName(d.seat) + " takes the skin of " + d.name; },
    skin_returned: function (d) { return seatName(d.seat) + " returns the skin of " + d.name; },
    strike: function (d) { return piece(d.creature) + " strikes " + piece(d.target) + ": " + d.attack_total + " against " + d.defense_total + " — " + d.result; },
    suicide: function (d) { return piece(d.creature) + " dives into portal " + d.portal; },
    summon: function (d) { return seatName(d.seat) + " summons " + (d.name || piece(d.card)); },
    throw: function (d) { return piece(d.creature) + " throws the " + d.orb + " to " + piece(d.target); },
    transmute: function (d) { return piece(d.creature) + " turns into " + d.name + " on " + square(d); },
    turn: function (d) { return "Turn of " + seatName(d.seat) + (d.round !== undefined ? ", round " + d.round : ""); },
  };
  // Engine identifiers that reach a sentence ("gypsy_bazaar", "lightning_storm") read as words.
  function words(text) { return String(text).replace(/\b([A-Za-z]+(?:_[A-Za-z]+)+)\b/g, function (m) { return m.replace(/_/g, " "); }); }
  function eventText(e) { return words(sentence(e)); }
  function sentence(e) {
    var d = e.data || {};
    if (SAY[e.kind]) { try { return SAY[e.kind](d); } catch (err) { /* fall through to the spelled-out form */ } }
    var bits = Object.keys(d).map(function (k) {
      var v = d[k];
      if (k === "seat") return seatName(v);
      if (k === "creature" || k === "champion" || k === "target") return k + " " + piece(v);
      return k.replace(/_/g, " ") + " " + (typeof v === "object" ? JSON.stringify(v) : v);
    });
    return title(String(e.kind).replace(/_/g, " ")) + (bits.length ? ": " + bits.join(", ") : "");
  }
  // An option's label in words: hexes as coordinates ("q-1r-3" -> "hex (-1, -3)") and, in Super
  // Fantasy Brawl, the champions by name ("move greta" -> "move Greta").
  function decisionText(dec, obs) {
    var text = words(dec.label || dec.option_id).replace(/\bq(-?\d+)r(-?\d+)\b/g, "hex ($1, $2)");
    var ids = ((obs || {}).champions || []).map(function (c) { return c.id; }).filter(function (id) { return /^[a-z]+$/.test(id || ""); });
    if (ids.length) text = text.replace(new RegExp("\\b(" + ids.join("|") + ")\\b", "g"), function (m) { return title(m); });
    return seatName(dec.seat) + " chose " + text;
  }

  // The log: one item per decision, with the events it caused nested under it. Items are built
  // once, lazily, the first time stepping reaches them (so opening a 1,500-decision replay builds
  // one item, and End builds the rest once); stepping then only shows or hides items, and only the
  // log's own box scrolls (never the page, which would hide the score table and the result).
  var logItems = [], builtUpTo = -1;
  function resetLog() {
    log.innerHTML = "";
    logItems = [];
    builtUpTo = -1;
    names = {};
    shownUpTo = -1;
    currentLi = null;
  }
  // Piece names are learned frame by frame: a creature's name as of the decision that mentions it.
  function learnFrame(f, overwrite) {
    f.events.forEach(function (e) { var d = e.data || {}; if (d.creature && d.name && /placed|summon|transmute/.test(e.kind)) names[d.creature] = names[d.creature] || d.name; });
    ((f.observation || {}).creatures || []).forEach(function (c) { if (c.id && c.name && (overwrite || !names[c.id])) names[c.id] = c.name; });
  }
  function logItem(f, i) {
    var li = document.createElement("li");
    li.setAttribute("data-frame", i);
    if (f.decision) {
      var dec = f.decision, head = document.createElement("div");
      head.className = "decision";
      head.innerHTML = "<span class='step'>" + esc(i) + ".</span> " + esc(decisionText(dec, f.observation)) +
        (dec.source !== "bot" ? " <em>[" + esc(dec.source) + "]</em>" : "") +
        (dec.note ? " <span class='note'>“" + esc(dec.note) + "”</span>" : "") +
        (dec.think_ms !== undefined ? " <small>" + esc(dec.think_ms) + " ms</small>" : "");
      li.appendChild(head);
    } else {
      var start = document.createElement("div");
      start.className = "decision";
      start.textContent = "Start of the game";
      li.appendChild(start);
    }
    if (f.events.length) {
      var ul = document.createElement("ul");
      ul.className = "caused";
      f.events.forEach(function (e) {
        var ev = document.createElement("li");
        ev.className = "event ev-" + e.kind;
        ev.textContent = eventText(e);
        ev.title = e.kind;
        ul.appendChild(ev);
      });
      li.appendChild(ul);
    }
    return li;
  }
  // Builds the items of frames builtUpTo + 1 .. upTo (hidden; renderLog shows them).
  function buildLog(upTo) {
    if (upTo <= builtUpTo) return;
    var frag = document.createDocumentFragment();
    for (var i = builtUpTo + 1; i <= upTo; i++) {
      var f = data.frames[i];
      learnFrame(f, false);
      if (!f.decision && !f.events.length) { logItems.push(null); learnFrame(f, true); continue; }
      var li = logItem(f, i);
      learnFrame(f, true);
      li.hidden = true;
      frag.appendChild(li);
      logItems.push(li);
    }
    builtUpTo = upTo;
    log.appendChild(frag);
  }
  var shownUpTo = -1, currentLi = null;
  function renderLog(upTo) {
    var i;
    buildLog(upTo);
    if (upTo > shownUpTo) { for (i = shownUpTo + 1; i <= upTo; i++) if (logItems[i]) logItems[i].hidden = false; }
    else { for (i = upTo + 1; i <= shownUpTo; i++) if (logItems[i]) logItems[i].hidden = true; }
    shownUpTo = upTo;
    if (currentLi) currentLi.classList.remove("current");
    currentLi = null;
    for (i = upTo; i >= 0 && !currentLi; i--) currentLi = logItems[i];
    if (currentLi) {
      currentLi.classList.add("current");
      // Scroll the log's box only: scrollIntoView would also scroll the page.
      var top = currentLi.offsetTop, bottom = top + currentLi.offsetHeight;
      if (bottom > log.scrollTop + log.clientHeight) log.scrollTop = bottom - log.clientHeight;
      else if (top < log.scrollTop) log.scrollTop = top;
    }
  }

  // The result banner: shown on the last frame of a finished match.
  function banner(atEnd) {
    var box = document.getElementById("result-banner");
    if (!box) return;
    // Where the eye is: at the top of the side panel beside the board on a wide screen; on a phone,
    // where the panel is below the board, just above the buttons being tapped.
    var narrow = window.matchMedia("(max-width: 700px)").matches;
    var side = root.querySelector(".side"), controls = root.querySelector(".controls");
    if (narrow && box.nextElementSibling !== controls) root.insertBefore(box, controls);
    else if (!narrow && box.parentNode !== side) side.insertBefore(box, side.firstChild);
    var o = data.outcome;
    if (!atEnd || !o || data.live) { box.hidden = true; return; }
    var ranks = o.ranks || [], best = Math.min.apply(null, ranks);
    var winners = ranks.map(function (r, s) { return r === best ? s : -1; }).filter(function (s) { return s >= 0; });
    var head = winners.length === ranks.length ? "Draw" : (winners.length > 1 ? "Shared first: " : "Winner: ") + winners.map(seatName).join(", ");
    box.innerHTML = "<strong>" + esc(head) + "</strong><br><span>" + esc(ranksWords(ranks)) + "</span>" +
      (o.reason ? "<br><small>" + esc(o.termination ? title(words(o.termination)) + ": " : "") + esc(o.reason) + "</small>" : "");
    box.hidden = false;
  }

  // The last frame's index: of the whole replay, even while only its first frame has arrived.
  function lastFrame() { return (data.partial ? data.total : data.frames.length) - 1; }
  function show(n) {
    if (!data || !data.frames.length) return;
    current = Math.max(0, Math.min(n, data.frames.length - 1));
    var frame = data.frames[current], last = lastFrame();
    board.innerHTML = "";
    var svg = el("svg", { "class": "board-svg", "data-frame": current, preserveAspectRatio: "xMidYMid meet" }, board);
    rendererFor(data.board)(frame.observation || {}, svg);
    publicState(frame);
    renderLog(current);
    banner(current === last);
    seek.value = current;
    // Frame 0 is the start; frame n follows decision n, so "n / last" counts decisions.
    label.textContent = (current === 0 ? "start" : "decision " + current) + " / " + last;
    root.setAttribute("data-frame", current);
    root.setAttribute("data-decision", frame.index);
    root.setAttribute("data-at-end", current === last ? "1" : "0");
  }

  function play() {
    if (timer) { clearInterval(timer); timer = null; playBtn.textContent = "▶"; return; }
    if (current >= data.frames.length - 1) show(0);
    playBtn.textContent = "⏸";
    timer = setInterval(function () {
      if (current >= data.frames.length - 1) { play(); return; }
      show(current + 1);
    }, +speed.value);
  }
  function restartTimer() { if (timer) { play(); play(); } }

  var pending = null;
  function act(what) {
    if (!data) return;
    if (data.partial) { pending = what; return; }  // done when the frames have arrived
    if (what === "play") play();
    else if (what === "forward") show(current + 1);
    else if (what === "back") show(current - 1);
    else if (what === "first") show(0);
    else if (what === "last") show(data.frames.length - 1);
  }
  root.querySelectorAll("button[data-act]").forEach(function (b) { b.addEventListener("click", function () { act(b.getAttribute("data-act")); }); });
  seek.addEventListener("input", function () { show(+seek.value); });
  speed.addEventListener("change", restartTimer);
  document.addEventListener("keydown", function (ev) {
    if (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName) && ev.target !== seek) return;
    var map = { " ": "play", ArrowRight: "forward", ArrowLeft: "back", Home: "first", End: "last" };
    if (map[ev.key]) { ev.preventDefault(); act(map[ev.key]); }
    else if (ev.key === "+" || ev.key === "-") {
      var i = speed.selectedIndex + (ev.key === "+" ? 1 : -1);
      if (i >= 0 && i < speed.options.length) { speed.selectedIndex = i; restartTimer(); }
    }
  });

  // Touch: a horizontal swipe on the board steps (left: forward, right: back); a tap does nothing.
  var touchX = null, touchY = null;
  board.addEventListener("touchstart", function (ev) {
    if (ev.touches.length !== 1) { touchX = null; return; }
    touchX = ev.touches[0].clientX; touchY = ev.touches[0].clientY;
  }, { passive: true });
  board.addEventListener("touchend", function (ev) {
    if (touchX === null || !ev.changedTouches.length) return;
    var dx = ev.changedTouches[0].clientX - touchX, dy = ev.changedTouches[0].clientY - touchY;
    touchX = null;
    // Mostly horizontal and long enough to be a swipe, not a scroll of the page.
    if (Math.abs(dx) > 30 && Math.abs(dx) > 2 * Math.abs(dy)) act(dx < 0 ? "forward" : "back");
  });

  // The patch form (?form=patch, docs/replay.md): frame 0 carries the observation, each later frame
  // the changes from the one before: [path, value] sets, [path] removes, [path, "L", spec] rebuilds
  // the list at path from its old items (spec entries: k = old item k, [k, n] = n old items from k,
  // [k, ops] = old item k with ops applied, [value] = a new item). Rebuilding copies only the objects
  // on each changed path, so the frames share everything that did not change. Version 1 (no "L") is
  // a subset, so both load.
  function rebuild(old, spec) {
    var out = [];
    spec.forEach(function (e) {
      if (typeof e === "number") out.push(old[e]);
      else if (e.length === 1) out.push(e[0]);
      else if (typeof e[1] === "number") { for (var j = 0; j < e[1]; j++) out.push(old[e[0] + j]); }
      else out.push(applyOps(old[e[0]], e[1]));
    });
    return out;
  }
  function leaf(node, op) { return op.length === 3 ? rebuild(node, op[2]) : op[1]; }
  function setIn(node, path, i, op) {
    var copy = Array.isArray(node) ? node.slice() : Object.assign({}, node), key = path[i];
    if (i === path.length - 1) { if (op.length === 1) delete copy[key]; else copy[key] = leaf(node[key], op); }
    else copy[key] = setIn(node[key], path, i + 1, op);
    return copy;
  }
  function applyOps(value, ops) {
    ops.forEach(function (op) { value = op[0].length ? setIn(value, op[0], 0, op) : leaf(value, op); });
    return value;
  }
  function unpatch(body) {
    if (body.form !== "patch") return body;
    var obs = null;
    body.frames.forEach(function (f) {
      if (f.observation === undefined) {
        obs = applyOps(obs, f.patch || []);
        f.observation = obs;
        delete f.patch;
      }
      obs = f.observation;
    });
    return body;
  }

  // The first screen: the page embeds frame 0 with the frame count and the result (#replay-head),
  // so the start of the match is drawn, with its counter, before the whole list of frames arrives.
  function first(head) {
    data = { partial: true, total: head.total, game: head.game, seats: head.seats, board: head.board, outcome: head.outcome, frames: head.frames.slice(0, 1) };
    resetLog();
    seek.max = head.total - 1;
    message.textContent = (head.total - 1) + " decisions.";
    show(0);
    root.setAttribute("data-drawn-ms", Math.round(performance.now()));
  }

  // The frames request: the page's <link rel="preload"> started it while the page was still
  // loading, and this fetch (same URL, same mode, no extra headers) picks up that response.
  function load(atEnd) {
    if (!data || !data.partial) message.textContent = "Loading frames…";
    fetch(root.getAttribute("data-frames-url") + "?form=patch")
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (res) {
        if (!res.ok) { message.textContent = "Cannot show this replay: " + (res.body.detail || "error"); return; }
        var parsed = performance.now();
        var at = data && data.partial ? current : (atEnd ? Infinity : 0);
        data = unpatch(res.body);
        var rebuilt = performance.now();
        resetLog();
        seek.max = data.frames.length - 1;
        message.textContent = (data.frames.length - 1) + " decisions.";
        root.removeAttribute("data-live");
        show(at);
        if (!root.getAttribute("data-drawn-ms")) root.setAttribute("data-drawn-ms", Math.round(performance.now()));
        root.setAttribute("data-loaded", "1");
        // Milliseconds from the start of navigation until every frame is loaded and the viewer
        // steps, and where they went (the browser tests report them with data-drawn-ms).
        var now = performance.now();
        root.setAttribute("data-ready-ms", Math.round(now));
        root.setAttribute("data-timing", JSON.stringify({ parsed: Math.round(parsed), unpatch_ms: Math.round(rebuilt - parsed), draw_ms: Math.round(now - rebuilt) }));
        if (pending) { var p = pending; pending = null; act(p); }
      })
      .catch(function (err) { message.textContent = "Cannot load frames: " + err; });
  }

  function setStatus(s) {
    var status = document.getElementById("match-status");
    if (status) { status.textContent = s; status.className = "status " + s; }
    root.setAttribute("data-status", s);
  }

  // Live mode, running: long-poll /live/?since=<last index>&wait=10 for the spectator frames the
  // referee streams, append them, and follow the newest unless the viewer stepped back. When the
  // stream ends (or the match is no longer running) fall back to poll(), which loads the stored replay.
  var liveLast = -1, liveOn = false;
  function live() {
    liveOn = true;
    var url = root.getAttribute("data-live-url") + "?since=" + liveLast + "&wait=10";
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, status: r.status, body: body }; }); })
      .then(function (res) {
        var b = res.body;
        if (!res.ok) { liveOn = false; setTimeout(poll, res.status === 429 ? 10000 : 5000); return; }
        setStatus(b.status);
        if (!b.live) { liveOn = false; poll(); return; }
        if (!data || !data.live) {
          data = { live: true, game: b.game, board: b.board, seats: b.seats, frames: [], outcome: null };
          resetLog();
          root.setAttribute("data-live", "1");
        }
        var following = current >= data.frames.length - 1;
        b.frames.forEach(function (f) { data.frames.push(f); });
        if (b.frames.length) liveLast = b.last;
        if (b.outcome) data.outcome = b.outcome;
        if (data.frames.length) {
          seek.max = data.frames.length - 1;
          if (following && !timer) show(data.frames.length - 1);
          else { label.textContent = (current === 0 ? "start" : "decision " + current) + " / " + (data.frames.length - 1); renderLog(current); }
        }
        if (b.ended) {
          liveOn = false;
          message.textContent = b.error ? "Live view interrupted (" + b.error + "); retrying." : "Match over; loading the stored replay…";
          setTimeout(poll, b.error ? 3000 : 1000);
          return;
        }
        message.textContent = "Live: decision " + liveLast + " (referee " + b.referee_state + ").";
        // The server had no waiting slot free (b.retry_after): come back when it says, not at once.
        setTimeout(live, b.retry_after ? b.retry_after * 1000 : 250);
      })
      .catch(function () { liveOn = false; setTimeout(poll, 5000); });
  }

  // Live mode, queued or stored-later: poll the match's status every 3 s; follow it live while it
  // runs and load the replay once it is stored.
  function poll() {
    fetch(root.getAttribute("data-match-url"), { headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (m) {
        setStatus(m.status);
        if (m.has_replay) load(!!(data && data.live));
        else if (m.status === "running" && root.getAttribute("data-live-url")) { if (!liveOn) live(); }
        else if (m.status === "queued" || m.status === "running") {
          message.textContent = "Live: match is " + m.status + "; the board appears when it starts.";
          setTimeout(poll, 3000);
        } else message.textContent = "This match has no replay (" + m.status + ").";
      })
      .catch(function () { setTimeout(poll, 5000); });
  }

  if (root.getAttribute("data-has-replay") === "1") {
    var head = document.getElementById("replay-head");
    if (head) { try { first(JSON.parse(head.textContent)); } catch (e) { data = null; } }
    load(false);
  } else poll();
})();
