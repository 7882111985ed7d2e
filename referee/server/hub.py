"""The referee's state: connected bot sessions, running matches, and who plays which seat.

:class:`Referee` is the object the gRPC servicers (and ``brawl play``) drive. It starts matches,
gives their seats to sessions of the right bots with free capacity, routes answers to matches by
match id, re-attaches a reconnecting bot to the matches it left, and keeps finished matches for
``GetMatch``/``ListMatches``. Everything runs on one asyncio loop; nothing here blocks.

It is not the network layer (:mod:`referee.server.service`) nor the match policy
(:mod:`referee.server.match`). State is in memory, but with the Redis relay every match is also
journaled (:mod:`referee.server.journal`): when a referee dies another one adopts its matches
(:meth:`Referee.adopt`) and plays them on; without Redis a restart loses them (the workers
reschedule them).
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from brawl.bot.v1 import bot_pb2

from referee.core import ids
from referee.core.errors import ConfigError
from referee.core.fairness import seed_commitment
from referee.core.ids import BotId, MatchId, Seat
from referee.core.registry import UnknownGameError, game_names, get_game
from referee.protocol import codec, delta
from referee.protocol.timecontrol import defaults_for
from referee.sdk.host import BotHost
from referee.sdk.house import UnknownHouseBotError, house_factory
from referee.server import journal as journals
from referee.server import metrics
from referee.server.auth import BotIdentity, TokenStore
from referee.server.collector import COLLECTOR
from referee.server.match import MatchHooks, MatchRunner, MatchState, SeatLink, SeatSpec, loop_time, new_match_id
from referee.server.outgoing import Outgoing, as_bytes, as_message
from referee.server.sinks import ResultSink

if TYPE_CHECKING:
    from referee.server.relay import RedisRelay

log = logging.getLogger(__name__)

MAX_AUTO_PASS_KINDS = 32
"""Most decision kinds a Hello may list in ``auto_pass_kinds``."""
MAX_AUTO_PASS_KIND_CHARS = 64
"""Longest decision kind a Hello may list in ``auto_pass_kinds``."""


@dataclass(frozen=True)
class RefereeSettings:
    """Limits of one referee process."""

    max_message_bytes: int = 64 * 1024
    """Largest message accepted from a bot, bytes."""
    ping_interval: float = 2.0
    """Seconds between round-trip probes on each session."""
    hello_timeout: float = 10.0
    """Seconds a new stream has to send its Hello."""
    max_matches_per_session: int = 256
    """Cap on the seats one session may ask for."""
    default_join_timeout: float = 10.0
    """Seconds a match waits for its bots when StartMatch does not say."""
    keep_finished: int = 1_000
    """Finished matches kept in memory for GetMatch, ListMatches and late spectators (each is shed of
    what only a running match needs; the database and the replay store keep them for good)."""
    keep_finished_state: int = 32
    """Of those, the newest whose engine state and event log are kept too (the bulk of a finished
    match's memory); older ones keep their record and final public view only."""
    max_pending_matches: int = 1_000
    """Matches that may wait for their bots at once; StartMatch beyond it is RESOURCE_EXHAUSTED."""
    revalidate_interval: float = 10.0
    """Seconds between re-checks of every live session's token; a revoked token closes its sessions."""
    parallel_windows: bool = True
    """Ask every seat of an out-of-turn window at once; ``False`` asks them one by one (for comparison)."""


class StartError(ValueError):
    """A StartMatch request is invalid; the message says why."""


class AlreadyExistsError(StartError):
    """The match id is taken by a different request."""


class Outbox:
    """A session's outgoing messages, for its one writer: a deque and at most one waiting ``get``.

    Lighter than ``asyncio.Queue`` (pure Python, with a size bound, task counting and a loop
    lookup per wait that this queue has no use for): it is touched twice per message.
    """

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Outgoing | None] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def put_nowait(self, item: Outgoing | None) -> None:
        """Appends ``item`` and wakes the writer if it waits."""
        self._items.append(item)
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    async def get(self) -> Outgoing | None:
        """The oldest message, waiting for one if there is none."""
        items = self._items
        while not items:
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            w = self._waiter = self._loop.create_future()
            await w
        return items.popleft()

    def qsize(self) -> int:
        """Messages waiting."""
        return len(self._items)

    def take_batch(self, first: bytes, limit: int, max_bytes: int) -> list[bytes]:
        """``first`` and, serialised, the messages waiting behind it: at most ``limit`` in all and
        ``max_bytes`` together (``first`` always), never past the end-of-stream mark."""
        out = [first]
        size = len(first)
        items = self._items
        while items and len(out) < limit:
            head = items[0]
            if head is None:
                break
            b = as_bytes(head)
            if size + len(b) > max_bytes:
                break
            items.popleft()
            out.append(b)
            size += len(b)
        return out


