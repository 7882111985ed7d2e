"""The referee's per-decision loop mechanics: the clock, the match's kept timer, the session outbox.

A match keeps one timer while its deadlines move forward (:meth:`MatchRunner._sleep_until`), so
the timer of an answered decision fires early during the next wait; the wait must go on to that
decision's own deadline. The session outbox (:class:`referee.server.hub.Outbox`) replaces an
``asyncio.Queue`` and must keep its order and its wake-ups.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from brawl.bot.v1 import bot_pb2

from referee.protocol.timecontrol import TimeSettings
from referee.server.clocks import loop_time
from referee.server.hub import Outbox
from referee.server.match import MatchState
from tests.referee.bots import FirstBot, SilentBot
from tests.referee.harness import GAMES, referee_env

ELAPSED = re.compile(r"after (\d+\.\d+) s")

# A bank large enough that every timeout's overrun is the whole max_overrun.
TIME = TimeSettings(
    decision_time=0.3, bank_time=10.0, max_overrun=0.2, max_strikes=3, reconnect_grace=1.0, max_rtt_credit=0.05
)


def test_the_clock_is_the_event_loops_own() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        a = loop.time()
        b = loop_time()
        c = loop.time()
        assert a <= b <= c

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_a_silent_seat_times_out_no_earlier_than_its_own_deadline_after_an_answered_decision(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(SilentBot, "mute", games=[game])
            env.connect(FirstBot, "fast", games=[game])
            r = env.start(game, ["fast", "mute"], seed=4, time=TIME)
            await asyncio.wait_for(r.wait(), 20)
            assert r.replay is not None and r.state is MatchState.SUCCEEDED
            assert any(d.seat == 0 and d.source != "default" for d in r.replay.decisions)  # answered ones too
            timeouts = [i for i in r.replay.incidents if i.kind == "timeout"]
            assert len(timeouts) == TIME.max_strikes
            for incident in timeouts:
                found = ELAPSED.search(incident.detail)
                assert found is not None, incident.detail
                # The free time and the whole overrun, at least (the detail rounds to 1 ms).
                assert float(found.group(1)) >= TIME.decision_time + TIME.max_overrun - 0.001, incident.detail
            assert r._timer is None  # the kept timer goes with the match

    asyncio.run(scenario())


def _ping(i: int) -> bot_pb2.ConnectResponse:
    return bot_pb2.ConnectResponse(ping=bot_pb2.Ping(ping_id=i))


def test_the_outbox_keeps_the_order_and_wakes_a_waiting_writer() -> None:
    async def scenario() -> None:
        box = Outbox()
        got: list[int] = []

        async def writer() -> None:
            while (m := await box.get()) is not None:
                assert isinstance(m, bot_pb2.ConnectResponse)
                got.append(m.ping.ping_id)

        task = asyncio.create_task(writer())
        await asyncio.sleep(0)  # the writer now waits on the empty box
        box.put_nowait(_ping(1))
        box.put_nowait(_ping(2))
        await asyncio.sleep(0)
        box.put_nowait(_ping(3))
        assert box.qsize() == 1
        box.put_nowait(None)
        await asyncio.wait_for(task, 1)
        assert got == [1, 2, 3] and box.qsize() == 0

    asyncio.run(scenario())


def test_a_cancelled_wait_leaves_the_outbox_usable() -> None:
    async def scenario() -> None:
        box = Outbox()
        waiting = asyncio.create_task(box.get())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        box.put_nowait(_ping(7))
        m = await asyncio.wait_for(box.get(), 1)
        assert isinstance(m, bot_pb2.ConnectResponse) and m.ping.ping_id == 7

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_a_finishing_match_lets_the_loop_run_between_the_steps_of_its_digest(game: str) -> None:
    """A match's end digests its whole event log (6 ms for a long ScrumBrawl match): the runner
    yields to the loop after every ``finish_step`` events, so other matches' answers are read
    meanwhile. A task ticking on the loop sees the match ended and its digest not yet made."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "a", games=[game])
            env.connect(FirstBot, "b", games=[game])
            r = env.start(game, ["a", "b"], seed=4, time=TIME)
            r.finish_step = 1  # an instance setting: other runners keep the default
            mid_finish = 0

            async def tick() -> None:
                nonlocal mid_finish
                while not r.done.is_set():
                    if r.end_time is not None and not r.recorder.replay.events_digest:
                        mid_finish += 1
                    await asyncio.sleep(0)

            ticker = asyncio.create_task(tick())
            await asyncio.wait_for(r.wait(), 20)
            await ticker
            assert r.state is MatchState.SUCCEEDED and r.replay is not None and r.replay.events_digest
            assert mid_finish >= 2, mid_finish

    asyncio.run(scenario())
