"""The transport-free half of the SDK: turns referee messages into calls on a bot object.

A :class:`BotHost` keeps one bot instance per (match, seat), decodes each ``DecisionRequest`` into
a :class:`Turn`, calls the bot, and emits the ``Answer``. The network client
(:mod:`referee.sdk.client`) and the referee's in-process seats (house bots, ``brawl play``) both
use it, so a bot behaves the same wherever it runs.

A bot is any object with ``choose(decision, observation, options)`` returning an option id, or
``(option_id, note)``; see :class:`Bot`. It may also define ``choose_turn(turn)`` to get the
whole :class:`Turn`, and ``match_started(start)`` / ``match_ended(end)`` hooks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from brawl.bot.v1 import bot_pb2

from referee.core.contract import Decision, Event, JSONDict, Option, Outcome
from referee.core.ids import Seat
from referee.protocol import codec, delta
from referee.protocol.timecontrol import seconds

log = logging.getLogger("referee.sdk")


class Bot(Protocol):
    """What a bot implements: pick one of the options.

    A bot class may also set ``auto_pass_kinds`` (a tuple of decision kinds, e.g.
    ``("dispel_window", "fumble_window")``): the client sends it in its Hello, and the referee then
    answers "pass" for the bot, without asking, in those out-of-turn windows when "pass" is its only
    option (docs/bot-protocol.md, "Out-of-turn windows").
    """

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str | tuple[str, str]:
        """Returns an option id, or ``(option_id, note)`` with a short note for the match log."""
        ...


@dataclass(frozen=True)
class Turn:
    """Everything a decision request carries, decoded."""

    match_id: str
    decision_id: str
    game: str
    seat: Seat
    decision: Decision
    """The seat, kind, prompt and default option."""
    observation: JSONDict
    """What the seat may see, keyed by the game's proto field names."""
    options: list[Option]
    """The legal options, in the game's order."""
    events: list[Event]
    """Events since this seat's previous turn."""
    deadline: float
    """Seconds until the answer is late (at the referee; minus network time)."""
    decision_time: float
    """Free think time of this decision, seconds."""
    bank_remaining: float
    """The seat's remaining bank, seconds."""
    strikes: int
    decision_number: int
    rejected: str = ""
    """When the bot is asked again after the referee refused its answer: the referee's reason."""


@dataclass(frozen=True)
class MatchInfo:
    """A match start, decoded."""

    match_id: str
    game: str
    seat: Seat
    seat_names: list[str]
    config: JSONDict
    resumed: bool


@dataclass(frozen=True)
class MatchResult:
    """A match end, decoded."""

    match_id: str
    seat: Seat
    outcome: Outcome

    @property
    def rank(self) -> int:
        """This seat's rank, 1 best."""
        return self.outcome.ranks[self.seat]


def decode_turn(
    req: bot_pb2.DecisionRequest,
    game: str,
    rejected: str = "",
    observation: JSONDict | None = None,
    options: list[Option] | None = None,
) -> Turn:
    """Returns the :class:`Turn` a decision request carries.

    Args:
        req: The request.
        game: The match's game.
        rejected: The referee's reason when the bot is asked again.
        observation: The seat's whole observation (the patched one); by default the request's
            own ``observation`` (a full-observation request).
        options: The request's options, already decoded; by default decoded here.
    """
    return Turn(
        match_id=req.match_id,
        decision_id=req.decision_id,
        game=game,
        seat=Seat(req.seat),
        decision=Decision(Seat(req.seat), req.kind, req.prompt, req.default_option_id),
        observation=codec.payload_data(req.observation) if observation is None else observation,
        options=codec.options_from(req.options) if options is None else options,
        events=[codec.event_from(e) for e in req.events],
        deadline=seconds(req.deadline),
        decision_time=seconds(req.decision_time),
        bank_remaining=seconds(req.bank_remaining),
        strikes=req.strikes,
        decision_number=req.decision_number,
        rejected=rejected,
    )


def ask(bot: Any, turn: Turn) -> tuple[str, str]:
    """Calls the bot for ``turn`` and returns ``(option_id, note)``.

    Raises:
        TypeError: the bot returned something other than a string or a pair of strings.
    """
    if hasattr(bot, "choose_turn"):
        result = bot.choose_turn(turn)
    else:
        result = bot.choose(turn.decision, turn.observation, turn.options)
    if isinstance(result, str):
        return result, ""
    if isinstance(result, tuple) and len(result) == 2 and all(isinstance(x, str) for x in result):
        return result[0], result[1]
    raise TypeError(f"a bot must return an option id or (option_id, note), got {result!r}")