class BotSession:
    """One connected bot process (one ``Connect`` stream): a :class:`SeatLink` for its seats."""

    def __init__(self, identity: BotIdentity, games: frozenset[str], max_matches: int, token: str = "") -> None:
        self.link_id = f"s-{uuid.uuid4().hex[:12]}"
        self.identity = identity
        self.token = token
        """The token the session authenticated with, kept to re-check it (never logged or sent)."""
        self.revoked = False
        """Set when a re-check found the token revoked: the session takes no seat and is closing."""
        self.games = games
        self.max_matches = max_matches
        self.outbox = Outbox()
        self.seats: set[tuple[MatchId, Seat]] = set()
        self.closed = False
        self._rtts: deque[float] = deque(maxlen=5)
        self._pings: dict[int, float] = {}
        self._next_ping = 1
        self.full_observations = False
        """The Hello asked for whole observations instead of patches (``Hello.full_observations``)."""
        self.auto_pass_kinds: frozenset[str] = frozenset()
        """Window decision kinds answered "pass" for when it is the only option (``Hello.auto_pass_kinds``)."""
        self.batching = False
        """The Hello asked for ``ResponseBatch``es (``Hello.batching``): messages waiting together go as one."""
        self._views: dict[tuple[str, int], tuple[str, Any]] = {}
        """For a full-observation session: (game, observation JSON form) per (match, seat)."""

    def send(self, message: Outgoing) -> None:
        """Queues a message for the bot (dropped once the session is closed)."""
        if not self.closed:
            if self.full_observations:
                message = self._with_full_observation(as_message(message))
            self.outbox.put_nowait(message)

    def _with_full_observation(self, message: bot_pb2.ConnectResponse) -> bot_pb2.ConnectResponse:
        """Turns a patched DecisionRequest into one with the whole observation.

        Runners always send patches; the session applies them here, so a full-observation bot is
        served the same way whether its match runs on this referee or is relayed from another.
        """
        kind = message.WhichOneof("message")
        if kind == "match_start":
            s = message.match_start
            self._views[(s.match_id, s.seat)] = (s.game, codec.payload_data(s.observation))
        elif kind == "decision_request" and not message.decision_request.HasField("observation"):
            req = message.decision_request
            key = (req.match_id, req.seat)
            if key not in self._views:
                # Every runner sends a MatchStart before the first request of a seat; a request
                # without one is a referee bug: send it patched rather than lose the decision.
                log.error("session %s: no observation held for match %s seat %d", self.link_id, *key)
                return message
            game, view = self._views[key]
            view = delta.apply_patch(view, req.observation_patch)
            self._views[key] = (game, view)
            out = bot_pb2.ConnectResponse()
            out.decision_request.CopyFrom(req)
            out.decision_request.ClearField("observation_patch")
            codec.fill_observation(out.decision_request.observation, game, view)
            return out
        elif kind == "match_end":
            self._views.pop((message.match_end.match_id, message.match_end.seat), None)
        return message

    def close(self) -> None:
        """Stops the session's writer."""
        if not self.closed:
            self.closed = True
            self.outbox.put_nowait(None)

    def rtt_credit(self, cap: float) -> float:
        """The median of the last round trips, at most ``cap``; 0 before any was measured."""
        if not self._rtts:
            return 0.0
        return min(cap, statistics.median(self._rtts))

    def ping(self) -> None:
        """Sends a round-trip probe."""
        pid = self._next_ping
        self._next_ping += 1
        self._pings[pid] = loop_time()
        if len(self._pings) > 16:  # a bot that never pongs must not grow this forever
            self._pings.pop(min(self._pings))
        self.send(bot_pb2.ConnectResponse(ping=bot_pb2.Ping(ping_id=pid)))

    def pong(self, ping_id: int, received_at: float) -> None:
        """Records the round trip of a pong; unknown ids are ignored."""
        sent = self._pings.pop(ping_id, None)
        if sent is not None:
            self._rtts.append(received_at - sent)

    @property
    def free(self) -> int:
        """Seats this session may still take."""
        return self.max_matches - len(self.seats)


