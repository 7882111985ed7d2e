// A person's seat at a people's table: opens /ws/tables/<id>/ and draws what it is pushed (the
// lobby, then the seat's own view), and plays by touching the board. Each push carries the seat's
// generic board view (referee/core/view.py, drawn by board.js as the replay viewer draws it) and,
// with a decision, each legal option's targets: the cells, pieces and cards it acts on, computed in
// the web tier by the game's own hooks from the observation this seat got. Here an option "starts"
// with its first card (else its first piece) and "ends" on its other targets: clicking a piece or
// card selects it and highlights the ends of the options that start with it; clicking a highlighted
// end sends the option; when several options share the same clicks a small chooser lists them.
// Options with no target stay in a plain list (the fallback). Every decision shows as a prompt with
// the time left, so an out-of-turn window is a prompt too. Nothing here knows a game or its rules.
(function () {
  "use strict";
  var root = document.getElementById("table");
  if (!root) return;
  var Board = window.BrawlBoard;
  var tableId = root.dataset.table;
  var seat = Number(root.dataset.seat);
  // data-ws: empty (this origin), ":PORT" (this host, another port: brawl run's ASGI server) or ws://HOST:PORT.
  var scheme = location.protocol === "https:" ? "wss://" : "ws://";
  var ws = root.dataset.ws || "";
  var base = !ws ? scheme + location.host : ws.charAt(0) === ":" ? scheme + location.hostname + ws : ws;
  var url = base + "/ws/tables/" + tableId + "/";
  var $ = function (id) { return document.getElementById(id); };
  var socket = null;
  var state = null;
  var deadline = 0;
  var bank = 0;
  var retry = 500;
  var ended = false;
  var FINAL_CODES = { 4000: true, 4403: true, 4409: true };
  var cells = [];          // the board's cells (kept when a push leaves them out)
  var plans = [];          // per option: {option, src, ends} or {option, src: null, ends: []} for a list option
  var selected = null;     // the key ("piece:ID", "card:ID", "cell:ID") of the selected start
  var svg = null;

  function text(el, value) { el.textContent = value; }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function item(list, value) { var li = document.createElement("li"); li.textContent = value; list.appendChild(li); return li; }
  function notice(message) { var n = $("notice"); text(n, message || ""); n.hidden = !message; }
  function seatName(s) {
    var names = (state && state.seat_names) || [];
    var name = names[s] ? names[s] : "seat " + (s + 1);
    return s === seat ? name + " (you)" : name;
  }
  // "seat 2" in a sentence (the game counts seats from 0) names the person or bot in it.
  function seatWords(t) { return String(t).replace(/\b[Ss]eat (\d+)\b/g, function (m, n) { return seatName(+n); }); }

  function drawTable(t) {
    var list = $("seats");
    clear(list);
    t.seats.forEach(function (s) {
      var who = s.name ? s.name + (s.kind === "bot" ? " (bot)" : "") : "free: waiting for a person";
      item(list, "Seat " + (s.seat + 1) + ": " + who + (s.you ? " (you)" : ""));
    });
    var inv = $("invite");
    var free = t.seats.some(function (s) { return s.kind === "person" && !s.name; });
    inv.hidden = !(t.status === "open" && free);
    $("invite-link").value = location.protocol + "//" + location.host + t.invite;
    if (t.status === "open") {
      text($("status"), t.waiting_for.length ? "Waiting for " + t.waiting_for.join("; ") : "Starting the match…");
    } else if (t.status === "playing" && !state) {
      text($("status"), "The match is starting…");
    } else if (t.status === "finished" && !state) {
      text($("status"), "This table has ended.");
    }
    if (!t.rated) item(list, "Test table: unrated");
  }

  // --- What each option starts with and ends on ------------------------------------------------
  function planOf(o) {
    var t = o.targets;
    if (!t) return { option: o, board: false, src: null, ends: [] };
    var src = t.cards.length ? "card:" + t.cards[0] : t.pieces.length ? "piece:" + t.pieces[0] : null;
    var ends = [];
    t.cells.forEach(function (c) { ends.push("cell:" + c); });
    t.pieces.forEach(function (p) { if ("piece:" + p !== src) ends.push("piece:" + p); });
    t.cards.forEach(function (c) { if ("card:" + c !== src) ends.push("card:" + c); });
    return { option: o, board: true, src: src, ends: ends };
  }
  function boardPlans() { return plans.filter(function (p) { return p.board; }); }
  // The options a click on `key` completes, with nothing selected: those that start and end there
  // (a start with no ends) and those with no start that end there.
  function direct(key) {
    return boardPlans().filter(function (p) { return (p.src === key && !p.ends.length) || (p.src === null && p.ends.indexOf(key) >= 0); });
  }
  function startingWith(key) { return boardPlans().filter(function (p) { return p.src === key && p.ends.length; }); }
  function endingOn(src, key) { return startingWith(src).filter(function (p) { return p.ends.indexOf(key) >= 0; }); }
  // What can be clicked now, key -> class words.
  function actionable() {
    var out = {};
    boardPlans().forEach(function (p) {
      if (p.src) out[p.src] = "act start";
      else p.ends.forEach(function (k) { out[k] = "act start"; });
    });
    if (selected) {
      out[selected] = "act selected";
      startingWith(selected).forEach(function (p) { p.ends.forEach(function (k) { out[k] = "act end"; }); });
    }
    return out;
  }

  function click(key) {
    if (!state || !state.turn) return;
    hideChooser();
    if (selected) {
      if (key === selected) { selected = null; redraw(); return; }
      var done = endingOn(selected, key);
      if (done.length) { finish(done); return; }
      selected = null;
    }
    var now = direct(key), starts = startingWith(key);
    if (starts.length) {
      selected = key;
      redraw();
      if (now.length) chooser(now, "Or now:");
      return;
    }
    if (now.length) finish(now);
    else redraw();
  }
  function finish(matches) {
    if (matches.length === 1) { answer(matches[0].option.id); return; }
    chooser(matches, "Which one?");
  }
  function chooser(matches, title) {
    var box = $("chooser"), list = $("chooser-list");
    clear(list);
    text($("chooser-title"), title);
    matches.forEach(function (p) {
      var li = document.createElement("li");
      var b = document.createElement("button");
      b.type = "button";
      b.className = "choice";
      b.dataset.option = p.option.id;
      b.textContent = p.option.label || p.option.id;
      b.addEventListener("click", function () { hideChooser(); answer(p.option.id); });
      li.appendChild(b);
      list.appendChild(li);
    });
    box.hidden = false;
    if (box.scrollIntoView) box.scrollIntoView({ block: "nearest" });
  }
  function hideChooser() { $("chooser").hidden = true; }

  // --- Drawing -----------------------------------------------------------------------------
  function keysOf(prefix, acts) {
    var out = {};
    Object.keys(acts).forEach(function (k) { if (k.indexOf(prefix) === 0) out[k.slice(prefix.length)] = acts[k]; });
    return out;
  }
  function cardButton(card, acts, parent) {
    var key = "card:" + card.id, act = acts[key];
    var b = document.createElement("button");
    b.type = "button";
    b.className = "card" + (act ? " " + act : "");
    b.dataset.card = card.id;
    b.textContent = card.name + (card.kind ? " · " + card.kind : "");
    b.disabled = !act;
    b.addEventListener("click", function () { click(key); });
    parent.appendChild(b);
  }
  function redraw() {
    var s = state;
    if (!s) return;
    var view = s.board || {};
    if (view.cells && view.cells.length) cells = view.cells;
    var acts = s.turn && !ended ? actionable() : {};
    root.dataset.selected = selected || "";
    // The board.
    var holder = $("board");
    if (!svg) {
      svg = document.createElementNS(Board.NS, "svg");
      svg.setAttribute("class", "board-svg");
      svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
      holder.appendChild(svg);
      svg.addEventListener("click", function (ev) {
        var t = ev.target;
        var piece = t.closest ? t.closest("[data-piece]") : null, cell = t.closest ? t.closest("[data-cell]") : null;
        var now = state && state.turn && !ended ? actionable() : {};
        var pk = piece ? "piece:" + piece.getAttribute("data-piece") : null;
        var ck = cell ? "cell:" + cell.getAttribute("data-cell") : piece && piece.getAttribute("data-on") ? "cell:" + piece.getAttribute("data-on") : null;
        // An end highlighted under the pointer wins over a start; a piece over its cell.
        var order = [pk, ck].filter(Boolean);
        var pick = order.filter(function (k) { return /\bend\b/.test(now[k] || ""); })[0] || order.filter(function (k) { return now[k]; })[0];
        if (pick) click(pick);
      });
    }
    var off = Board.render(svg, view, cells, { cells: keysOf("cell:", acts), pieces: keysOf("piece:", acts), seatName: seatName, offCaption: false });
    holder.hidden = !cells.length;
    // Pieces off the board (a pool to pick from, the dead): buttons, clickable when an option names them.
    var offEl = $("offboard");
    clear(offEl);
    off.forEach(function (p) {
      var key = "piece:" + p.id, act = acts[key];
      var b = document.createElement("button");
      b.type = "button";
      b.className = "piece-chip" + (act ? " " + act : "");
      b.dataset.piece = p.id;
      b.style.borderColor = Board.seatColor(p.owner);
      b.textContent = p.name + (typeof p.owner === "number" ? " (" + seatName(p.owner) + ")" : "");
      b.disabled = !act;
      b.addEventListener("click", function () { click(key); });
      offEl.appendChild(b);
    });
    $("offboard-box").hidden = !off.length;
    // The card areas: this seat's first (its hand), then the others' and the shared ones.
    var mine = $("my-areas"), others = $("areas");
    clear(mine); clear(others);
    (view.areas || []).forEach(function (a) {
      var own = a.seat === seat;
      if (!own && !a.cards.length && !a.hidden) return;
      var box = document.createElement("div");
      box.className = "area";
      box.dataset.area = a.id;
      var h = document.createElement("h3");
      h.textContent = own ? a.title : a.title + (typeof a.seat === "number" ? " of " + seatName(a.seat) : "");
      box.appendChild(h);
      a.cards.forEach(function (c) { cardButton(c, acts, box); });
      if (a.hidden) { var n = document.createElement("span"); n.className = "face-down"; n.textContent = a.hidden + " face down"; box.appendChild(n); }
      if (!a.cards.length && !a.hidden) { var e = document.createElement("span"); e.className = "muted"; e.textContent = "(empty)"; box.appendChild(e); }
      (own ? mine : others).appendChild(box);
    });
    // Scores and facts.
    var sc = $("scores");
    clear(sc);
    (view.scores || []).forEach(function (v, i) {
      var li = item(sc, seatName(i) + ": " + v);
      li.style.borderLeft = ".4rem solid " + Board.seatColor(i);
    });
    var facts = $("facts");
    clear(facts);
    (view.facts || []).forEach(function (f) { item(facts, seatWords(f[0]) + ": " + seatWords(f[1])); });
    // The plain list: every option the board cannot show.
    var opts = $("options");
    clear(opts);
    var listed = plans.filter(function (p) { return !p.board; });
    listed.forEach(function (p) {
      var li = document.createElement("li");
      var b = document.createElement("button");
      b.type = "button";
      b.className = "option";
      b.dataset.option = p.option.id;
      b.textContent = p.option.label || p.option.id;
      b.addEventListener("click", function () { answer(p.option.id); });
      li.appendChild(b);
      opts.appendChild(li);
    });
    $("options-box").hidden = !(s.turn && listed.length);
    var hint = "";
    if (s.turn && boardPlans().length) {
      hint = selected ? "Tap a highlighted target (or the selection again to drop it)." : "Tap a highlighted piece, card or cell.";
    }
    text($("hint"), hint);
  }

  var drawn = { match: "", version: -1 };
  function drawState(s) {
    // The pushes may arrive out of order: draw only a newer one than the last drawn.
    if (s.match_id === drawn.match && typeof s.version === "number" && s.version < drawn.version) return;
    drawn = { match: s.match_id, version: typeof s.version === "number" ? s.version : -1 };
    var fresh = !state || !s.turn || !state.turn || state.turn.decision_id !== s.turn.decision_id;
    state = s;
    $("play").hidden = false;
    var names = s.seat_names || [];
    var turn = s.turn;
    if (fresh) { selected = null; hideChooser(); plans = turn ? turn.options.map(planOf) : []; }
    if (s.outcome) {
      ended = true;
      plans = [];
      var rank = (s.outcome.ranks || [])[seat];
      var res = $("result");
      res.hidden = false;
      text(res, "Match over: you placed " + rank + " of " + names.length + (s.outcome.reason ? " (" + s.outcome.reason + ")" : "") + ".");
      text($("status"), "Match over");
      text($("turn"), "");
      $("resign").hidden = true;
    } else if (turn) {
      text($("status"), "Your turn");
      text($("turn"), "Your turn" + (turn.rejected ? " (again: " + turn.rejected + ")" : ""));
    } else {
      var others = names.map(function (n, i) { return i; }).filter(function (i) { return i !== seat; }).map(seatName);
      var who = others.length ? others.join(", ") : "the other seats";
      text($("status"), "Waiting for " + who);
      text($("turn"), "Waiting for " + who);
    }
    if (turn) {
      deadline = Date.now() + 1000 * turn.seconds_left;
      bank = turn.bank;
    } else {
      deadline = 0;
    }
    $("prompt-box").hidden = !turn || ended;
    text($("prompt"), turn ? seatWords(turn.prompt || String(turn.kind).replace(/_/g, " ")) : "");
    root.dataset.turn = turn && !ended ? turn.decision_id : "";
    redraw();
    var ev = $("events");
    clear(ev);
    (s.events || []).slice(-12).reverse().forEach(function (e) { item(ev, seatWords(e)); });
    text($("observation"), JSON.stringify(s.observation || {}, null, 1));
    notice(s.notice);
    tick();
  }

  function tick() {
    var clock = $("clock"), left = $("time-left");
    if (!state || !state.turn || ended) { text(clock, ""); text(left, ""); return; }
    var secs = Math.max(0, (deadline - Date.now()) / 1000);
    text(clock, "Time: " + secs.toFixed(0) + " s for this decision, then bank " + Math.round(bank) + " s");
    text(left, secs.toFixed(0) + " s left");
  }
  setInterval(tick, 500);

  function send(msg) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(msg));
  }
  function answer(option) {
    if (!state || !state.turn) return;
    Array.prototype.forEach.call(document.querySelectorAll("#options button, #chooser button, #table .card, #table .piece-chip"), function (b) { b.disabled = true; });
    // Sent: nothing is selected any more (the server's next push redraws the board).
    selected = null;
    root.dataset.selected = "";
    send({ type: "answer", decision_id: state.turn.decision_id, option_id: option });
  }
  $("resign").addEventListener("click", function () {
    if (window.confirm("Resign this match? Your seat forfeits.")) send({ type: "resign" });
  });
  $("chooser-cancel").addEventListener("click", function () { hideChooser(); selected = null; redraw(); });

  function connect() {
    socket = new WebSocket(url);
    socket.onopen = function () { retry = 500; };
    socket.onmessage = function (e) {
      var msg;
      try { msg = JSON.parse(e.data); } catch (err) { return; }
      if (msg.type === "table") drawTable(msg);
      else if (msg.type === "state") drawState(msg);
      else if (msg.type === "error") {
        notice(msg.message);
        if (state) { selected = null; redraw(); }
      }
    };
    socket.onclose = function (e) {
      if (FINAL_CODES[e.code]) { text($("status"), "Disconnected"); return; }
      if (ended) return;
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }
  connect();
})();