@dataclass
class BotHost:
    """Runs a bot class for every seat it is given, over any transport.

    Args:
        factory: Makes one bot instance per (match, seat).
        emit: Sends a message to the referee.
        threaded: Call the bot in a worker thread, so the event loop keeps answering pings while
            it thinks. In-process house bots that answer in microseconds pass ``False``.
    """

    factory: Callable[[], Any]
    emit: Callable[[bot_pb2.ConnectRequest], None]
    threaded: bool = True
    on_match_end: Callable[[MatchResult], None] | None = None
    bots: dict[tuple[str, int], Any] = field(default_factory=dict)
    games: dict[str, str] = field(default_factory=dict)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    finished: int = 0
    requests: dict[str, bot_pb2.DecisionRequest] = field(default_factory=dict)
    """The latest request of each match, to ask again after a retryable refusal."""
    observations: dict[tuple[str, int], JSONDict] = field(default_factory=dict)
    """Each seat's whole observation (JSON form), kept up to date with the requests' patches."""
    option_cache: dict[str, dict[bytes, Option]] = field(default_factory=dict)
    """Per match, each option decoded once, by its encoding (most options repeat between turns)."""

    def _bot(self, match_id: str, seat: int) -> Any:
        key = (match_id, seat)
        if key not in self.bots:
            self.bots[key] = self.factory()
        return self.bots[key]

    def handle(self, msg: bot_pb2.ConnectResponse) -> None:
        """Acts on one referee message; decisions are answered from a task."""
        kind = msg.WhichOneof("message")
        if kind == "decision_request":
            req = msg.decision_request
            try:
                self._observe(req)
            except delta.PatchError:
                # A patch that does not apply means a lost or reordered message: the referee's
                # clock decides this turn, and the next MatchStart (after a reconnect) resets.
                log.exception("match %s decision %s: bad observation patch", req.match_id, req.decision_id)
                return
            self.requests[req.match_id] = req
            self._spawn(req, "")
        elif kind == "ping":
            self.emit(bot_pb2.ConnectRequest(pong=bot_pb2.Pong(ping_id=msg.ping.ping_id)))
        elif kind == "match_start":
            s = msg.match_start
            self.games[s.match_id] = s.game
            self.observations[(s.match_id, s.seat)] = codec.payload_data(s.observation)
            bot = self._bot(s.match_id, s.seat)
            if hasattr(bot, "match_started"):
                info = MatchInfo(
                    s.match_id, s.game, Seat(s.seat), list(s.seat_names), codec.struct_data(s.config), s.resumed
                )
                bot.match_started(info)
        elif kind == "match_end":
            e = msg.match_end
            result = MatchResult(e.match_id, Seat(e.seat), codec.outcome_from(e.outcome))
            bot = self.bots.pop((e.match_id, e.seat), None)
            self.observations.pop((e.match_id, e.seat), None)
            if not any(k[0] == e.match_id for k in self.observations):
                self.option_cache.pop(e.match_id, None)
            if bot is not None and hasattr(bot, "match_ended"):
                bot.match_ended(result)
            if not any(k[0] == e.match_id for k in self.bots):
                self.games.pop(e.match_id, None)
                self.requests.pop(e.match_id, None)
            self.finished += 1
            if self.on_match_end is not None:
                self.on_match_end(result)
        elif kind == "error":
            err = msg.error
            log.warning(
                "referee error %s on match %s decision %s: %s",
                bot_pb2.ErrorCode.Name(err.code),
                err.match_id,
                err.decision_id,
                err.message,
            )
            last = self.requests.get(err.match_id)
            if err.retry_allowed and last is not None and last.decision_id == err.decision_id:
                self._spawn(last, err.message)

    def _observe(self, req: bot_pb2.DecisionRequest) -> None:
        """Brings the seat's observation up to ``req``: its whole observation, or its patch applied.

        Raises:
            delta.PatchError: the patch does not apply (or no MatchStart came for the seat).
        """
        key = (req.match_id, req.seat)
        if req.HasField("observation"):
            self.observations[key] = codec.payload_data(req.observation)
            return
        base = self.observations.get(key)
        if base is None:
            raise delta.PatchError(f"no observation of match {req.match_id} seat {req.seat} to patch")
        if req.observation_patch:
            self.observations[key] = delta.apply_patch(base, req.observation_patch)

    def _options(self, req: bot_pb2.DecisionRequest) -> list[Option]:
        cache = self.option_cache.setdefault(req.match_id, {})
        out = []
        for msg in req.options:
            key = msg.SerializeToString(deterministic=True)
            opt = cache.get(key)
            if opt is None:
                opt = cache[key] = codec.option_from(msg)
            out.append(opt)
        return out

    def _turn(self, req: bot_pb2.DecisionRequest, rejected: str) -> Turn:
        obs = self.observations.get((req.match_id, req.seat))
        return decode_turn(req, self.games.get(req.match_id, ""), rejected, obs, self._options(req))

    def _spawn(self, req: bot_pb2.DecisionRequest, rejected: str) -> None:
        if not self.threaded:
            # In-loop bots answer at once: no task, one event-loop turn less per decision.
            self._answer(req, rejected)
            return
        task = asyncio.get_running_loop().create_task(self._decide(req, rejected))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _answer(self, req: bot_pb2.DecisionRequest, rejected: str) -> None:
        try:
            option_id, note = ask(self._bot(req.match_id, req.seat), self._turn(req, rejected))
        except Exception:
            # A bot's exception is the bot's bug: log it and let the referee's clock decide.
            log.exception("bot failed on match %s decision %s", req.match_id, req.decision_id)
            return
        self._send_answer(req, option_id, note)

    async def _decide(self, req: bot_pb2.DecisionRequest, rejected: str) -> None:
        try:
            turn = self._turn(req, rejected)
            bot = self._bot(req.match_id, req.seat)
            option_id, note = await asyncio.to_thread(ask, bot, turn)
        except Exception:
            # A bot's exception is the bot's bug: log it and let the referee's clock decide.
            log.exception("bot failed on match %s decision %s", req.match_id, req.decision_id)
            return
        self._send_answer(req, option_id, note)

    def _send_answer(self, req: bot_pb2.DecisionRequest, option_id: str, note: str) -> None:
        self.emit(
            bot_pb2.ConnectRequest(
                answer=bot_pb2.Answer(
                    match_id=req.match_id, decision_id=req.decision_id, option_id=option_id, note=note
                )
            )
        )
