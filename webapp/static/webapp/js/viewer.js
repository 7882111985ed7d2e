// The replay viewer: fetches spectator frames (/api/v1/matches/<id>/frames/, or /live/ while the
// match runs), draws the board in SVG and steps through them. It knows no game: every frame carries
// the game's generic board view (referee/core/view.py, docs/engine.md "The board view"): cells with
// their outlines, pieces with owner, label and kind, markers, card areas, scores and facts; every
// event carries its sentence (`text`) and every decision the cells, pieces and cards it acted on
// (`targets`). The viewer draws those as given (the drawing is board.js, shared with the tables'
// page); a game with a new board shape needs no change here.
(function () {
  "use strict";
  var Board = window.BrawlBoard;
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

  function el(name, attrs, parent, text) { return Board.el(name, attrs, parent, text); }

  // --- The board, from the frame's view (board.js draws it) -------------------------------------
  // The cells of a frame: its own when they changed, else the frames' (sent once).
  function cellsOf(view) { return (view && view.cells) || (data && data.cells) || []; }
  function drawBoard(frame, svg) {
    var view = frame.view || {}, targets = (frame.decision && frame.decision.targets) || {};
    var hitCell = {}, hitPiece = {};
    (targets.cells || []).forEach(function (id) { hitCell[id] = "target"; });
    (targets.pieces || []).forEach(function (id) { hitPiece[id] = "target"; });
    Board.render(svg, view, cellsOf(view), { cells: hitCell, pieces: hitPiece, seatName: seatName });
  }

  // --- Beside the board: scores, facts and the card areas, all from the view -------------------
  function seatName(seat) {
    var n = (data && data.seats || [])[seat];
    return n !== undefined && n !== null && n !== "" ? n + " (seat " + seat + ")" : "seat " + seat;
  }
  function publicState(frame) {
    var view = frame.view || {}, html = "";
    var scores = view.scores || [];
    if (scores.length) {
      html += "<table class='compact'><tr><th>Seat</th><th class='num'>Score</th></tr>" + scores.map(function (s, i) {
        return "<tr><td><span class='swatch s" + i + "'></span>" + esc((data.seats || [])[i] || i) + "</td><td class='num'>" + esc(s) + "</td></tr>";
      }).join("") + "</table>";
    }
    (view.facts || []).forEach(function (f) { html += "<p class='fact'><small>" + esc(seatWords(f[0])) + ": " + esc(f[1]) + "</small></p>"; });
    (view.areas || []).forEach(function (a) {
      if (!a.cards.length && !a.hidden) return;
      var who = typeof a.seat === "number" ? " of " + seatName(a.seat) : "";
      var shown = a.cards.slice(-12).map(function (c) { return c.name; });
      if (a.cards.length > 12) shown.unshift("… " + (a.cards.length - 12) + " more");
      if (a.hidden) shown.push(a.hidden + " face down");
      html += "<p class='area' data-area='" + esc(a.id) + "'><small><strong>" + esc(a.title + who) + ":</strong> " + esc(shown.join(", ")) + "</small></p>";
    });
    if (frame.to_move) html += "<p>To move: " + esc(seatName(frame.to_move.seat)) + " (" + esc(String(frame.to_move.kind).replace(/_/g, " ")) + ")</p>";
    html += "<details><summary>Public state</summary><pre>" + esc(JSON.stringify(frame.observation || {}, null, 1)) + "</pre></details>";
    pub.innerHTML = html;
  }
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }

  // --- The game record: the sentences the frames carry ------------------------------------------
  function title(s) { s = String(s || ""); return s ? s.charAt(0).toUpperCase() + s.slice(1) : ""; }
  // "seat 2" in a sentence names the bot in that seat.
  function seatWords(text) { return String(text).replace(/\b[Ss]eat (\d+)\b/g, function (m, n) { return seatName(+n); }); }
  function ranksWords(ranks) {
    if (!Array.isArray(ranks)) return "";
    return ranks.map(function (r, seat) { return seatName(seat) + " " + ordinal(r); }).join(", ");
  }
  function ordinal(n) { return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : n + "th"; }
  // Identifiers that reach a sentence or a label ("some_name") read as words.
  function words(text) { return String(text).replace(/\b([A-Za-z]+(?:_[A-Za-z]+)+)\b/g, function (m) { return m.replace(/_/g, " "); }); }
  // An event's sentence; an event without one (frames of an older form) is spelled out from its data.
  function eventText(e) {
    if (e.text) return seatWords(e.text);
    var d = e.data || {};
    var bits = Object.keys(d).map(function (k) { return k.replace(/_/g, " ") + " " + (typeof d[k] === "object" ? JSON.stringify(d[k]).replace(/[[\]{}"]/g, "") : d[k]); });
    return words(title(String(e.kind).replace(/_/g, " ")) + (bits.length ? ": " + bits.join(", ") : ""));
  }
  function decisionText(dec) { return seatName(dec.seat) + " chose " + words(dec.label || dec.option_id); }

  // The log: one item per decision, with the events it caused nested under it. Items are built
  // once, lazily, the first time stepping reaches them (so opening a 1,500-decision replay builds
  // one item, and End builds the rest once); stepping then only shows or hides items, and only the
  // log's own box scrolls (never the page, which would hide the score table and the result).
  var logItems = [], builtUpTo = -1;
  function resetLog() {
    log.innerHTML = "";
    logItems = [];
    builtUpTo = -1;
    shownUpTo = -1;
    currentLi = null;
  }
  function logItem(f, i) {
    var li = document.createElement("li");
    li.setAttribute("data-frame", i);
    if (f.decision) {
      var dec = f.decision, head = document.createElement("div");
      head.className = "decision";
      head.innerHTML = "<span class='step'>" + esc(i) + ".</span> " + esc(decisionText(dec)) +
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
      if (!f.decision && !f.events.length) { logItems.push(null); continue; }
      var li = logItem(f, i);
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
    drawBoard(frame, svg);
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
  // Version 3 patches each frame's view the same way (view_patch).
  function unpatch(body) {
    if (body.form !== "patch") return body;
    var obs = null, view = null;
    body.frames.forEach(function (f) {
      if (f.observation === undefined) {
        obs = applyOps(obs, f.patch || []);
        f.observation = obs;
        delete f.patch;
      }
      if (f.view === undefined && view !== null) {
        view = applyOps(view, f.view_patch || []);
        f.view = view;
        delete f.view_patch;
      }
      obs = f.observation;
      view = f.view === undefined ? null : f.view;
    });
    return body;
  }

  // The first screen: the page embeds frame 0 with the frame count and the result (#replay-head),
  // so the start of the match is drawn, with its counter, before the whole list of frames arrives.
  function first(head) {
    data = { partial: true, total: head.total, game: head.game, seats: head.seats, cells: head.cells, outcome: head.outcome, frames: head.frames.slice(0, 1) };
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
          data = { live: true, game: b.game, cells: b.cells, seats: b.seats, frames: [], outcome: null };
          resetLog();
          root.setAttribute("data-live", "1");
        }
        var following = current >= data.frames.length - 1;
        b.frames.forEach(function (f) { data.frames.push(f); });
        if (b.frames.length) liveLast = b.last;
        if (b.outcome) data.outcome = b.outcome;
        if (b.cells && b.cells.length) data.cells = b.cells;
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
