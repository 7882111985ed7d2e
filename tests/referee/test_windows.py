"""Out-of-turn windows on the referee: the seats of a window asked at once, and the auto-pass opt-in.

The contract (docs/engine.md, "Windows asked in parallel"): the decisions sharing a ``Decision.window``
id are for distinct seats, and no answer takes effect until the last seat of the window has answered.
So the referee asks every seat of a window at once and applies the answers in the engine's order,
and may answer "pass" for a seat that opted in (``Hello.auto_pass_kinds``) when "pass" is its only
option. These tests run ScrumBrawl matches through a real referee on loopback with real SDK clients
(the house heuristic as each seat's bot) and check what the bots saw against a re-simulation of the
replay.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from referee.core import get_game
from referee.core.chance import SeededChance
from referee.core.contract import Decision, Match
from referee.core.replay import Recorder, Replay, verify
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient
from referee.sdk.client import BotConnectionError
from referee.sdk.host import Turn
from referee.sdk.house import house_factory
from referee.server.hub import MAX_AUTO_PASS_KINDS, Referee, RefereeSettings
from tests.referee.harness import referee_env, wait_connected

WINDOW_KINDS = ("dispel_window", "fumble_window", "team_window", "dispel")
"""ScrumBrawl's held-window decision kinds (docs/rules/scrumbrawl.md, "Out-of-turn windows")."""

CALM = TimeSettings(decision_time=10, bank_time=60, max_overrun=5, max_strikes=3, reconnect_grace=20)
"""Long clocks: these tests check who is asked and what is recorded, not how fast."""

TEAMS = {"teams": True}


@dataclass
class Seen:
    """One request as a bot got it."""

    match_id: str
    seat: int
    number: int
    """The seat's own decision number (``DecisionRequest.decision_number``, counted per seat)."""
    options: tuple[str, ...]
    live: int
    """Requests of this match received and not yet answered by any bot when this one arrived."""


class WindowBot:
    """The house heuristic, which holds its answer, in a window, until every seat the referee asked has its request.

    It asks the referee only which requests the pending window sent (to know what to wait for);
    whether they were outstanding at once is observed here, at the bots: each bot adds its request to a
    shared set of live requests when it arrives and removes it when it answers, and notes how many were
    live as it arrived. Asked one at a time, a request arrives only after the previous one was answered,
    so that count stays 1.
    """

    referee: ClassVar[Referee | None] = None
    seen: ClassVar[list[Seen]] = []
    live: ClassVar[dict[str, set[tuple[int, int]]]] = {}
    arrived: ClassVar[dict[str, set[tuple[int, int]]]] = {}
    cond = threading.Condition()
    auto_pass_kinds: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.policy = house_factory("scrumbrawl", "heuristic", seed=3)()

    def _asked_with(self, turn: Turn) -> set[tuple[int, int]]:
        """The (seat, decision number) of each request the referee sent with this one (its window's,
        or itself alone); decision numbers are counted per seat."""
        runner = self.referee.get(turn.match_id) if self.referee is not None else None  # type: ignore[arg-type]
        p = runner.pending_for(turn.decision_id) if runner is not None else None
        if runner is None or p is None or p.decision.window is None:
            return {(int(turn.seat), turn.decision_number)}
        return {(int(q.decision.seat), q.number) for q in runner.pendings if not q.auto}

    def choose_turn(self, turn: Turn) -> str:
        want = self._asked_with(turn)
        n = (int(turn.seat), turn.decision_number)
        with self.cond:
            live = self.live.setdefault(turn.match_id, set())
            arrived = self.arrived.setdefault(turn.match_id, set())
            live.add(n)
            arrived.add(n)
            at_arrival = len(live)
            self.cond.notify_all()
            # A bounded wait: a referee that asks one at a time must fail the test, not hang it.
            self.cond.wait_for(lambda: want <= arrived, timeout=30)
            live.discard(n)
            options = tuple(o.id for o in turn.options)
            self.seen.append(Seen(turn.match_id, int(turn.seat), turn.decision_number, options, at_arrival))
        return self.policy.choose(turn.decision, turn.observation, turn.options)


