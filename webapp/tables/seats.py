"""Server-side seat clients: a person's seats played over the bot protocol, relayed to the browser.

A person's seat in a referee match is a seat like any other: its bot is the person's seat identity
(``Bot.is_person``), and a :class:`PersonSession`, one per person and game in the ASGI process,
connects it to the referee with the SDK's own client (:class:`referee.sdk.BotClient`, so the same
reconnects, the same observation patches, the same time control). Instead of calling a bot, its
host (:class:`PeopleHost`) keeps each seat's view (:class:`SeatView`: the pending decision, the
seat's own observation, the last events, the outcome) and pushes it to the seat's channel group,
where the browser's socket (``webapp.tables.consumers``) forwards it. The browser sees exactly what
the referee sends that seat: nothing of another seat's hand, nothing of the seed.

The page draws the seat's board from the game's generic board view, built here by the game's own
hooks from the observation the seat got and nothing else (``Game.board_view``), with each legal
option's cells, pieces and cards (``Game.option_targets``) so a click on the board can send it, and
each event's sentence (``Game.event_text``): the web tier computes no rule of its own.

The browser's answer comes back through :meth:`PersonSession.answer`, which sends it only when it
is one of the pending decision's legal options; anything else is refused with a message and sends
nothing. The referee's clock runs as for a bot: a late answer gets the decision's default and a
strike, and the match forfeits a seat that runs out of bank or strikes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from brawl.bot.v1 import bot_pb2
from channels.layers import get_channel_layer

from referee.core.contract import Event, Game, Option
from referee.core.ids import Seat
from referee.core.registry import get_game
from referee.core.view import BoardView, Targets
from referee.protocol import codec
from referee.sdk.client import BotClient
from referee.sdk.host import BotHost, Turn

log = logging.getLogger(__name__)

MAX_TABLES = 16
"""Seats one person may play at once in one game (the session's ``max_matches``)."""
EVENTS_KEPT = 30
"""How many of the last events a seat's view keeps."""


def seat_group(match_id: str, seat: int) -> str:
    """The channel group of one seat of one match."""
    return f"seat.{match_id}.{seat}"


def event_text(kind: str, data: dict[str, Any], names: list[str] | None = None) -> str:
    """An event in words: its kind and its set fields, a seat by its name (``move: seat ada, to r2c4``).

    Fields left at their empty value (``""``, ``0``, ``false``: what the wire leaves unset) are not
    shown, except a seat number, which names a seat even when it is 0.
    """
    parts = []
    for key, value in data.items():
        label = key.replace("_", " ")
        if key.endswith("seat") and isinstance(value, int) and not isinstance(value, bool):
            who = names[value] if names and 0 <= value < len(names) else f"{value + 1}"
            parts.append(f"{label} {who}")
        elif isinstance(value, bool):
            if value:
                parts.append(label)
        elif isinstance(value, str | int | float) and value not in ("", 0):
            parts.append(f"{label} {value}")
    return kind.replace("_", " ") + (f": {', '.join(parts)}" if parts else "")


def seat_board(game: Game, observation: dict[str, Any], seat: int) -> BoardView | None:
    """The seat's board, drawn by the game's own hook from the observation the seat got; ``None`` if it fails."""
    try:
        return game.board_view(observation, Seat(seat))
    except Exception:  # a view is a convenience: the options list still plays the seat
        log.exception("board view of %s failed", game.info.name)
        return None


def option_targets(game: Game, option: dict[str, Any], board: BoardView | None) -> dict[str, list[str]] | None:
    """What an option acts on in the seat's ``board`` (``Game.option_targets``), or ``None`` when nothing."""
    if board is None:
        return None
    try:
        targets = game.option_targets(Option(option["id"], option["kind"], option["label"], option["params"]), board)
    except Exception:
        log.exception("option targets of %s failed", game.info.name)
        return None
    # Only ids the board has: the wire fills every parameter (a row 0 the board has no cell for).
    cells, pieces, cards = board.cell_ids(), board.piece_ids(), board.card_ids(board.viewer)
    shown = Targets.of(
        [c for c in targets.cells if c in cells],
        [p for p in targets.pieces if p in pieces],
        [c for c in targets.cards if c in cards],
    )
    return shown.to_json() if shown else None


def event_words(game: Game, e: Event, seat: int, v: SeatView) -> str:
    """An event's sentence as the game writes it for this seat, or spelled out when the game's hook fails."""
    try:
        return game.event_text(e, Seat(seat), v.names)
    except Exception:
        log.exception("event text of %s failed", game.info.name)
        return event_text(e.kind, e.data, v.seat_names)


@dataclass
class SeatView:
    """What the browser of one seat is shown: all of it came to this seat from the referee."""

    match_id: str
    seat: int
    seat_names: list[str] = field(default_factory=list)
    observation: dict[str, Any] = field(default_factory=dict)
    turn: dict[str, Any] | None = None
    """The pending decision (with ``deadline_at``, this process's clock), or ``None``."""
    events: deque[str] = field(default_factory=lambda: deque(maxlen=EVENTS_KEPT))
    outcome: dict[str, Any] | None = None
    board: dict[str, Any] | None = None
    """The seat's board view (``Game.board_view`` of its own observation), as JSON."""
    names: dict[str, str] = field(default_factory=dict)
    """Every piece's name the seat has seen, by id (for the events' sentences)."""
    notice: str = ""
    """The referee's last word to this seat (a refusal, a forfeit)."""
    version: int = 0
    """Counts the pushes: the sends run as separate tasks and may arrive out of order, so the page
    keeps the highest version it has drawn and ignores an older one."""

    def to_json(self, now: float) -> dict[str, Any]:
        """The view as the browser gets it; the deadline as seconds left from ``now``."""
        turn = None
        if self.turn is not None:
            turn = {k: v for k, v in self.turn.items() if k != "deadline_at"}
            turn["seconds_left"] = max(0.0, round(self.turn["deadline_at"] - now, 2))
        return {
            "type": "state",
            "version": self.version,
            "match_id": self.match_id,
            "seat": self.seat,
            "seat_names": self.seat_names,
            "observation": self.observation,
            "turn": turn,
            "events": list(self.events),
            "board": self.board,
            "outcome": self.outcome,
            "notice": self.notice,
        }


class PeopleHost(BotHost):
    """A :class:`BotHost` whose decisions go to a person instead of a bot object."""

    def __init__(self, session: PersonSession, emit: Callable[[bot_pb2.ConnectRequest], None]) -> None:
        super().__init__(factory=object, emit=emit, threaded=False)
        self.session = session

    def handle(self, msg: bot_pb2.ConnectResponse) -> None:
        """Acts on one referee message, then tells the session what changed."""
        kind = msg.WhichOneof("message")
        super().handle(msg)
        if kind == "match_start":
            s = msg.match_start
            self.session.on_start(s.match_id, s.seat, list(s.seat_names), self.observations.get((s.match_id, s.seat)))
        elif kind == "match_end":
            e = msg.match_end
            self.session.on_end(e.match_id, e.seat, codec.outcome_from(e.outcome).to_json())
        elif kind == "error":
            err = msg.error
            self.session.on_error(err.match_id, err.message, err.decision_id, err.retry_allowed)

    def _spawn(self, req: bot_pb2.DecisionRequest, rejected: str) -> None:
        self.session.on_turn(self._turn(req, rejected))


class SeatClient(BotClient):
    """The SDK's client, telling its session when the referee welcomed it."""

    def __init__(self, on_welcome: Callable[[], None], *args: Any, **kwargs: Any) -> None:
        self._on_welcome = on_welcome
        self._welcome: bot_pb2.Welcome | None = None
        super().__init__(*args, **kwargs)

    @property
    def welcome(self) -> bot_pb2.Welcome | None:
        """The referee's Welcome of the current stream."""
        return self._welcome

    @welcome.setter
    def welcome(self, value: bot_pb2.Welcome | None) -> None:
        self._welcome = value
        if value is not None:
            self._on_welcome()


class PersonSession:
    """One person's seat identity in one game, connected to the referee, with a view per seat.

    Args:
        user_id: The person.
        game: The game.
        bot_id: The person's seat identity (``Bot.is_person``).
        server: The referee bot port(s).
        token: A token of that bot.
    """

    def __init__(self, user_id: int, game: str, bot_id: int, server: str, token: str) -> None:
        self.user_id = user_id
        self.game = game
        self.engine = get_game(game)
        self.bot_id = bot_id
        self.connected = asyncio.Event()
        self.views: dict[tuple[str, int], SeatView] = {}
        self.requests: dict[tuple[str, int], bot_pb2.DecisionRequest] = {}
        self.client = SeatClient(
            self.connected.set, object, server, token, games=[game], max_matches=MAX_TABLES, batching=False
        )
        self.client.host = PeopleHost(self, self.client._emit)
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Connects in the background (the SDK reconnects on its own)."""
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.client.run())

    def stop(self) -> None:
        """Closes the stream."""
        self.client.stop()

    def view(self, match_id: str, seat: int) -> SeatView | None:
        """The view of one seat, or ``None`` before its match started at the referee."""
        return self.views.get((match_id, seat))

    def _view(self, match_id: str, seat: int) -> SeatView:
        return self.views.setdefault((match_id, seat), SeatView(match_id, seat))

    def on_start(self, match_id: str, seat: int, names: list[str], observation: dict[str, Any] | None) -> None:
        v = self._view(match_id, seat)
        v.seat_names = names
        if observation is not None:
            v.observation = observation
            self._draw(v)
        self._push(v)

    def _draw(self, v: SeatView) -> BoardView | None:
        """Redraws the seat's board from its observation (the game's hook, nothing re-implemented)."""
        board = seat_board(self.engine, v.observation, v.seat)
        v.board = board.to_json() if board is not None else None
        if board is not None:
            v.names.update(board.names())
        return board

    def on_turn(self, turn: Turn) -> None:
        v = self._view(turn.match_id, int(turn.seat))
        v.observation = turn.observation
        for e in turn.events:
            v.events.append(event_words(self.engine, e, int(turn.seat), v))
        board = self._draw(v)
        options: list[dict[str, Any]] = [
            {"id": o.id, "kind": o.kind, "label": o.label, "params": o.params} for o in turn.options
        ]
        for o in options:
            o["targets"] = option_targets(self.engine, o, board)
        v.turn = {
            "decision_id": turn.decision_id,
            "kind": turn.decision.kind,
            "prompt": turn.decision.prompt,
            "options": options,
            "deadline_at": time.monotonic() + turn.deadline,
            "decision_time": turn.decision_time,
            "bank": round(turn.bank_remaining, 2),
            "strikes": turn.strikes,
            "rejected": turn.rejected,
        }
        host = self.client.host
        req = host.requests.get(turn.match_id)
        if req is not None:
            self.requests[(turn.match_id, int(turn.seat))] = req
        self._push(v)

    def on_end(self, match_id: str, seat: int, outcome: dict[str, Any]) -> None:
        v = self._view(match_id, seat)
        v.turn = None
        v.outcome = outcome
        self._push(v)

    def on_error(self, match_id: str, message: str, decision_id: str = "", retry: bool = False) -> None:
        for (mid, _), v in self.views.items():
            if mid == match_id:
                v.notice = message
                if v.turn is not None and decision_id == v.turn["decision_id"] and not retry:
                    v.turn = None  # timed out: the referee applied the default; the next request comes
                self._push(v)

    def answer(self, match_id: str, seat: int, decision_id: str, option_id: str) -> str | None:
        """Sends the person's answer when it is legal now; returns why not otherwise (nothing sent)."""
        v = self.views.get((match_id, seat))
        if v is None:
            return "the match has not started yet"
        if v.outcome is not None:
            return "the match is over"
        if v.turn is None:
            return "it is not your turn"
        if decision_id != v.turn["decision_id"]:
            return "that decision is no longer open"
        if option_id not in {o["id"] for o in v.turn["options"]}:
            return f"{option_id[:60]!r} is not one of the legal options"
        req = self.requests.pop((match_id, seat), None)
        if req is None or req.decision_id != decision_id:
            return "that decision is no longer open"
        v.turn = None
        v.notice = ""
        self.client.host._send_answer(req, option_id, "")
        self._push(v)
        return None

    def resign(self, match_id: str, seat: int) -> str | None:
        """Resigns the person's seat: the referee forfeits it; returns why not otherwise (nothing sent)."""
        v = self.views.get((match_id, seat))
        if v is None:
            return "the match has not started yet"
        if v.outcome is not None:
            return "the match is over"
        v.turn = None
        self.client.resign(match_id)
        return None

    def _push(self, v: SeatView) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        v.version += 1
        payload = v.to_json(time.monotonic())
        asyncio.get_running_loop().create_task(
            layer.group_send(seat_group(v.match_id, v.seat), {"type": "seat.push", "payload": payload})
        )


