"""One match run by the referee: the seat links, the clocks, strikes, forfeits and spectators.

A :class:`MatchRunner` drives a :class:`referee.core.replay.Recorder` as an asyncio task. It sends
each decision to the seat's :class:`SeatLink` (a remote bot's session, or an in-process bot),
waits for a valid answer until the deadline, applies it (or the decision's default option), and
records every timeout, illegal answer, disconnect and forfeit as a replay incident. When the match
ends it tells every seat, hands the replay to the :class:`~referee.server.sinks.ResultSink`
exactly once, and closes the spectators' streams.

With a journal (:mod:`referee.server.journal`, on whenever the referee has the Redis relay) the
runner makes the match durable as it goes: the start record before the first request, and every
decision and incident before the next request goes out. A runner built with ``resume=True`` (a
takeover) claims the journal of a match whose referee died, replays its log through the same
``Recorder``, waits up to the reconnect grace for the bots to come back (to any referee), and plays
on. Time is charged fairly across a takeover: each seat keeps the bank journaled with the last
decision; the decision that was pending when the old referee died is asked again (same decision
id, same events) with its full decision time once every seat is back, so the outage is charged to
nobody. A runner that finds the journal owned by another live referee, or whose append is refused
because another referee took the match over, drops the match: it tells no bot and records nothing.

This is policy, not rules: the engine is only called through the contract's verbs. It is not the
session or network layer either (see :mod:`referee.server.hub`): a link only has ``send``. Its
parts live beside it: the clock arithmetic in :mod:`referee.server.clocks`, the books on seats and
pending decisions in :mod:`referee.server.state`, the messages in :mod:`referee.server.messages`,
the spectators in :mod:`referee.server.spectators`, the journal's log format in
:mod:`referee.server.journal`; the takeover's policy is below.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from brawl.bot.v1 import bot_pb2
from brawl.referee.v1 import referee_pb2

from common import logsetup
from referee.core.contract import Game, Outcome, Termination
from referee.core.errors import EngineError
from referee.core.ids import MatchId, Seat
from referee.core.replay import FINISH_STEP, STRIKE_KINDS, IncidentKind, Recorder, Replay
from referee.protocol import codec
from referee.protocol.timecontrol import TimeSettings
from referee.server import clocks, metrics
from referee.server import journal as journals
from referee.server.clocks import loop_time, time_now, timestamp
from referee.server.collector import COLLECTOR
from referee.server.journal import JournalFenced, RedisJournal
from referee.server.messages import MatchMessages
from referee.server.outgoing import Outgoing
from referee.server.sinks import ResultSink
from referee.server.spectators import Spectators
from referee.server.state import STATE_PROTO, MatchState, Pending, SeatLink, SeatSpec, SeatState

__all__ = [
    "STATE_PROTO",
    "HandedOver",
    "MatchHooks",
    "MatchRunner",
    "MatchState",
    "SeatLink",
    "SeatSpec",
    "loop_time",
    "new_match_id",
    "time_now",
    "timestamp",
]

log = logging.getLogger(__name__)

MAX_NOTE_CHARS = 280
"""Longest note kept from an answer (the replay format's limit)."""


class HandedOver(Exception):
    """The referee is shutting down and leaves the match to another referee (see ``hand_over``)."""


@dataclass
class MatchHooks:
    """Callbacks to the owner of the runner (the referee hub or the local runner)."""

    on_seated: Callable[[MatchRunner], None] = lambda runner: None
    """Every seat has a link: play begins."""
    on_finished: Callable[[MatchRunner], None] = lambda runner: None
    """The match has ended and its replay is recorded (or recording failed)."""
    release: Callable[[MatchRunner, SeatLink], None] = lambda runner, link: None
    """The match no longer needs ``link`` (capacity accounting)."""


class MatchRunner:
    """Runs one match. Create it, attach links with :meth:`attach`, then await :meth:`run`.

    Args:
        match_id: The match id.
        game: The game.
        config: A config from ``game.parse_config``.
        seed: The match seed.
        seats: Who plays each seat.
        time: The time control.
        sink: Where the replay goes.
        meta: Stored in the replay.
        join_timeout: Seconds to wait for every seat to be linked.
        hooks: Callbacks to the owner.
        labels: Free-form labels (the referee API's).
        journal: Makes the match durable (``None``: it dies with this referee).
        record: The start record written to the journal for a new match.
        resume: Take the match over from its journal instead of starting it.
        parallel_windows: Ask every seat of an out-of-turn window at once (``Decision.window``);
            ``False`` asks them one after another (the same decisions and replay, for comparison).

    Raises:
        ConfigError: from the engine, when the config does not suit the seat count.
    """

    yield_between: bool = True
    """Yield to the loop between applying the answers and asking the next decision (one loop
    iteration per decision; off only to measure what the yield costs and saves)."""
    step_cpu: bool = False
    """Also time each step in the loop thread's CPU time (``max_step_cpu_seconds``). Off by default:
    the thread CPU clock is a system call, much dearer than a ``perf_counter`` read, and this adds
    two per decision for a diagnostic (the cost: docs/benchmarks.md, "Figures moved out of the code")."""
    finish_step: int = FINISH_STEP
    """Events the replay's digest takes between two yields to the loop when the match ends."""

    def __init__(
        self,
        match_id: MatchId,
        game: Game,
        config: Mapping[str, Any],
        seed: int,
        seats: Sequence[SeatSpec],
        time: TimeSettings,
        sink: ResultSink,
        meta: Mapping[str, Any] | None = None,
        join_timeout: float = 10.0,
        hooks: MatchHooks | None = None,
        labels: Mapping[str, str] | None = None,
        journal: RedisJournal | None = None,
        record: Mapping[str, Any] | None = None,
        resume: bool = False,
        parallel_windows: bool = True,
    ) -> None:
        self.match_id = match_id
        self.game = game
        self.name = game.info.name
        self.seed = seed
        self.time = time
        self.sink = sink
        self.join_timeout = join_timeout
        self.hooks = hooks or MatchHooks()
        self.labels = dict(labels or {})
        names = [s.name or (s.bot_id or f"house:{s.house_bot}") for s in seats]
        self.recorder = Recorder(game, config, seed, names, {"match_id": match_id, **(meta or {})})
        self.config = self.recorder.replay.config
        self.seats = [SeatState(Seat(i), spec, time.bank_time) for i, spec in enumerate(seats)]
        self.state = MatchState.PENDING
        self.create_time = time_now()
        self.start_time: float | None = None
        self.end_time: float | None = None
        self.replay_uri = ""
        self.replay: Replay | None = None
        self.error = ""
        self.pending: Pending | None = None
        """The first unanswered decision being waited for (of a window: the first in the engine's order)."""
        self.pendings: list[Pending] = []
        """Every decision being waited for: one, or each seat of an out-of-turn window asked at once."""
        self.parallel_windows = parallel_windows
        self.event_total = len(self.recorder.match.events(0))
        """Length of the full event log, kept by counting what each apply returns."""
        self.max_step_seconds = 0.0
        """Longest step (applying the answers, then asking the next decision: the engine's work,
        the patch and the messages) seen, for the event-loop budget (wall time)."""
        self.max_step_cpu_seconds = 0.0
        """The same in this thread's CPU time, when :attr:`step_cpu` is on (else 0): the step's own
        work, without the time the process spent descheduled."""
        self._end: Outcome | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        """When :attr:`_timer` fires (:func:`loop_time`)."""
        self._seated = asyncio.Event()
        self.spectators = Spectators(
            match_id, self.name, self.recorder, lambda: (self.state, self.is_over()), lambda: self.event_total
        )
        self._private = game.info.private_decisions
        self.done = asyncio.Event()
        self._metrics = metrics.for_game(self.name)
        self.messages = MatchMessages(match_id, self.name, time)
        self.journal = journal
        self._start_record = dict(record) if record is not None else None
        self.resumed = resume
        """Taken over from the journal (the bots get ``MatchStart.resumed``)."""
        self._journaled = (0, 0)
        """Decisions and incidents already in the journal."""
        self.abandoned = False
        """The match was left to another referee: this runner recorded nothing."""
        self._handover = False
        self._lost = ""
        """Why another referee owns the match now (found before the next append would be refused)."""

    # ----- links -------------------------------------------------------------------------

    def unlinked_seats(self) -> list[SeatState]:
        """Seats that have never been linked (the hub fills them)."""
        return [s for s in self.seats if not s.ever_linked]

    def attach(self, seat: Seat, link: SeatLink) -> None:
        """Gives ``seat`` to ``link``: at the start, or when a disconnected bot comes back."""
        st = self.seats[seat]
        resumed = st.ever_linked
        st.link = link
        st.auto_pass = frozenset(getattr(link, "auto_pass_kinds", frozenset()))
        st.ever_linked = True
        if st.disconnected_at is not None:
            self.recorder.incident(seat, IncidentKind.RECONNECT, f"seat {seat} reconnected as {link.link_id}")
            st.disconnected_at = None
        if self.state is MatchState.RUNNING:
            self._send_start(st, resumed=resumed)
            for p in self.pendings:
                if p.decision.seat == seat and p.answer is None:
                    self._send_request(st, p)
        if not self.unlinked_seats() and not self._seated.is_set():
            self._seated.set()
        self._wake()

    def detach(self, link: SeatLink) -> None:
        """Tells the runner ``link`` is gone; its seats start their reconnect grace."""
        if self.is_over():
            return
        now = loop_time()
        for st in self.seats:
            if st.link is link:
                st.link = None
                st.disconnected_at = now
                self.recorder.incident(
                    st.seat,
                    IncidentKind.DISCONNECT,
                    f"seat {st.seat} disconnected; grace {self.time.reconnect_grace:g} s",
                )
        self._wake()

    def links(self) -> list[SeatLink]:
        """The distinct links currently playing seats."""
        out: list[SeatLink] = []
        for st in self.seats:
            if st.link is not None and st.link not in out:
                out.append(st.link)
        return out

    def seats_of(self, link: SeatLink) -> list[Seat]:
        """The seats ``link`` plays."""
        return [st.seat for st in self.seats if st.link is link]

    # ----- answers -----------------------------------------------------------------------

    def submit(self, link: SeatLink, answer: bot_pb2.Answer, received_at: float | None = None) -> None:
        """Takes an answer from ``link``; errors go back to the link as ``Error`` messages."""
        now = loop_time() if received_at is None else received_at
        p = self.pending_for(answer.decision_id)
        if p is not None and self.seats[p.decision.seat].link is not link:
            # Another seat's decision: answered as an id never issued, pending or not, so that no
            # answer tells whether (or how often) another seat is being asked.
            p = None
        if self.is_over():
            self._error(link, bot_pb2.ERROR_CODE_UNKNOWN_MATCH, "the match is over", answer.decision_id)
            return
        if p is None:
            if answer.decision_id and self.pendings and self._is_old(answer.decision_id, link):
                self._error(
                    link,
                    bot_pb2.ERROR_CODE_STALE_DECISION,
                    f"decision {answer.decision_id!r} is no longer pending (late, or already answered)",
                    answer.decision_id,
                )
                return
            mine = [q for q in self.pendings if q.answer is None and self.seats[q.decision.seat].link is link]
            if not answer.decision_id and mine:
                q = mine[0]
                st = self.seats[q.decision.seat]
                self._strike(
                    st, IncidentKind.MALFORMED_ANSWER, bot_pb2.ERROR_CODE_MALFORMED, "the answer has no decision_id", q
                )
                return
            self._error(
                link, bot_pb2.ERROR_CODE_STALE_DECISION, f"unknown decision {answer.decision_id!r}", answer.decision_id
            )
            return
        st = self.seats[p.decision.seat]
        if p.answer is not None:
            self._error(link, bot_pb2.ERROR_CODE_STALE_DECISION, "this decision is already answered", p.decision_id)
            return
        # The referee's own garbage-collection pauses since the request went out are not the seat's
        # time: an answer that waited unread through one is stamped as if read when it could be.
        now -= _paused_since(p)
        if now > p.hard_deadline:
            return  # the timer fires at once; the timeout path reports it
        if not answer.option_id:
            self._strike(
                st, IncidentKind.MALFORMED_ANSWER, bot_pb2.ERROR_CODE_MALFORMED, "the answer has no option_id", p
            )
            return
        if answer.option_id not in p.option_ids:
            legal = sorted(p.option_ids)
            shown = legal[:20] + (["..."] if len(legal) > 20 else [])
            self._strike(
                st,
                IncidentKind.ILLEGAL_ANSWER,
                bot_pb2.ERROR_CODE_ILLEGAL_OPTION,
                f"{answer.option_id[:100]!r} is not an offered option; offered: {shown!r}",
                p,
            )
            return
        p.answer = (answer.option_id, answer.note[:MAX_NOTE_CHARS], now)
        self._wake()

    def pending_for(self, decision_id: str) -> Pending | None:
        """Returns the decision being waited for with id ``decision_id``, if any."""
        for p in self.pendings:
            if p.decision_id == decision_id:
                return p
        return None

    def _is_old(self, decision_id: str, link: SeatLink) -> bool:
        """Whether ``decision_id``, not pending now, is one this runner issued to a seat ``link`` plays.

        Only the link's own seats count: whether another seat's id was issued is that seat's business
        (its decisions, private ones among them, are counted by nobody else)."""
        head, _, number = decision_id.rpartition("-")
        prefix, _, seat = head.rpartition("-")
        if prefix != self.match_id or not (seat.isdigit() and number.isdigit()) or len(seat) > 4:
            return False
        n, counts = int(seat), self.recorder.seat_decisions
        if n >= len(self.seats) or self.seats[n].link is not link:
            return False
        return int(number) < counts[n]

    def _strike(self, st: SeatState, kind: IncidentKind, code: bot_pb2.ErrorCode, detail: str, p: Pending) -> None:
        st.strikes += 1
        self._metrics.strike(kind)
        self.recorder.incident(st.seat, kind, f"{detail} (strike {st.strikes}/{self.time.max_strikes})")
        retry = st.strikes < self.time.max_strikes
        if st.link is not None:
            message = detail + ("; you may answer again before the deadline" if retry else "")
            st.link.send(self.messages.error(code, message, p.decision_id, retry=retry, strikes=st.strikes))
        if not retry:
            self._forfeit(st, f"seat {st.seat} reached {st.strikes} strikes")

    def resign(self, link: SeatLink) -> None:
        """The seats ``link`` plays resign: they forfeit together, as on time (a no-op once the match is over)."""
        mine = [st for st in self.seats if st.link is link]
        if not mine or self.is_over() or self._end is not None:
            return
        seats = [st.seat for st in mine]
        reason = f"seat {' and '.join(map(str, seats))} resigned"
        self._end = self.recorder.forfeit(seats, reason)
        self._wake()

    def _error(self, link: SeatLink, code: bot_pb2.ErrorCode, message: str, decision_id: str = "") -> None:
        link.send(self.messages.error(code, message, decision_id))

    def _forfeit(self, st: SeatState, reason: str) -> None:
        if self._end is None:
            self._end = self.recorder.forfeit([st.seat], reason)
            if st.link is not None:
                self._error(st.link, bot_pb2.ERROR_CODE_FORFEITED, reason)
        self._wake()

    def cancel(self, reason: str) -> None:
        """Ends the match as cancelled (counts for nobody)."""
        if self._end is None and not self.is_over():
            self._end = self.recorder.cancel(reason)
            self._seated.set()
        self._wake()

    async def wait(self) -> Replay | None:
        """Waits for the match to end and be recorded; returns the replay (``None`` if it failed)."""
        await self.done.wait()
        return self.replay

    def is_over(self) -> bool:
        """Whether the match has ended (its replay may still be being recorded)."""
        return self.end_time is not None

    def seed_revealed(self) -> bool:
        """Whether the API may show the seed: the match has its final state here (:attr:`done`, so
        no longer ``RUNNING``, the replay recorded) and was not handed to another referee, where
        it goes on. Not merely :meth:`is_over`: the end's own steps yield to the loop (the digest,
        the sink, the journal) while the state still says ``RUNNING``, and a dropped runner's
        match is still in play elsewhere."""
        return self.done.is_set() and not self.abandoned

    # ----- the loop ----------------------------------------------------------------------

    def _wake(self) -> None:
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    async def _sleep_until(self, when: float) -> None:
        """Waits until :func:`loop_time` reaches ``when`` or :meth:`_wake` is called.

        One timer serves many waits: a timer already set for ``when`` or earlier is kept (deadlines
        move forward decision after decision, so it fires early at most once, and the caller, which
        re-checks its deadlines in a loop, sleeps again); only an earlier ``when`` sets a new one.
        Most decisions so set no timer and cancel none.
        """
        loop = asyncio.get_running_loop() if self._loop is None else self._loop
        self._loop = loop
        self._waiter = loop.create_future()
        timer = self._timer
        if timer is None or self._timer_at > when:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_later(max(0.0, when - loop_time()), self._timer_fired)
            self._timer_at = when
        try:
            await self._waiter
        finally:
            self._waiter = None

    def _timer_fired(self) -> None:
        self._timer = None
        self._wake()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def run(self) -> Replay | None:
        """Plays the match to its end and records it; returns the replay (``None`` if it failed)."""
        with logsetup.bind(match_id=str(self.match_id)):  # on every record of this match's task
            try:
                return await self._run()
            finally:
                self._stop_timer()

    async def _run(self) -> Replay | None:
        try:
            if self.journal is not None and not await self._open_journal():
                return await self._drop()
            if self._end is None:
                await self._join()
            self._check_still_mine()
            if self._end is None:
                self.state = MatchState.RUNNING
                self.start_time = time_now()
                self._metrics.running.inc()
                self.hooks.on_seated(self)
                for st in self.seats:
                    self._send_start(st, resumed=self.resumed)
                if self._at_public_moment():
                    self._publish()  # else a takeover in a private window: _rebuild set the last public moment
                await self._play()
        except JournalFenced as exc:
            log.warning("match %s: %s; dropped here", self.match_id, exc)
            self.error = f"taken over by another referee: {exc}"
            return await self._drop()
        except HandedOver:
            return await self._drop()
        except EngineError as exc:
            log.exception("match %s: engine error", self.match_id)
            self.error = f"engine error: {exc}"
            self.cancel(self.error)
        except Exception as exc:
            log.exception("match %s: referee error", self.match_id)
            self.error = f"referee error: {exc!r}"
            self.cancel(self.error)
        return await self._finish()

    async def _join(self) -> None:
        if self._seated.is_set():
            return
        # After a takeover the bots have the reconnect grace to come back, as after a disconnect.
        timeout = self.time.reconnect_grace if self.resumed else self.join_timeout
        try:
            await asyncio.wait_for(self._seated.wait(), timeout)
        except TimeoutError:
            absent = [st for st in self.seats if not st.ever_linked]
            for st in absent:
                who = st.spec.bot_id or st.spec.house_bot
                what = "did not come back after the takeover" if self.resumed else "never connected"
                self.recorder.incident(st.seat, IncidentKind.ABSENT, f"{who} {what}")
            present = [st for st in self.seats if st.ever_linked]
            if present:
                self._end = self.recorder.forfeit(
                    [st.seat for st in absent],
                    f"seats {[int(st.seat) for st in absent]} not connected within {timeout:g} s",
                )
            else:
                self.cancel(f"no bot connected within {timeout:g} s")

    async def _play(self) -> None:
        rec = self.recorder
        match = rec.match
        tc = self.time
        # Between two waits for answers the loop applies the answers, then asks the next decision.
        # It yields once in between (the journal write, or a bare yield), so the longest stretch
        # that holds up the other matches' answers is the larger half, not the sum.
        cpu_clock = time.thread_time if self.step_cpu else _no_clock
        t0, c0 = time.perf_counter(), cpu_clock()
        carried = 0.0
        first = True
        while self._end is None:
            if self.journal is not None:
                # Durable before the next request goes out: a takeover replays exactly this log.
                carried = 0.0 if first else self._step_done(t0, c0, cpu_clock, observe=False)
                await self._flush()
                t0, c0 = time.perf_counter(), cpu_clock()
            elif not first and self.yield_between:
                carried = self._step_done(t0, c0, cpu_clock, observe=False)
                await asyncio.sleep(0)
                t0, c0 = time.perf_counter(), cpu_clock()
            first = False
            self._check_still_mine()
            if self._end is not None:
                break
            decision = match.to_move()
            if decision is None:
                break
            # The seats of an out-of-turn window are asked at once: by the contract's guarantee no
            # answer changes a later seat's options or observation until the window closes.
            if decision.window is not None and self.parallel_windows:
                batch = match.window_decisions()
            else:
                batch = [(decision, match.legal_options())]
            numbers = list(rec.seat_decisions)
            now = loop_time()
            pendings: list[Pending] = []
            for d, options in batch:
                # Numbered per seat, so an id or a number says nothing of the other seats' decisions.
                number = numbers[d.seat]
                numbers[d.seat] += 1
                p = Pending(
                    decision_id=decision_id(self.match_id, d.seat, number),
                    decision=d,
                    options=options,
                    option_ids=frozenset([o.id for o in options]),
                    number=number,
                )
                pendings.append(p)
                st = self.seats[d.seat]
                if d.window is not None and d.kind in st.auto_pass and p.option_ids == {"pass"}:
                    # Opted in, and "pass" is all it may do: answered here, no request, no clock.
                    p.auto = True
                    p.answer = ("pass", "", now)
                    continue
                p.allowed_overrun = clocks.allowed_overrun(tc, st.bank)
                p.credit = st.link.rtt_credit(tc.max_rtt_credit) if st.link is not None else 0.0
                p.sent_at = now
                p.paused_at = COLLECTOR.paused
                p.hard_deadline = clocks.hard_deadline(tc, now, p.allowed_overrun, p.credit)
            self.pendings = pendings
            self.pending = next((p for p in pendings if p.answer is None), pendings[0])
            for p in pendings:
                st = self.seats[p.decision.seat]
                if not p.auto and st.link is not None:
                    self._send_request(st, p, fresh=True)
            self._step_done(t0, c0, cpu_clock, carried)
            carried = 0.0
            await self._await_answers(pendings)
            self._check_still_mine()
            if self._end is not None:
                break
            t0, c0 = time.perf_counter(), cpu_clock()
            for p in pendings:
                if self._end is not None:
                    break
                self._apply_answer(p)
            self.pending = None
            self.pendings = []
            # Spectators are updated at public moments only: not while a private decision is pending
            # (its asking, its answer and what it caused come out with the next public moment).
            if self._at_public_moment():
                self.spectators.publish()
            # No explicit yield is needed here: waiting for each answer already yields to the loop.

    def _step_done(
        self, t0: float, c0: float, cpu_clock: Callable[[], float], carried: float = 0.0, observe: bool = True
    ) -> float:
        """Records a step that began at ``t0`` (``perf_counter``) and ``c0`` (``cpu_clock``).

        ``carried`` is the wall time of the same decision's part before a journal write; the
        overhead metric gets the decision's total unless ``observe`` is false. Returns the wall time.
        """
        wall = time.perf_counter() - t0
        cpu = cpu_clock() - c0
        if wall > self.max_step_seconds:
            self.max_step_seconds = wall
        if cpu > self.max_step_cpu_seconds:
            self.max_step_cpu_seconds = cpu
        if observe:
            self._metrics.overhead.observe(wall + carried)
        return wall

    def _apply_answer(self, p: Pending) -> None:
        """Applies ``p``'s answer (or its default, with the timeout) through the recorder.

        Raises:
            EngineError: the engine is not waiting for ``p`` (a window broke the contract's guarantee).
        """
        rec = self.recorder
        now = rec.match.to_move()
        if now is None or (now.seat, now.kind, now.window) != (p.decision.seat, p.decision.kind, p.decision.window):
            raise EngineError(
                f"the engine asks {now!r} where the window promised {p.decision!r}: answers held in parallel "
                "cannot be applied"
            )
        st = self.seats[p.decision.seat]
        if p.auto:
            applied = rec.apply("pass", note="auto-pass", think_ms=0)
            self._metrics.answered.inc()
        elif p.answer is not None:
            option_id, note, received = p.answer
            charge = self._charge(st, p, received)
            applied = rec.apply(option_id, note=note, think_ms=clocks.ms(charge.charged))
            self._metrics.answered.inc()
        else:
            self._timeout(st, p)
            applied = rec.apply(p.decision.default_option_id, source="default")
            self._metrics.defaulted.inc()
        self.event_total += len(applied)
        if self._end is None and st.bank <= 0:
            self._forfeit(st, f"seat {st.seat} ran out of time bank")
        if self._end is None and st.strikes >= self.time.max_strikes:
            self._forfeit(st, f"seat {st.seat} reached {st.strikes} strikes")

    async def _await_answers(self, pendings: Sequence[Pending]) -> None:
        """Waits until every one of ``pendings`` is answered or past its own deadline."""
        while self._end is None and not self._handover and not self._lost:
            now = loop_time()
            # Each deadline moves on by the garbage-collection pauses since its request went out.
            deadlines = [p.hard_deadline + _paused_since(p) for p in pendings if p.answer is None]
            waiting = [d for d in deadlines if now < d]
            if not waiting:
                return
            wake_at = min(waiting)
            for other in self.seats:
                if other.disconnected_at is not None:
                    expiry = other.disconnected_at + self.time.reconnect_grace
                    if now >= expiry:
                        self._forfeit(
                            other,
                            f"seat {other.seat} stayed disconnected past the {self.time.reconnect_grace:g} s grace",
                        )
                        return
                    wake_at = min(wake_at, expiry)
            await self._sleep_until(wake_at)

    def _charge(self, st: SeatState, p: Pending, received: float) -> clocks.Charge:
        charge = clocks.answered(self.time, p.sent_at, received, p.credit)
        st.bank -= charge.drawn
        self._metrics.think.observe(charge.charged)
        st.previous = charge
        return charge

    def _timeout(self, st: SeatState, p: Pending) -> None:
        st.bank -= p.allowed_overrun
        st.strikes += 1
        self._metrics.strike(IncidentKind.TIMEOUT)
        elapsed = loop_time() - p.sent_at - _paused_since(p)
        st.previous = clocks.timed_out(self.time, elapsed, p.allowed_overrun, p.credit)
        self._metrics.think.observe(st.previous.charged)
        where = "while disconnected" if st.link is None else f"after {elapsed:.3f} s"
        detail = (
            f"no valid answer to {p.decision_id} {where}; default {p.decision.default_option_id!r} applied "
            f"(strike {st.strikes}/{self.time.max_strikes})"
        )
        self.recorder.incident(st.seat, IncidentKind.TIMEOUT, detail)
        if st.link is not None:
            st.link.send(self.messages.error(bot_pb2.ERROR_CODE_TIMEOUT, detail, p.decision_id, strikes=st.strikes))

    # ----- messages ----------------------------------------------------------------------

    def _send_start(self, st: SeatState, resumed: bool) -> None:
        if st.link is None:
            return
        # The whole observation: the base of the seat's next patch (also after a reconnect).
        obs = self.recorder.match.observe(st.seat)
        st.link.send(
            self.messages.match_start(
                st, self.game.info.rules_version, self.recorder.replay.seats, self.config, obs, resumed
            )
        )

    def _send_request(self, st: SeatState, p: Pending, fresh: bool = False) -> None:
        assert st.link is not None
        msg: Outgoing
        if p.request is None:
            match = self.recorder.match
            events = match.events(st.events_sent, st.seat)
            st.events_sent = self.event_total
            first = st.events_numbered
            st.events_numbered = first + len(events)
            msg = self.messages.decision_request(st, p, match.observe(st.seat), events, first)
        else:
            # A re-send after a reconnect: the link has just been sent a MatchStart with the
            # whole observation as it is now, so the patch (against the old link's base) goes.
            msg = self.messages.resend(p)
        left = max(0.0, p.hard_deadline + _paused_since(p) - loop_time() - p.credit)
        self.messages.stamp(msg, left, time_now())
        st.link.send(msg)

    def _at_public_moment(self) -> bool:
        """Whether the match is at a public moment: over, or waiting for a decision that is not private."""
        upcoming = self.recorder.match.to_move()
        return upcoming is None or upcoming.kind not in self._private or self._end is not None

    def _publish(self, final: bool = False) -> None:
        self.spectators.publish(final)

    async def watch(self) -> AsyncIterator[referee_pb2.WatchMatchResponse]:
        """Yields the public view of the last public moment, then at every public moment, the last
        with the outcome (:mod:`referee.server.spectators`)."""
        async for msg in self.spectators.watch(self.done):
            yield msg

    # ----- the end -----------------------------------------------------------------------

    async def _finish(self) -> Replay | None:
        outcome = self.recorder.outcome()
        if outcome is not None:
            try:
                await self._flush([{"k": "end", "outcome": outcome.to_json()}])
            except JournalFenced as exc:
                log.warning("match %s: %s; dropped here", self.match_id, exc)
                self.error = f"taken over by another referee: {exc}"
                return await self._drop()
        self.end_time = time_now()
        self.pending = None
        self.pendings = []
        if self.start_time is not None:
            self._metrics.running.dec()
        self._metrics.finished(outcome.termination.value if outcome is not None else "none")
        replay: Replay | None = None
        try:
            replay = await self._finish_replay()
            replay.meta["incidents"] = len(replay.incidents)
        except Exception as exc:
            log.exception("match %s: could not finish the replay", self.match_id)
            self.error = self.error or f"could not finish the replay: {exc!r}"
        match = self.recorder.match
        full = self.event_total
        for st in self.seats:
            if st.link is not None and outcome is not None:
                events = match.events(st.events_sent, st.seat)
                st.link.send(self.messages.match_end(st, outcome, events, st.events_numbered))
                st.events_sent = full
                st.events_numbered += len(events)
        for link in self.links():
            self.hooks.release(self, link)
        if replay is not None:
            self.replay = replay
            self.replay_uri = await self._record(replay)
        await self._close_journal()
        if self.error or replay is None or not self.replay_uri:
            self.state = MatchState.FAILED
        elif outcome is not None and outcome.termination is Termination.CANCELLED:
            self.state = MatchState.CANCELLED
        else:
            self.state = MatchState.SUCCEEDED
        self._publish(final=True)
        self.done.set()
        self.hooks.on_finished(self)
        return replay

    async def _finish_replay(self) -> Replay:
        """The recorder's :meth:`~referee.core.replay.Recorder.finishing`, yielding to the loop after each
        :attr:`finish_step` events digested: a long match's digest must not hold the other matches'
        answers. Each stretch counts as a step."""
        steps = self.recorder.finishing(self.finish_step)
        cpu_clock = time.thread_time if self.step_cpu else _no_clock
        while True:
            t0, c0 = time.perf_counter(), cpu_clock()
            done = next(steps, None)
            self._step_done(t0, c0, cpu_clock, observe=False)
            if done is None:
                return self.recorder.replay
            await asyncio.sleep(0)

    async def _record(self, replay: Replay) -> str:
        delay = 0.1
        for attempt in range(1, 6):
            try:
                return await self.sink.record(self.match_id, replay)
            except Exception as exc:
                log.warning("match %s: result sink failed (attempt %d): %r", self.match_id, attempt, exc)
                if attempt == 5:
                    self.error = f"result sink failed: {exc!r}"
                    return ""
                await asyncio.sleep(delay)
                delay *= 4
        return ""

    # ----- the journal -------------------------------------------------------------------

    def hand_over(self) -> None:
        """Stops playing and leaves the match to another referee (graceful shutdown with a journal)."""
        if self.journal is not None and not self.is_over():
            self._handover = True
            self._seated.set()
            self._wake()

    def lose(self, reason: str) -> None:
        """Stops playing at once: another referee took the match over (this referee's lease lapsed)."""
        if self.journal is not None and not self.is_over():
            self._lost = reason
            self._seated.set()
            self._wake()

    def _check_still_mine(self) -> None:
        """Raises when the match must stop here: handed over, or owned by another referee now."""
        if self._handover:
            raise HandedOver
        if self._lost:
            raise JournalFenced(self._lost)

    async def _open_journal(self) -> bool:
        """Creates the journal, or claims and replays it; ``False`` when the match is not this referee's."""
        assert self.journal is not None
        try:
            claim = await self.journal.claim(self.match_id, None if self.resumed else self._start_record)
        except Exception as exc:
            if self.resumed:
                self.error = f"cannot read the journal: {exc!r}"
                return False
            # A Redis outage must not stop play: the match goes on, but dies with this referee.
            log.warning("match %s: journal unavailable (%r); playing on without it", self.match_id, exc)
            self.journal = None
            return True
        if claim == "new":
            return True
        if claim in ("taken", "mine"):
            # Also a retried StartMatch on a restarted referee: the journal wins over a fresh start.
            self.resumed = True
            await self._rebuild()
            return True
        self.error = f"the journal says {claim!r}: another referee plays or played it"
        return False

    async def _flush(self, extra: Sequence[Mapping[str, Any]] = ()) -> None:
        """Appends what the journal lacks (and ``extra``).

        Raises:
            JournalFenced: another referee owns the match now.
        """
        if self.journal is None:
            return
        entries, counts = journals.entries_since(
            self.recorder.replay, self._journaled, [st.bank for st in self.seats], [st.events_sent for st in self.seats]
        )
        entries.extend(dict(e) for e in extra)
        if not entries:
            return
        try:
            await self.journal.append(self.match_id, entries)
        except JournalFenced:
            raise
        except Exception as exc:
            # Kept for the next flush: the log stays gapless, only later than promised.
            log.warning("match %s: journal append failed (%r); retried at the next decision", self.match_id, exc)
            return
        self._journaled = counts

    async def _rebuild(self) -> None:
        """Replays the journal into the recorder and the seats' books (a takeover).

        Raises:
            EngineError: a journaled decision does not apply (the match is cancelled with the reason).
        """
        assert self.journal is not None
        rec = self.recorder
        log_ = rec.replay
        book = journals.replay_log(await self.journal.entries(self.match_id), rec)
        self.event_total += book.events
        seats, end, takeovers = book.seats, book.end, book.takeovers
        everything = rec.match.events(0)
        for st in self.seats:
            if seats is not None:
                st.bank = float(seats["bank"][st.seat])
                st.events_sent = int(seats["sent"][st.seat])
                st.events_numbered = sum(1 for e in everything[: st.events_sent] if e.visible(st.seat))
            st.strikes = sum(1 for i in log_.incidents if i.seat == st.seat and i.kind in STRIKE_KINDS)
        self._journaled = (len(log_.decisions), len(log_.incidents))
        if end is not None and rec.match.outcome() is None:
            # A forfeit or cancellation the old referee decided: the Recorder has no public way to
            # restore an outcome it did not make, and the journal holds it exactly.
            rec._final = end
        takeovers.append({"referee": self.journal.referee_id, "at": len(log_.decisions)})
        log_.meta["takeovers"] = takeovers
        if not self._at_public_moment():
            self.spectators.restore_moment()
        if rec.outcome() is not None:
            self._end = rec.outcome()  # it had ended: only the recording is left to do
            return
        now = loop_time()
        for st in self.seats:
            if st.link is None:
                st.disconnected_at = now
                rec.incident(
                    st.seat,
                    IncidentKind.DISCONNECT,
                    f"seat {st.seat}: its referee stopped; referee {self.journal.referee_id} took the match over",
                )
        await self._flush([{"k": "takeover", "by": self.journal.referee_id, "n": len(log_.decisions)}])
        log.info("match %s taken over at decision %d", self.match_id, len(log_.decisions))

    async def _close_journal(self) -> None:
        if self.journal is None:
            return
        try:
            await self.journal.close(self.match_id)
        except Exception as exc:
            log.warning("match %s: cannot close the journal (%r)", self.match_id, exc)

    async def _drop(self) -> Replay | None:
        """Ends this runner without a result: the match is (or will be) another referee's."""
        self.abandoned = True
        self.end_time = time_now()
        self.pending = None
        self.pendings = []
        self.state = MatchState.FAILED
        if self.start_time is not None:
            self._metrics.running.dec()
        if self._handover and self.journal is not None:
            try:
                await self.journal.close(self.match_id, hand_over=True)
            except Exception as exc:
                log.warning("match %s: cannot hand the journal over (%r)", self.match_id, exc)
            self.error = "handed over to another referee"
        for link in self.links():
            self.hooks.release(self, link)
        if self._at_public_moment():
            self._publish(final=True)
        else:
            self.spectators.close()  # the match goes on elsewhere: nothing of a private window leaves here
        self.done.set()
        self.hooks.on_finished(self)
        return None

    # ----- views -------------------------------------------------------------------------

    def shed(self) -> None:
        """Drops what only a running match needs (option encodings, the seats' last observations).

        Called once the match is over and its result is with the sink: a finished runner stays in
        memory for GetMatch and late spectators, so it must weigh little (issue 12: a referee kept
        about 350 KiB per finished match, 3.5 GiB at the old 10,000 kept).
        """
        self.messages.shed()
        self.spectators.shed()
        self.pendings = []
        self.pending = None
        for st in self.seats:
            st.obs_sent = None
            st.previous = None

    def release(self) -> None:
        """Drops the engine's state and the replay's events of a finished match (the hub calls it
        once ``keep_finished_state`` newer matches have finished): GetMatch and ListMatches still
        show it whole, a late spectator gets its final public view and outcome without the event
        log, and :meth:`wait` returns the replay without its events and decisions (the stored
        replay is whole).
        """
        if self.state in (MatchState.PENDING, MatchState.RUNNING) or self.recorder.outcome() is None:
            return
        self.recorder.release()
        if self.replay is not None:
            self.replay = self.recorder.replay

    def to_proto(self) -> referee_pb2.Match:
        """Returns the match as the referee API's ``Match`` message."""
        msg = referee_pb2.Match(
            match_id=self.match_id,
            game=self.name,
            state=STATE_PROTO[self.state],
            config=codec.to_struct(self.config),
            seed=self.seed & ((1 << 64) - 1),
            time_control=self.time.to_proto(),
            decision_count=self.recorder.decision_count,
            create_time=timestamp(self.create_time),
            replay_uri=self.replay_uri,
            labels=self.labels,
            incidents=[
                f"seat {i.seat} {i.kind} at decision {i.at}: {i.detail}" for i in self.recorder.replay.incidents
            ],
        )
        for st in self.seats:
            seat = msg.seats.add(display_name=self.recorder.replay.seats[st.seat], connected=st.link is not None)
            seat.strikes = st.strikes
            if st.spec.bot_id is not None:
                seat.bot_id = st.spec.bot_id
            elif st.spec.house_bot is not None:
                seat.house_bot = st.spec.house_bot
        if self.start_time is not None:
            msg.start_time.CopyFrom(timestamp(self.start_time))
        if self.end_time is not None:
            msg.end_time.CopyFrom(timestamp(self.end_time))
        final = self.recorder.outcome()
        if self.is_over() and final is not None:
            msg.outcome.CopyFrom(codec.outcome(final))
        return msg


def new_match_id() -> MatchId:
    """Returns a fresh random match id."""
    return MatchId(uuid.uuid4().hex)


def decision_id(match_id: str, seat: Seat, number: int) -> str:
    """The id of ``seat``'s decision ``number`` (its own count, from 0): ``<match_id>-<seat>-<number>``.

    Re-issued unchanged for the same decision after a reconnect or a takeover, and made of the seat's
    own count only, so it tells nothing of the other seats' decisions."""
    return f"{match_id}-{int(seat)}-{number}"


def _paused_since(p: Pending) -> float:
    """The process's garbage-collection pauses since ``p``'s request went out: the referee's time,
    taken out of the seat's (its deadline moves on by them, its elapsed time leaves them out)."""
    return COLLECTOR.paused - p.paused_at


def _no_clock() -> float:
    return 0.0