class OptedInBot(WindowBot):
    """The same bot, opted in to "pass" being answered for it in every ScrumBrawl window kind."""

    auto_pass_kinds = WINDOW_KINDS


@dataclass(frozen=True)
class Step:
    """One decision of a replay, re-simulated."""

    number: int
    """The place in the match's decision log."""
    seat: int
    kind: str
    window: str | None
    options: tuple[str, ...]
    own: int = 0
    """The seat's own decision number (its decisions before this one)."""


def resimulate(replay: Replay) -> list[Step]:
    """Replays ``replay`` and returns each decision as the engine posed it."""
    g = get_game(replay.game)
    rec = Recorder(g, replay.config, replay.seed, list(replay.seats), {})
    out = []
    for n, d in enumerate(replay.decisions):
        pending = rec.match.to_move()
        assert pending is not None and pending.seat == d.seat
        options = tuple(o.id for o in rec.match.legal_options())
        out.append(Step(n, int(d.seat), pending.kind, pending.window, options, rec.seat_decisions[d.seat]))
        rec.apply(d.option_id)
    return out


def by_number(seen: list[Seen], steps: list[Step]) -> dict[int, Seen]:
    """What the bots saw, keyed by the place of each decision in the log (from the seat and its own number)."""
    where = {(s.seat, s.own): s.number for s in steps}
    return {where[(x.seat, x.number)]: x for x in seen}


async def play(
    seats: int, seed: int, *, parallel: bool, factories: list[type[WindowBot]] | None = None
) -> tuple[Replay, list[Seen]]:
    """Plays one ScrumBrawl match through a real referee; returns its replay and what the bots saw."""
    WindowBot.seen = []
    WindowBot.live = {}
    WindowBot.arrived = {}
    factories = factories or [WindowBot] * seats
    async with referee_env(RefereeSettings(ping_interval=0.2, parallel_windows=parallel)) as env:
        WindowBot.referee = env.referee
        ids = [f"w{i}" for i in range(seats)]
        for bot_id, factory in zip(ids, factories, strict=True):
            env.connect(factory, bot_id)
        await wait_connected(env, *ids)
        runner = env.start("scrumbrawl", ids, seed=seed, time=CALM, config=TEAMS if seats == 4 else None)
        replay = await asyncio.wait_for(runner.wait(), 600)
        assert replay is not None, runner.error
        WindowBot.referee = None
        return replay, list(WindowBot.seen)


def windows(steps: list[Step]) -> dict[str, list[Step]]:
    """Groups the window decisions by window id."""
    out: dict[str, list[Step]] = {}
    for s in steps:
        if s.window is not None:
            out.setdefault(s.window, []).append(s)
    return out