SESSIONS: dict[tuple[int, str], PersonSession] = {}
"""The sessions of this process, by (person, game)."""


def session_for(user_id: int, game: str) -> PersonSession | None:
    """The running session of a person in a game, or ``None``."""
    return SESSIONS.get((user_id, game))


_LOCK: asyncio.Lock | None = None


async def ensure_session(
    user_id: int, game: str, bot_id: int, server: str, token_maker: Callable[[], Awaitable[str]]
) -> PersonSession:
    """Returns the person's session in ``game``, started if it was not (``token_maker`` issues its token)."""
    global _LOCK
    if _LOCK is None:
        _LOCK = asyncio.Lock()
    async with _LOCK:
        found = SESSIONS.get((user_id, game))
        if found is not None and found.task is not None and not found.task.done():
            return found
        session = PersonSession(user_id, game, bot_id, server, await token_maker())
        SESSIONS[(user_id, game)] = session
        session.start()
        return session


def connected_people(game: str) -> set[int]:
    """The people of ``game`` whose session the referee welcomed."""
    return {uid for (uid, g), s in SESSIONS.items() if g == game and s.connected.is_set()}


async def stop_all() -> None:
    """Stops every session of this process (tests, shutdown)."""
    for s in list(SESSIONS.values()):
        s.stop()
        if s.task is not None:
            await asyncio.gather(s.task, return_exceptions=True)
    SESSIONS.clear()
    global _LOCK
    _LOCK = None