class LocalLink:
    """A seat played in-process (a house bot, or a bot in ``brawl play``): the SDK host, no network."""

    def __init__(
        self, name: str, factory: Callable[[], Any], submit: Callable[[LocalLink, bot_pb2.Answer], None], threaded: bool
    ) -> None:
        self.link_id = f"local-{name}-{uuid.uuid4().hex[:8]}"
        self._submit = submit
        self.host = BotHost(factory, self._emit, threaded=threaded)

    def _emit(self, request: bot_pb2.ConnectRequest) -> None:
        if request.WhichOneof("message") == "answer":
            self._submit(self, request.answer)

    def send(self, message: Outgoing) -> None:
        """Hands the message to the bot host on the next loop iteration."""
        asyncio.get_running_loop().call_soon(self.host.handle, as_message(message))

    def rtt_credit(self, cap: float) -> float:
        """No network: no credit."""
        return 0.0


@dataclass
class _Entry:
    runner: MatchRunner
    request_id: str
    task: asyncio.Task[Any] | None = None


@dataclass
class Referee:
    """The referee hub. See the module docstring.

    Args:
        tokens: Authenticates bots.
        sink: Records finished matches.
        settings: Limits.
    """

    tokens: TokenStore
    sink: ResultSink
    settings: RefereeSettings = field(default_factory=RefereeSettings)
    sessions: dict[str, BotSession] = field(default_factory=dict)
    matches: dict[MatchId, _Entry] = field(default_factory=dict)
    accepting: bool = True
    relay: RedisRelay | None = None
    """Seat relay to other referees (``None``: this referee only plays bots connected to it)."""
    _requests: dict[str, MatchId] = field(default_factory=dict)
    _orphans: dict[BotId, set[tuple[MatchId, Seat]]] = field(default_factory=dict)
    _finished_order: deque[MatchId] = field(default_factory=deque)

    # ----- matches -----------------------------------------------------------------------

    def start_match(
        self,
        *,
        game: str,
        seats: Sequence[SeatSpec],
        config: Mapping[str, Any] | None = None,
        seed: int = 0,
        time_control: bot_pb2.TimeControl | None = None,
        match_id: str = "",
        request_id: str = "",
        join_timeout: float = 0.0,
        labels: Mapping[str, str] | None = None,
        local_factories: Mapping[int, Callable[[], Any]] | None = None,
        threaded_local: bool = False,
    ) -> MatchRunner:
        """Starts a match and returns its runner; idempotent on ``request_id``.

        ``local_factories`` plays the given seats in-process with those bot classes (``brawl
        play``); house seats are always in-process.

        Raises:
            StartError: unknown game or house bot, bad config or time control, no seats, an
                invalid ``match_id`` (:func:`referee.core.ids.id_problem`).
            AlreadyExistsError: ``match_id`` belongs to another request.
        """
        if request_id and request_id in self._requests:
            return self.matches[self._requests[request_id]].runner
        if not self.accepting:
            raise StartError("the referee is shutting down and accepts no new match")
        try:
            mid = ids.match_id(match_id) if match_id else new_match_id()
        except ids.InvalidIdError as exc:
            raise StartError(str(exc)) from exc
        if mid in self.matches:
            raise AlreadyExistsError(f"match {mid!r} already exists")
        try:
            g = get_game(game)
            g.info.check_seats(len(seats))
            full_config = g.parse_config(dict(config or {}), len(seats))
            time = defaults_for(game).merged(time_control)
        except (UnknownGameError, ConfigError, ValueError) as exc:
            raise StartError(str(exc)) from exc
        local = dict(local_factories or {})
        for i, spec in enumerate(seats):
            if i in local:
                continue
            if spec.house_bot is not None:
                try:
                    # Each instance draws its own seed: one derived from the match seed would
                    # spell the seed out in the bot's moves (docs/security.md, house bots).
                    local[i] = house_factory(game, spec.house_bot)
                except UnknownHouseBotError as exc:
                    raise StartError(str(exc)) from exc
            elif not spec.bot_id:
                raise StartError(f"seat {i} names neither a bot_id nor a house_bot")
        meta = {
            # Published while the match runs; the replay reveals the seed it commits to.
            "seed_commitment": commitment_of(mid, seed),
            "bots": [s.bot_id or f"house:{s.house_bot}" for s in seats],
            "labels": dict(labels or {}),
            "time_control": {
                "decision_time": time.decision_time,
                "bank_time": time.bank_time,
                "max_overrun": time.max_overrun,
                "max_strikes": time.max_strikes,
            },
        }
        runner = MatchRunner(
            mid,
            g,
            full_config,
            seed,
            seats,
            time,
            self.sink,
            meta=meta,
            join_timeout=join_timeout or self.settings.default_join_timeout,
            hooks=MatchHooks(on_finished=self._finished, release=self._release),
            labels=labels,
            journal=self.journal,
            record=journals.start_record(
                match_id=mid,
                game=game,
                config=full_config,
                seed=seed,
                seats=seats,
                time=time,
                meta=meta,
                labels=dict(labels or {}),
                join_timeout=join_timeout or self.settings.default_join_timeout,
                request_id=request_id,
            )
            if self.journal is not None
            else None,
            parallel_windows=self.settings.parallel_windows,
        )
        entry = _Entry(runner, request_id)
        self.matches[mid] = entry
        if request_id:
            self._requests[request_id] = mid
        for i, factory in local.items():
            link = LocalLink(runner.recorder.replay.seats[i], factory, self._local_submit(runner), threaded_local)
            runner.attach(Seat(i), link)
        self._assign(runner)
        entry.task = asyncio.get_running_loop().create_task(runner.run(), name=f"match-{mid}")
        return runner

    @staticmethod
    def _local_submit(runner: MatchRunner) -> Callable[[LocalLink, bot_pb2.Answer], None]:
        def submit(link: LocalLink, answer: bot_pb2.Answer) -> None:
            runner.submit(link, answer)

        return submit

    def get_by_request(self, request_id: str) -> MatchRunner | None:
        """Returns the runner a StartMatch with ``request_id`` started, or ``None``."""
        mid = self._requests.get(request_id) if request_id else None
        return self.get(mid) if mid is not None else None

    def pending_count(self) -> int:
        """Matches waiting for their bots (counted against ``settings.max_pending_matches``)."""
        return sum(1 for e in self.matches.values() if e.runner.state is MatchState.PENDING)

    def get(self, match_id: str) -> MatchRunner | None:
        """Returns the runner of ``match_id``, or ``None``."""
        entry = self.matches.get(MatchId(match_id))
        return entry.runner if entry else None

    def cancel(self, match_id: str, reason: str) -> MatchRunner | None:
        """Cancels a match; returns its runner, or ``None`` when unknown."""
        runner = self.get(match_id)
        if runner is not None:
            runner.cancel(reason or "cancelled by the referee API")
        return runner

    def list(self, state: MatchState | None = None) -> list[MatchRunner]:
        """Returns the matches, newest first, optionally only those in ``state``."""
        runners = [e.runner for e in self.matches.values()]
        if state is not None:
            runners = [r for r in runners if r.state is state]
        return sorted(runners, key=lambda r: r.create_time, reverse=True)

    def _finished(self, runner: MatchRunner) -> None:
        for orphans in self._orphans.values():
            orphans -= {o for o in orphans if o[0] == runner.match_id}
        if runner.abandoned:
            # Another referee plays it: GetMatch here must say NOT_FOUND, so the workers look for it.
            entry = self.matches.get(runner.match_id)
            if entry is not None and entry.runner is runner:
                del self.matches[runner.match_id]
                if entry.request_id and self._requests.get(entry.request_id) == runner.match_id:
                    del self._requests[entry.request_id]
            return
        COLLECTOR.collect_young()  # before dropping the match's caches and an older match's state
        runner.shed()
        self._finished_order.append(runner.match_id)
        keep = self.settings.keep_finished_state
        if len(self._finished_order) > keep:
            aged = self.matches.get(self._finished_order[-keep - 1])
            if aged is not None:
                aged.runner.release()
                if aged.task is not None and aged.task.done():
                    aged.task = None  # its result is the whole replay
        while len(self._finished_order) > self.settings.keep_finished:
            old = self._finished_order.popleft()
            entry = self.matches.pop(old, None)
            if entry is not None and entry.request_id:
                self._requests.pop(entry.request_id, None)

    def _release(self, runner: MatchRunner, link: SeatLink) -> None:
        if isinstance(link, BotSession):
            link.seats -= {k for k in link.seats if k[0] == runner.match_id}
            self._assign_all()
            self._presence_changed()
        elif self.relay is not None:
            from referee.server.relay import RelayLink

            if isinstance(link, RelayLink):
                self.relay.release(link)

    async def wait_all(self, timeout: float | None = None) -> None:
        """Waits for every running match to end."""
        tasks = [e.task for e in self.matches.values() if e.task is not None and not e.task.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def shutdown(self, grace: float) -> None:
        """Stops accepting matches, lets running ones finish for ``grace`` seconds, then ends the rest.

        With a journal the rest are handed over (another referee adopts and finishes them);
        without one they are cancelled.
        """
        self.accepting = False
        await self.wait_all(grace)
        for entry in list(self.matches.values()):
            if not entry.runner.is_over():
                if entry.runner.journal is not None:
                    entry.runner.hand_over()
                else:
                    entry.runner.cancel("the referee is shutting down")
        await self.wait_all(5.0)

    @property
    def journal(self) -> journals.RedisJournal | None:
        """The match journal (with the Redis relay), or ``None``: matches then die with this referee."""
        return self.relay.journal if self.relay is not None else None

    def adopt(self, record: Mapping[str, Any]) -> MatchRunner | None:
        """Takes over the match of a journal start record whose referee died; ``None`` if already here.

        The runner claims the journal when it runs (exactly one referee wins the claim; the
        others drop their runner), replays the log, and gives the seats to the bots as they
        come back: to sessions here, through the relay, or when they connect.

        Raises:
            UnknownGameError, ConfigError, UnknownHouseBotError: the record does not fit this referee.
        """
        mid = MatchId(record["match_id"])
        if not self.accepting or self.journal is None or mid in self.matches:
            return None
        g = get_game(record["game"])
        seats = [
            SeatSpec(bot_id=bot_id, house_bot=s.get("house_bot"), name=s["name"])
            for s, bot_id in zip(record["seats"], journals.seat_bot_ids(record), strict=True)
        ]
        seed = int(record["seed"])
        local = {
            i: house_factory(g.info.name, spec.house_bot) for i, spec in enumerate(seats) if spec.house_bot is not None
        }
        runner = MatchRunner(
            mid,
            g,
            g.parse_config(dict(record["config"]), len(seats)),
            seed,
            seats,
            journals.time_settings(record),
            self.sink,
            meta=record["meta"],
            join_timeout=float(record["join_timeout"]),
            hooks=MatchHooks(on_finished=self._finished, release=self._release),
            labels=record["labels"],
            journal=self.journal,
            resume=True,
            parallel_windows=self.settings.parallel_windows,
        )
        request_id = str(record.get("request_id", ""))
        self.matches[mid] = _Entry(runner, request_id)
        if request_id:
            self._requests[request_id] = mid
        for i, factory in local.items():
            link = LocalLink(runner.recorder.replay.seats[i], factory, self._local_submit(runner), False)
            runner.attach(Seat(i), link)
        self._assign(runner)
        for st in runner.seats:
            if st.spec.bot_id is not None and st.link is None:
                # Its bot may reconnect here later (its SDK tries every referee it knows).
                self._orphans.setdefault(st.spec.bot_id, set()).add((mid, st.seat))
        self.matches[mid].task = asyncio.get_running_loop().create_task(runner.run(), name=f"match-{mid}")
        return runner

    # ----- sessions ----------------------------------------------------------------------

    def open_session(self, identity: BotIdentity, hello: bot_pb2.Hello, token: str = "") -> BotSession:
        """Registers a new session for ``identity``; re-attaches seats it left behind.

        An empty ``hello.games`` means every game the token allows: the token's games, or every
        game this referee knows when the token names none; the Welcome lists them.

        Raises:
            StartError: the Hello asks for no game the bot may play.
        """
        asked = set(hello.games)
        allowed = {g for g in asked if identity.may_play(g)} if asked else set(identity.games or game_names())
        if not allowed:
            raise StartError(
                f"this bot may play {sorted(identity.games)!r}; the Hello asked only for {sorted(asked)!r}"
            )
        kinds = list(hello.auto_pass_kinds)
        if len(kinds) > MAX_AUTO_PASS_KINDS or any(not k or len(k) > MAX_AUTO_PASS_KIND_CHARS for k in kinds):
            raise StartError(
                f"Hello.auto_pass_kinds takes at most {MAX_AUTO_PASS_KINDS} non-empty kinds of at most "
                f"{MAX_AUTO_PASS_KIND_CHARS} characters; got {len(kinds)}: {[k[:70] for k in kinds[:5]]!r}"
            )
        cap = max(1, min(hello.max_matches or 1, self.settings.max_matches_per_session))
        session = BotSession(identity, frozenset(allowed), cap, token)
        session.full_observations = hello.full_observations
        session.auto_pass_kinds = frozenset(kinds)
        session.batching = hello.batching
        self.sessions[session.link_id] = session
        metrics.BOT_SESSIONS.inc()
        self._presence_changed()
        self._adopt_orphans(identity.bot_id)
        return session

    def _adopt_orphans(self, bot_id: BotId) -> None:
        """Gives the seats ``bot_id`` left behind to one of its live sessions, if it has one."""
        left = self._orphans.pop(bot_id, set())
        for match_id, seat in sorted(left):
            runner = self.get(match_id)
            if runner is None or runner.is_over():
                continue
            live = [s for s in self.sessions.values() if s.identity.bot_id == bot_id and not s.closed and not s.revoked]
            session = next((s for s in live if self._plays(s, runner.name)), None)
            if session is None:
                self._orphans.setdefault(bot_id, set()).add((match_id, seat))
                continue
            session.seats.add((match_id, seat))
            runner.attach(seat, session)

    @staticmethod
    def _plays(session: BotSession, game: str) -> bool:
        return (not session.games or game in session.games) and session.identity.may_play(game)

    def close_session(self, session: BotSession) -> None:
        """Forgets a session whose stream ended; its matches start their reconnect grace.

        Safe to call more than once (the stream's ``finally`` and its done-callback both call it).
        """
        session.close()
        if self.sessions.pop(session.link_id, None) is None:
            return
        metrics.BOT_SESSIONS.dec()
        for match_id, seat in list(session.seats):
            runner = self.get(match_id)
            if runner is not None and not runner.is_over():
                self._orphans.setdefault(session.identity.bot_id, set()).add((match_id, seat))
                runner.detach(session)
        if self.relay is not None:
            self.relay.session_closed(session)
        session.seats.clear()
        # A bot that reconnected before its old stream was found dead is already here.
        self._adopt_orphans(session.identity.bot_id)
        self._presence_changed()

    async def revalidate(self, bot_ids: set[BotId] | None = None) -> int:
        """Re-checks the tokens of live sessions (of ``bot_ids``, or all); closes the revoked ones.

        A closed session's seats follow the reconnect-grace rules, as after any dropped stream.
        Each distinct token is asked of the store once. Returns how many sessions were closed.
        """
        live = [
            s
            for s in list(self.sessions.values())
            if not s.closed and not s.revoked and (bot_ids is None or s.identity.bot_id in bot_ids)
        ]
        verdicts: dict[str, bool] = {}
        closed = 0
        # A store with a cache (WebTokenStore) offers ``recheck``, which always asks: a revocation
        # is seen at the next round whatever the cache holds.
        check = getattr(self.tokens, "recheck", self.tokens.authenticate)
        for session in live:
            if session.token not in verdicts:
                try:
                    verdicts[session.token] = await check(session.token) is not None
                except Exception:
                    # The store being down is no proof of revocation: keep the session, log it.
                    log.exception("token re-check failed for bot %r", session.identity.bot_id)
                    verdicts[session.token] = True
            if not verdicts[session.token] and not session.closed:
                log.info("bot %r: token revoked; closing session %r", session.identity.bot_id, session.link_id)
                session.revoked = True
                session.close()
                closed += 1
        return closed

    async def revalidate_forever(self) -> None:
        """Runs :meth:`revalidate` every ``settings.revalidate_interval`` seconds until cancelled."""
        while True:
            await asyncio.sleep(self.settings.revalidate_interval)
            try:
                await self.revalidate()
            except Exception:
                log.exception("token re-check round failed")

    def orphan(self, bot_id: BotId, match_id: MatchId, seat: Seat) -> None:
        """Marks a seat as waiting for ``bot_id`` to come back (to any referee)."""
        self._orphans.setdefault(bot_id, set()).add((match_id, seat))

    def _presence_changed(self) -> None:
        if self.relay is not None:
            asyncio.get_running_loop().create_task(self.relay.publish_presence())

    def session_for(self, bot_id: BotId, game: str) -> BotSession | None:
        """Returns the local session of ``bot_id`` with the most free seats for ``game``, if any."""
        candidates = [
            s
            for s in self.sessions.values()
            if s.identity.bot_id == bot_id and s.free > 0 and not s.closed and not s.revoked and self._plays(s, game)
        ]
        return max(candidates, key=lambda s: s.free) if candidates else None

    def route_answer(self, session: BotSession, answer: bot_pb2.Answer, received_at: float) -> None:
        """Hands an answer to its match; unknown matches get an Error back."""
        runner = self.get(answer.match_id)
        # A look-up per seat of the match, not a walk over the session's seats (100 at 100 matches).
        if runner is None or not any((runner.match_id, st.seat) in session.seats for st in runner.seats):
            if self.relay is not None and self.relay.forward_answer(session, answer):
                return
            session.send(
                bot_pb2.ConnectResponse(
                    error=bot_pb2.Error(
                        code=bot_pb2.ERROR_CODE_UNKNOWN_MATCH,
                        message=f"this session has no seat in match {answer.match_id!r}",
                        match_id=answer.match_id,
                        decision_id=answer.decision_id,
                    )
                )
            )
            return
        runner.submit(session, answer, received_at)

    def route_resign(self, session: BotSession, match_id: str) -> None:
        """Forfeits the seats ``session`` plays in match ``match_id``; a match it has no seat in gets an Error."""
        runner = self.get(match_id)
        if runner is None or not any((runner.match_id, st.seat) in session.seats for st in runner.seats):
            session.send(
                bot_pb2.ConnectResponse(
                    error=bot_pb2.Error(
                        code=bot_pb2.ERROR_CODE_UNKNOWN_MATCH,
                        message=f"this session has no seat in match {match_id!r} on this referee to resign",
                        match_id=match_id,
                    )
                )
            )
            return
        runner.resign(session)

    def _assign_all(self) -> None:
        for entry in list(self.matches.values()):
            if entry.runner.state is MatchState.PENDING and entry.runner.unlinked_seats():
                self._assign(entry.runner)

    def _assign(self, runner: MatchRunner) -> None:
        for st in runner.unlinked_seats():
            bot_id = st.spec.bot_id
            if bot_id is None:
                continue
            session = self.session_for(bot_id, runner.name)
            if session is None:
                if self.relay is not None:
                    self.relay.want_seat(runner, st.seat, bot_id)
                continue
            session.seats.add((runner.match_id, st.seat))
            runner.attach(st.seat, session)

    def on_session_ready(self) -> None:
        """Called when a session opened or freed capacity: give it waiting seats."""
        self._assign_all()


def commitment_of(match_id: str, seed: int) -> str:
    """The seed commitment of a match (see :mod:`referee.core.fairness`); empty for a seed out of range."""
    try:
        return seed_commitment(match_id, seed)
    except ValueError:
        return ""