@pytest.mark.parametrize("seats", [2, 4], ids=["2 players", "2v2"])
def test_a_windows_seats_are_asked_at_once_and_the_replay_is_the_sequential_one(seats: int) -> None:
    """Every seat of a window holds its request at the same time; the decisions are those of asking in turn.

    Contract: "no answer takes effect (no event, no change to any observation or to the later seats'
    options) until the last seat of the window has answered; then the engine applies them in its own
    order" (docs/engine.md). The same seed is played asking in turn and asking at once, with the same
    deterministic bots: the replays must hold the same decisions and both re-simulate.
    """
    seq_replay, seq_seen = asyncio.run(play(seats, 5, parallel=False))
    par_replay, par_seen = asyncio.run(play(seats, 5, parallel=True))
    assert [(d.seat, d.option_id, d.source) for d in par_replay.decisions] == [
        (d.seat, d.option_id, d.source) for d in seq_replay.decisions
    ]
    assert par_replay.outcome == seq_replay.outcome
    verify(par_replay)
    verify(seq_replay)
    assert par_replay.incidents == [] and seq_replay.incidents == []

    steps = resimulate(par_replay)
    # Every decision was asked of its seat (nobody opted in), with the options the engine posed.
    got = by_number(par_seen, steps)
    assert len(got) == len(par_seen) and sorted(got) == [s.number for s in steps]
    for s in steps:
        assert (got[s.number].seat, got[s.number].options) == (s.seat, s.options)
    shared = [w for w in windows(steps).values() if len(w) > 1]
    assert len(shared) >= 3, "the game opened too few windows of several seats to show anything"
    for w in shared:
        assert len({s.seat for s in w}) == len(w), "a window asked one seat twice"
        # Observed at the bots: all the window's requests were outstanding together.
        assert max(got[s.number].live for s in w) == len(w), [(s, got[s.number]) for s in w]
    # The instrument can tell: asked in turn, no two requests were ever outstanding together.
    assert max(s.live for s in seq_seen) == 1


def test_an_opted_in_bot_is_never_asked_a_pass_only_window_decision() -> None:
    """Seat 0 opted in to every window kind, seat 1 did not: only seat 0's pass-only window questions vanish.

    Each of them is recorded as seat 0's own "pass" (source ``bot``, note ``auto-pass``, no strike, no
    time), so the replay holds the same decisions as a game in which it was asked and passed.
    """
    replay, seen = asyncio.run(play(2, 7, parallel=True, factories=[OptedInBot, WindowBot]))
    verify(replay)
    steps = resimulate(replay)
    asked = set(by_number(seen, steps))
    auto = 0
    asked_pass_only = 0
    for s in steps:
        pass_only = s.window is not None and s.options == ("pass",) and s.kind in WINDOW_KINDS
        d = replay.decisions[s.number]
        if s.seat == 0 and pass_only:
            assert s.number not in asked
            assert (d.option_id, d.source, d.note, d.think_ms) == ("pass", "bot", "auto-pass", 0)
            auto += 1
        else:
            assert s.number in asked, s
            assert d.note != "auto-pass"
            asked_pass_only += s.seat == 1 and pass_only
    assert auto >= 5 and asked_pass_only >= 5, (auto, asked_pass_only)
    assert replay.incidents == []
    # The same game without the opt-in: seat 0 is asked, passes, and the decisions are the same.
    plain, _ = asyncio.run(play(2, 7, parallel=True))
    assert [(d.seat, d.option_id) for d in plain.decisions] == [(d.seat, d.option_id) for d in replay.decisions]


def test_which_seats_a_window_asks_depends_on_public_facts_only() -> None:
    """Re-dealing every hidden card leaves each window's seats, kinds and order unchanged.

    Being asked must say nothing about a hand (issue 13, finding 1): the referee asks exactly the seats of
    ``window_decisions()`` (less the opted-in pass-only ones, which only their own seat could notice), so
    that list must be the same in every world consistent with what is public. Random 2-player and 2v2
    games; every window point is checked under three re-deals.
    """
    g = get_game("scrumbrawl")
    checked = 0
    for seats, seed in ((2, 1), (4, 2)):
        m = g.new_match(g.parse_config(TEAMS if seats == 4 else {}, seats), seats, SeededChance(seed))
        rng = random.Random(seed)
        while (d := m.to_move()) is not None and checked < 400:
            if d.window is not None:
                want = [(x.seat, x.kind, x.window) for x, _ in m.window_decisions()]
                for k in range(3):
                    other = m.determinize(None, SeededChance(1000 + k))
                    assert [(x.seat, x.kind, x.window) for x, _ in other.window_decisions()] == want
                checked += 1
            m.apply(rng.choice(list(m.legal_options())).id)
    assert checked >= 100


