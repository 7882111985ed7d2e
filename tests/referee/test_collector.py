"""The referee's garbage collection (referee.server.collector): short young collections whose
survivors are frozen, a full reclaim only once the heap has doubled, and the pauses kept out of
the bots' clocks.

The policy itself is checked in a fresh interpreter (it changes the process's collector for
good); the bots' clocks through a real referee on loopback, with a real collection made long by
a collector callback that holds the event loop, as a full collection of a big heap would.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from referee.core import Decision, JSONDict, Option
from referee.core.replay import Replay
from referee.server.collector import COLLECTOR
from referee.server.match import MatchRunner, MatchState
from tests.referee.bots import FirstBot, SlowFirstBot
from tests.referee.harness import GAMES, referee_env

ROOT = Path(__file__).resolve().parents[2]

POLICY = textwrap.dedent(
    """
    import gc, sys, weakref
    from referee.server import collector
    from referee.server.collector import GROWTH, MIN_GROWTH_BLOCKS, YOUNG

    saved = gc.get_threshold()
    c = collector.install()
    assert gc.get_threshold()[0] == YOUNG
    assert gc.get_objects(generation=1) == [] and gc.get_objects(generation=2) == []
    assert not c.reclaim_due(), "nothing has grown yet"

    class Node:
        pass

    # A cycle that is alive through one young collection, then dropped.
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    keep = [[i] for i in range(3 * YOUNG)]  # containers: young collections run, survivors freeze
    assert c.collections >= 2 and c.paused > 0 and c.longest > 0
    assert gc.get_objects(generation=1) == [] and gc.get_objects(generation=2) == [], "survivors frozen"
    assert gc.get_freeze_count() >= YOUNG
    del a, b
    churn = [[i] for i in range(3 * YOUNG)]
    assert gone() is not None, "a frozen cycle is left to the reclaim"

    # The reclaim runs only once the heap has doubled (and its interval has passed), then takes the cycle.
    assert not c.reclaim_if_due()
    c.every = 0.0
    grow = [object() for _ in range(max(MIN_GROWTH_BLOCKS, int(c.baseline * (GROWTH - 1))) + 10_000)]
    assert c.reclaim_due()
    assert c.reclaim_if_due() and c.reclaims == 1
    assert gone() is None, "the reclaim collected the frozen cycle"
    assert not c.reclaim_due(), "the baseline is the heap the reclaim left"
    more = [object() for _ in range(c.baseline + MIN_GROWTH_BLOCKS)]
    assert c.reclaim_due()
    c.every = 3600.0
    assert not c.reclaim_due(), "at most one reclaim per interval"

    # The server's watch task runs the reclaim once it is due, and keeps watching.
    import asyncio
    c.every = 0.0
    grown = [object() for _ in range(c.baseline + MIN_GROWTH_BLOCKS)]

    async def watch_a_while():
        task = asyncio.create_task(c.watch(interval=0.01))
        deadline = asyncio.get_running_loop().time() + 60
        while c.reclaims < 2 and not task.done():
            assert asyncio.get_running_loop().time() < deadline, "the watch task never reclaimed"
            await asyncio.sleep(0.01)
        for _ in range(5):  # a few more rounds of the watch: it is still running
            await asyncio.sleep(0.01)
        assert not task.done()
        task.cancel()

    asyncio.run(watch_a_while())
    assert c.reclaims == 2, c.reclaims

    c.uninstall()
    assert gc.get_threshold() == saved and gc.get_freeze_count() == 0 and gc.callbacks == []
    print("ok")
    """
)


def test_young_collections_freeze_their_survivors_and_a_reclaim_takes_frozen_cycles_once_the_heap_doubles() -> None:
    run = subprocess.run([sys.executable, "-c", POLICY], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


# ----- the bots' clocks -------------------------------------------------------------------------

PAUSE = 1.0
"""The collection's length: past FAST's decision time plus overrun (0.75 s) and its round-trip credit."""


class _LongCollection:
    """A collector callback that makes the next collection ``PAUSE`` long, holding the loop's thread."""

    armed: ClassVar[bool] = False

    @classmethod
    def callback(cls, phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and cls.armed:
            cls.armed = False
            time.sleep(PAUSE)


class CollectingBot:
    """On its first decision, runs a garbage collection that lasts ``PAUSE``, then plays the first option.

    It runs on the event loop's thread (``threaded=False``), so the collection stops the referee's
    loop as a long collection of a big referee heap does.
    """

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        self.calls += 1
        if self.calls == 1:
            _LongCollection.armed = True
            gc.collect(0)
        return options[0].id


@pytest.fixture
def collector() -> Iterator[None]:
    COLLECTOR.install()
    gc.callbacks.append(_LongCollection.callback)
    try:
        yield
    finally:
        gc.callbacks.remove(_LongCollection.callback)
        _LongCollection.armed = False
        COLLECTOR.uninstall()


def _first_of_seat0(r: MatchRunner) -> tuple[Replay, Any]:
    assert r.state is MatchState.SUCCEEDED, r.error
    assert r.replay is not None
    return r.replay, next(d for d in r.replay.decisions if d.seat == 0)


@pytest.mark.parametrize("game", GAMES)
def test_a_garbage_collection_during_a_bots_think_time_is_not_charged_and_does_not_time_it_out(
    game: str, collector: None
) -> None:
    """Rule (docs/bot-protocol.md, "Time"): the referee's own collection pauses between a request
    going out and its answer being read are not the seat's time; its deadline moves on by them."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(CollectingBot, "collects", games=[game], threaded=False)
            env.connect(FirstBot, "fast", games=[game])
            paused = COLLECTOR.paused
            r = env.start(game, ["collects", "fast"], seed=2)
            await asyncio.wait_for(r.wait(), 30)
            assert COLLECTOR.paused - paused >= PAUSE, "the long collection ran during the match"
            replay, first = _first_of_seat0(r)
            assert replay.incidents == [], replay.incidents
            assert first.source == "bot"
            assert first.think_ms is not None and first.think_ms < 250, first.think_ms
            assert r.seats[0].strikes == 0

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_a_stall_that_is_not_a_collection_is_still_the_bots_time(game: str, collector: None) -> None:
    """The same stall of the loop without a collection (the bot itself sleeping on the loop's
    thread) gets the timeout: only the collector's pauses are credited."""

    async def scenario() -> None:
        async with referee_env() as env:
            SlowFirstBot.delay = PAUSE
            env.connect(SlowFirstBot, "slow", games=[game], threaded=False)
            env.connect(FirstBot, "fast", games=[game])
            r = env.start(game, ["slow", "fast"], seed=2)
            await asyncio.wait_for(r.wait(), 30)
            replay, first = _first_of_seat0(r)
            # (In ScrumBrawl the other seat may be waited for at the same moment: it times out too.)
            assert [i.kind for i in replay.incidents if i.seat == 0] == ["timeout"]
            assert first.source == "default"

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_the_hub_collects_the_young_before_it_drops_a_finished_match(game: str, collector: None) -> None:
    """CPython lowers the young count for every object freed, so dropping a finished match's state
    would let the young generation grow past the threshold unseen and be walked in one long go
    later: the hub runs a young collection just before it drops one (Referee._finished)."""
    from_finished: list[int] = []

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            calls = [f.function for f in inspect.stack(0)]
            if "collect_young" in calls and "_finished" in calls:
                from_finished.append(info["generation"])

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "a", games=[game])
            env.connect(FirstBot, "b", games=[game])
            gc.callbacks.append(watch)
            try:
                r = env.start(game, ["a", "b"], seed=2)
                await asyncio.wait_for(r.wait(), 30)
                await asyncio.sleep(0)  # the hub's finished hook has run
            finally:
                gc.callbacks.remove(watch)
            assert r.state is MatchState.SUCCEEDED

    asyncio.run(scenario())
    assert from_finished == [0], from_finished
