// A person's seat at a people's table: opens /ws/tables/<id>/ and draws what it is pushed
// (the lobby, then the seat's own view: whose turn, the clock, the hand, the last events and the
// legal options as a list to click). Answers and resignation go back over the same socket.
// Everything shown came to this seat from the referee: nothing here knows a game's rules.
(function () {
  "use strict";
  var root = document.getElementById("table");
  if (!root) return;
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

  function text(el, value) { el.textContent = value; }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function item(list, value) { var li = document.createElement("li"); li.textContent = value; list.appendChild(li); return li; }
  function describe(card) {
    if (card === null || typeof card !== "object") return String(card);
    var name = card.name || card.title || card.id || card.card || "";
    var rest = Object.keys(card).filter(function (k) { return ["name", "title", "id", "card"].indexOf(k) < 0 && typeof card[k] !== "object"; })
      .map(function (k) { return k.replace(/_/g, " ") + " " + card[k]; });
    return [name].concat(rest).filter(Boolean).join(", ");
  }
  function notice(message) { var n = $("notice"); text(n, message || ""); n.hidden = !message; }

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
    $("invite-link").value = location.origin + t.invite;
    if (t.status === "open") {
      text($("status"), t.waiting_for.length ? "Waiting for " + t.waiting_for.join("; ") : "Starting the match…");
    } else if (t.status === "playing" && !state) {
      text($("status"), "The match is starting…");
    } else if (t.status === "finished" && !state) {
      text($("status"), "This table has ended.");
    }
    if (!t.rated) item(list, "Test table: unrated");
  }

  function drawState(s) {
    state = s;
    $("play").hidden = false;
    var names = s.seat_names || [];
    var obs = s.observation || {};
    var turn = s.turn;
    if (s.outcome) {
      ended = true;
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
      var active = obs.active_seat;
      var who = typeof active === "number" && active !== seat && names[active] ? names[active] : "the other seats";
      text($("status"), "Waiting for " + who);
      text($("turn"), "Waiting for " + who);
    }
    if (turn) {
      deadline = Date.now() + 1000 * turn.seconds_left;
      bank = turn.bank;
    } else {
      deadline = 0;
    }
    var hand = $("hand");
    clear(hand);
    (Array.isArray(obs.hand) ? obs.hand : []).forEach(function (c) { item(hand, describe(c)); });
    if (!hand.firstChild) item(hand, "(empty)");
    var opts = $("options");
    clear(opts);
    text($("prompt"), turn ? turn.prompt || turn.kind : "");
    $("options-title").hidden = !turn;
    if (turn) {
      turn.options.forEach(function (o) {
        var li = document.createElement("li");
        var b = document.createElement("button");
        b.type = "button";
        b.className = "option";
        b.dataset.option = o.id;
        b.textContent = o.label || o.id;
        b.addEventListener("click", function () { answer(turn.decision_id, o.id); });
        li.appendChild(b);
        opts.appendChild(li);
      });
    }
    var ev = $("events");
    clear(ev);
    (s.events || []).slice(-12).reverse().forEach(function (e) { item(ev, e); });
    text($("observation"), JSON.stringify(obs, null, 1));
    notice(s.notice);
    tick();
  }

  function tick() {
    var clock = $("clock");
    if (!state || !state.turn || ended) { text(clock, ""); return; }
    var left = Math.max(0, (deadline - Date.now()) / 1000);
    text(clock, "Time: " + left.toFixed(0) + " s for this decision, then bank " + Math.round(bank) + " s");
  }
  setInterval(tick, 500);

  function send(msg) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(msg));
  }
  function answer(decision, option) {
    Array.prototype.forEach.call(document.querySelectorAll("#options button"), function (b) { b.disabled = true; });
    send({ type: "answer", decision_id: decision, option_id: option });
  }
  $("resign").addEventListener("click", function () {
    if (window.confirm("Resign this match? Your seat forfeits.")) send({ type: "resign" });
  });

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
        Array.prototype.forEach.call(document.querySelectorAll("#options button"), function (b) { b.disabled = false; });
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