@pytest.mark.parametrize("seats", [2, 4])
def test_the_engines_window_list_is_the_contracts_generic_walk(seats: int) -> None:
    """ScrumBrawl's cheap ``window_followers`` (read from the window's queue) equals the contract's default
    (a walk on a copy), and the walk changes nothing: the match rolls the same dice and ends the same
    after being walked."""
    g = get_game("scrumbrawl")
    cfg = g.parse_config(TEAMS if seats == 4 else {}, seats)
    walked = g.new_match(cfg, seats, SeededChance(11))
    plain = g.new_match(cfg, seats, SeededChance(11))
    rng = random.Random(11)
    windows_seen = 0

    def norm(m: Match, fn: Callable[[Match, Decision], Any], first: Decision) -> Any:
        return [(x.to_json(), [o.to_json() for o in opts]) for x, opts in fn(m, first)]

    while (d := walked.to_move()) is not None and len(walked.events()) < 4000:
        if d.window is not None:
            assert norm(walked, type(walked).window_followers, d) == norm(walked, Match.window_followers, d)
            windows_seen += 1
        option = rng.choice(list(walked.legal_options())).id
        walked.apply(option)
        plain.apply(option)
    assert windows_seen >= 20
    assert [e.to_json() for e in walked.events()] == [e.to_json() for e in plain.events()]


def test_hello_auto_pass_kinds_is_bounded_and_taken_from_the_bot_class() -> None:
    """Too many kinds is refused with a clear reason; the SDK sends the bot class's attribute by default."""
    assert BotClient(OptedInBot, "127.0.0.1:1", "t").auto_pass_kinds == list(WINDOW_KINDS)
    assert BotClient(WindowBot, "127.0.0.1:1", "t").auto_pass_kinds == []
    assert BotClient(OptedInBot, "127.0.0.1:1", "t", auto_pass_kinds=["dispel"]).auto_pass_kinds == ["dispel"]

    async def scenario() -> None:
        async with referee_env() as env:
            kinds = [f"k{i}" for i in range(MAX_AUTO_PASS_KINDS + 1)]
            client = BotClient(WindowBot, env.address, env.token("greedy"), auto_pass_kinds=kinds, reconnect=False)
            with pytest.raises(BotConnectionError, match="auto_pass_kinds takes at most"):
                await asyncio.wait_for(client.run(), 30)
            assert env.referee.sessions == {}

    asyncio.run(scenario())


def test_brawl_bot_run_has_an_auto_pass_flag() -> None:
    """``brawl bot run ... --auto-pass dispel_window fumble_window`` reaches ``run_bot``."""
    import argparse

    from referee.sdk import cli

    parser = argparse.ArgumentParser()
    cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["bot", "run", "m:C", "--auto-pass", "dispel_window", "fumble_window"])
    assert args.auto_pass == ["dispel_window", "fumble_window"]
    assert parser.parse_args(["bot", "run", "m:C"]).auto_pass is None


class PlainOptedIn:
    """The house heuristic, opted in to every window kind (no instrumentation)."""

    auto_pass_kinds = WINDOW_KINDS

    def __init__(self) -> None:
        self.policy = house_factory("scrumbrawl", "heuristic", seed=3)()

    def choose(self, decision: Any, observation: Any, options: Any) -> str:
        return str(self.policy.choose(decision, observation, options))


def test_a_seat_relayed_from_another_referee_keeps_its_opt_in() -> None:
    """The host referee sends the session's ``auto_pass_kinds`` with the claim; the origin honours it."""
    from referee.core.ids import BotId
    from referee.server.auth import BotIdentity
    from referee.server.match import SeatSpec
    from referee.server.relay import RelayLink
    from tests.referee.test_relay import two_referees

    async def scenario() -> Replay:
        async with two_referees() as (origin, host, store):
            tx = store.issue(BotIdentity(BotId("x"), "X"))
            ty = store.issue(BotIdentity(BotId("y"), "Y"))
            cx = BotClient(PlainOptedIn, f"127.0.0.1:{origin.port}", tx, games=["scrumbrawl"], auto_pass_kinds=[])
            cy = BotClient(PlainOptedIn, f"127.0.0.1:{host.port}", ty, games=["scrumbrawl"])
            tasks = [asyncio.create_task(cx.run(1)), asyncio.create_task(cy.run(1))]
            runner = origin.referee.start_match(
                game="scrumbrawl",
                seats=[SeatSpec(bot_id=BotId("x")), SeatSpec(bot_id=BotId("y"))],
                seed=7,
                time_control=CALM.to_proto(),
            )
            replay = await asyncio.wait_for(runner.wait(), 600)
            assert replay is not None, runner.error
            assert isinstance(runner.seats[1].link, RelayLink) or runner.seats[1].link is None
            assert runner.seats[1].auto_pass == frozenset(WINDOW_KINDS)
            await asyncio.wait_for(asyncio.gather(*tasks), 30)
            return replay

    replay = asyncio.run(scenario())
    verify(replay)
    autos = {0: 0, 1: 0}
    for s in resimulate(replay):
        pass_only = s.window is not None and s.options == ("pass",) and s.kind in WINDOW_KINDS
        d = replay.decisions[s.number]
        if d.note == "auto-pass":
            assert s.seat == 1 and pass_only, s
            autos[s.seat] += 1
        else:
            assert not (s.seat == 1 and pass_only), s
    assert autos[1] >= 5


class SlowOnceInWindowBot(WindowBot):
    """Seat 1 lets its first request of a window of several seats go late; otherwise the WindowBot."""

    late: ClassVar[list[tuple[str, int]]] = []

    def choose_turn(self, turn: Turn) -> str:
        shared = len(self._asked_with(turn)) > 1
        choice = super().choose_turn(turn)
        if shared and int(turn.seat) == 1 and not self.late:
            self.late.append((turn.match_id, turn.decision_number))  # seat 1's own number
            time.sleep(turn.deadline + 1.0)
        return choice


def test_each_seat_of_a_window_has_its_own_clock() -> None:
    """A seat of a window that answers late gets the default and a strike; the others' answers stand.

    Strikes and defaults are per request (docs/bot-protocol.md, section 4): seat 1 lets one window
    request expire while seat 0, asked in the same window, answers in time.
    """
    SlowOnceInWindowBot.late = []
    quick = TimeSettings(decision_time=3, bank_time=30, max_overrun=0.2, max_strikes=3, reconnect_grace=20)

    async def scenario() -> Replay:
        WindowBot.seen = []
        WindowBot.live = {}
        WindowBot.arrived = {}
        async with referee_env(RefereeSettings(ping_interval=0.2)) as env:
            WindowBot.referee = env.referee
            env.connect(WindowBot, "c0")
            env.connect(SlowOnceInWindowBot, "c1")
            await wait_connected(env, "c0", "c1")
            runner = env.start("scrumbrawl", ["c0", "c1"], seed=5, time=quick)
            replay = await asyncio.wait_for(runner.wait(), 600)
            assert replay is not None, runner.error
            WindowBot.referee = None
            return replay

    replay = asyncio.run(scenario())
    verify(replay)
    assert len(SlowOnceInWindowBot.late) == 1
    _, late_own = SlowOnceInWindowBot.late[0]
    steps = resimulate(replay)
    late_number = next(s.number for s in steps if (s.seat, s.own) == (1, late_own))
    window = [s for s in steps if s.window is not None and s.window == steps[late_number].window]
    assert len(window) >= 2 and late_number in {s.number for s in window}
    assert [(i.seat, i.kind, i.at) for i in replay.incidents] == [(1, "timeout", late_number)]
    for s in window:
        d = replay.decisions[s.number]
        assert d.source == ("default" if s.number == late_number else "bot"), (s, d)
    got = by_number(WindowBot.seen, steps)
    assert max(got[s.number].live for s in window) == len(window)
