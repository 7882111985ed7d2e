"""Matches survive a referee's death: the journal in Redis, and another referee taking the match over.

Two real referee servers (gRPC on loopback, the Redis relay and journal on ``REDIS_URL``, a prefix
of their own) and real SDK clients that know both addresses. Referee A is stopped mid-match without
any cleanup, as SIGKILL would leave it: its lease stops being refreshed, its match task stops where
it is (no result, no journal close), its bot streams drop. Referee B must adopt the match from the
journal once A's lease lapses, get the bots back (the one that was on A reconnects to B by itself),
and finish it: the replay re-simulates exactly and starts with the decisions A had journaled.

Needs Redis at ``REDIS_URL``; the tests fail, not skip, without it.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import pytest
import redis.asyncio as aioredis

from referee.core import Decision, JSONDict, Option
from referee.core.contract import Termination
from referee.core.ids import BotId
from referee.core.replay import verify
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.journal import JournalFenced, RedisJournal, keys
from referee.server.match import MatchState, SeatSpec
from referee.server.service import RefereeServer, create_server, public_match
from referee.server.sinks import MemoryResultSink
from tests.referee.harness import GAMES

REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

PATIENT = TimeSettings(decision_time=30.0, bank_time=30.0, reconnect_grace=20.0)
"""No clock runs out while the test holds a bot or kills a referee."""


class PausingBot:
    """Plays the first option; its fourth decision waits until the test releases it (the match is mid-play)."""

    release: ClassVar[threading.Event] = threading.Event()
    paused: ClassVar[threading.Event] = threading.Event()

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        self.calls += 1
        if self.calls == 4:
            PausingBot.paused.set()
            PausingBot.release.wait(60)
        return options[0].id


class FirstBot:
    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        return options[0].id


@asynccontextmanager
async def two_referees(
    monkeypatch: pytest.MonkeyPatch, lease: str = "2", sink_a: Any = None
) -> AsyncIterator[tuple[RefereeServer, RefereeServer, MemoryTokenStore, str]]:
    # A two-second lease: the takeover comes seconds after the death, not ten; a referee of this
    # process stalled for two seconds on the shared machine would lose its matches (and the test).
    monkeypatch.setenv("BRAWL_REFEREE_LEASE", lease)
    store = MemoryTokenStore()
    prefix = f"brawltest-{uuid.uuid4().hex[:8]}"
    servers = [
        create_server(
            "127.0.0.1:0",
            tokens=store,
            sink=(sink_a if n == 0 and sink_a is not None else MemoryResultSink()),
            settings=RefereeSettings(ping_interval=0.2),
            relay_url=REDIS,
            relay_prefix=prefix,
        )
        for n in range(2)
    ]
    try:
        for s in servers:
            await s.start()
    except Exception as exc:
        pytest.fail(f"Redis at {REDIS} is required for the takeover test: {exc!r}")
    try:
        yield servers[0], servers[1], store, prefix
    finally:
        for s in servers:
            with _suppress():
                await s.stop(0.5)
        client = aioredis.Redis.from_url(REDIS)
        doomed = [k async for k in client.scan_iter(f"{prefix}:*")]
        if doomed:
            await client.delete(*doomed)
        await client.aclose()


class _suppress:
    """Stopping a referee the test already killed may fail; that is not what the test checks."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True


async def die(server: RefereeServer) -> None:
    """Stops a referee as SIGKILL would: no lease refresh, no result, no journal close, streams cut."""
    relay = server.referee.relay
    assert relay is not None
    for task in relay._tasks:
        task.cancel()
    for entry in server.referee.matches.values():
        if entry.task is not None:
            entry.task.cancel()
    await asyncio.sleep(0)
    await server.server.stop(0)


async def wait_for(check: Any, seconds: float, what: str) -> Any:
    for _ in range(int(seconds / 0.05)):
        value = check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out after {seconds:g} s waiting for {what}")


@pytest.mark.parametrize("game", GAMES)
def test_a_second_referee_finishes_the_match_of_a_referee_that_died(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        PausingBot.release.clear()
        PausingBot.paused.clear()
        async with two_referees(monkeypatch) as (a, b, store, prefix):
            run = uuid.uuid4().hex[:6]
            x, y = BotId(f"x-{run}"), BotId(f"y-{run}")
            tx = store.issue(BotIdentity(x, "X"))
            ty = store.issue(BotIdentity(y, "Y"))
            addr_a, addr_b = f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"
            # X starts on A and knows B; Y is on B, so A plays Y's seat through the relay.
            cx = BotClient(PausingBot, f"{addr_a},{addr_b}", tx, games=[game])
            cy = BotClient(FirstBot, f"{addr_b},{addr_a}", ty, games=[game])
            tasks = [asyncio.create_task(cx.run(1)), asyncio.create_task(cy.run(1))]
            await wait_for(lambda: len(a.referee.sessions) == 1 and len(b.referee.sessions) == 1, 10, "the bots")
            runner = a.referee.start_match(
                game=game,
                seats=[SeatSpec(bot_id=x), SeatSpec(bot_id=y)],
                seed=11,
                time_control=PATIENT.to_proto(),
                match_id=f"m-{run}",
            )
            mid = runner.match_id
            await wait_for(PausingBot.paused.is_set, 20, "X to be thinking over its fourth decision")
            assert runner.state is MatchState.RUNNING and runner.replay is None

            await die(a)
            # What A made durable before it died: the start record and the decisions so far.
            journal = RedisJournal(b.referee.relay.redis, prefix, "reader", "-")  # type: ignore[union-attr]
            before = [e for e in await journal.entries(mid) if e["k"] == "d"]
            record = await journal.record(mid)
            assert record is not None and record["seed"] == 11 and record["game"] == game
            assert len(before) >= 4, before  # X answered three, Y as many, before X paused
            PausingBot.release.set()

            b_sink = b.referee.sink
            assert isinstance(b_sink, MemoryResultSink)
            adopted = await wait_for(lambda: b.referee.get(mid), 30, "referee B to take the match over")
            await asyncio.wait_for(adopted.wait(), 30)
            assert mid in b_sink.replays and b_sink.writes == 1
            replay = b_sink.replays[mid]
            a_sink = a.referee.sink
            assert isinstance(a_sink, MemoryResultSink) and not a_sink.replays

            # The same match, not a new one: its decision log goes on from A's journal...
            assert [d.option_id for d in replay.decisions[: len(before)]] == [e["o"] for e in before]
            assert [int(d.seat) for d in replay.decisions[: len(before)]] == [e["s"] for e in before]
            assert len(replay.decisions) > len(before)
            assert replay.seed == 11 and replay.meta["match_id"] == mid
            assert replay.meta["takeovers"] == [{"referee": b.referee.relay.id, "at": len(before)}]  # type: ignore[union-attr]
            # ...and the replay is what a re-simulation of the log gives, byte for byte.
            verify(replay)
            assert replay.outcome is not None
            assert replay.outcome.termination not in (Termination.FORFEIT, Termination.CANCELLED), replay.incidents
            assert adopted.state is MatchState.SUCCEEDED and adopted.resumed
            assert cx.connections >= 2  # X came back, on B
            # The journal is closed: a retried start of the match plays nothing.
            owner, start, log_key, members = keys(prefix, mid)
            redis = b.referee.relay.redis  # type: ignore[union-attr]
            assert await redis.get(owner) == b"done"
            assert not await redis.exists(start, log_key)
            assert not await redis.sismember(members, mid)
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)

    asyncio.run(scenario())


def test_exactly_one_referee_claims_an_orphan_and_the_presumed_dead_one_is_fenced() -> None:
    """The claim is atomic and checks the owner's lease; an append by a former owner is refused."""

    async def scenario() -> None:
        client = aioredis.Redis.from_url(REDIS)
        prefix = f"brawltest-{uuid.uuid4().hex[:8]}"
        try:
            await client.ping()
        except Exception as exc:
            pytest.fail(f"Redis at {REDIS} is required: {exc!r}")
        try:
            old = RedisJournal(client, prefix, "old", "boot-1")
            await client.set(f"{prefix}:referee:old", "boot-1")
            record = {"match_id": "m1", "created": 0.0}
            assert await old.claim("m1", record) == "new"
            await old.append("m1", [{"k": "d", "n": 0}])
            others = [RedisJournal(client, prefix, f"r{i}", f"b{i}") for i in range(6)]
            for i in range(6):
                await client.set(f"{prefix}:referee:r{i}", f"b{i}")
            # While the owner's lease lives, nobody may take the match.
            assert {await j.claim("m1", None) for j in others} == {"elsewhere"}
            assert await others[0].orphans() == []
            await client.delete(f"{prefix}:referee:old")  # the lease lapses
            assert await others[0].orphans() == ["m1"]
            claims = await asyncio.gather(*(j.claim("m1", None) for j in others))
            assert sorted(claims) == ["elsewhere"] * 5 + ["taken"], claims
            winner = others[claims.index("taken")]
            # The old owner comes back (a long pause, not a death): its next append is refused.
            await client.set(f"{prefix}:referee:old", "boot-1")
            with pytest.raises(JournalFenced):
                await old.append("m1", [{"k": "d", "n": 1}])
            assert await old.close("m1") is False
            await winner.append("m1", [{"k": "d", "n": 1}])
            assert [e["n"] for e in await winner.entries("m1")] == [0, 1]
            assert json.loads(await client.get(keys(prefix, "m1")[1]))["match_id"] == "m1"
            # The end leaves a tombstone: nobody adopts or restarts a finished match.
            assert await winner.close("m1") is True
            assert await others[0].claim("m1", record) == "done"
            assert await others[0].orphans() == []
        finally:
            doomed = [k async for k in client.scan_iter(f"{prefix}:*")]
            if doomed:
                await client.delete(*doomed)
            await client.aclose()

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_a_graceful_stop_hands_running_matches_over_instead_of_cancelling_them(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM's grace runs out with a match in play: the match is handed over, and B finishes it."""

    async def scenario() -> None:
        PausingBot.release.clear()
        PausingBot.paused.clear()
        # A long lease: the hand-over, not a lapsed lease, is what lets B adopt the match.
        async with two_referees(monkeypatch, lease="30") as (a, b, store, _prefix):
            run = uuid.uuid4().hex[:6]
            x, y = BotId(f"x-{run}"), BotId(f"y-{run}")
            addr_a, addr_b = f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"
            cx = BotClient(PausingBot, f"{addr_a},{addr_b}", store.issue(BotIdentity(x, "X")), games=[game])
            cy = BotClient(FirstBot, f"{addr_b},{addr_a}", store.issue(BotIdentity(y, "Y")), games=[game])
            tasks = [asyncio.create_task(cx.run(1)), asyncio.create_task(cy.run(1))]
            await wait_for(lambda: len(a.referee.sessions) == 1 and len(b.referee.sessions) == 1, 10, "the bots")
            runner = a.referee.start_match(
                game=game, seats=[SeatSpec(bot_id=x), SeatSpec(bot_id=y)], seed=5, time_control=PATIENT.to_proto()
            )
            await wait_for(PausingBot.paused.is_set, 20, "X to be thinking over its fourth decision")
            await a.stop(0.0)  # the grace is over at once
            PausingBot.release.set()
            assert runner.abandoned and runner.error == "handed over to another referee", runner.error
            assert not public_match(runner).HasField("seed"), "handed over, the match goes on: its seed stays hidden"
            a_sink = a.referee.sink
            assert isinstance(a_sink, MemoryResultSink) and not a_sink.replays  # not cancelled, nothing recorded
            adopted = await wait_for(lambda: b.referee.get(runner.match_id), 30, "referee B to adopt the match")
            await asyncio.wait_for(adopted.wait(), 30)
            assert adopted.state is MatchState.SUCCEEDED and adopted.replay is not None
            verify(adopted.replay)
            assert adopted.replay.outcome is not None
            assert adopted.replay.outcome.termination is not Termination.CANCELLED
            assert adopted.replay.meta["takeovers"][0]["referee"] == b.referee.relay.id  # type: ignore[union-attr]
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)

    asyncio.run(scenario())


class StuckSink:
    """A result sink that never returns: the referee dies while handing over the result."""

    def __init__(self) -> None:
        self.calls = 0

    async def record(self, match_id: str, replay: Any) -> str:
        self.calls += 1
        await asyncio.Event().wait()
        return ""


@pytest.mark.parametrize("game", GAMES)
def test_a_match_that_ended_before_its_referee_died_is_recorded_once_by_the_adopter(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal's end entry comes before the result: the adopter records the same outcome, plays nothing."""

    async def scenario() -> None:
        stuck = StuckSink()
        async with two_referees(monkeypatch, sink_a=stuck) as (a, b, store, prefix):
            run = uuid.uuid4().hex[:6]
            x, y = BotId(f"x-{run}"), BotId(f"y-{run}")
            cx = BotClient(FirstBot, f"127.0.0.1:{a.port}", store.issue(BotIdentity(x, "X")), games=[game])
            cy = BotClient(FirstBot, f"127.0.0.1:{a.port}", store.issue(BotIdentity(y, "Y")), games=[game])
            tasks = [asyncio.create_task(cx.run(1)), asyncio.create_task(cy.run(1))]
            await wait_for(lambda: len(a.referee.sessions) == 2, 10, "the bots")
            runner = a.referee.start_match(
                game=game, seats=[SeatSpec(bot_id=x), SeatSpec(bot_id=y)], seed=7, time_control=PATIENT.to_proto()
            )
            await wait_for(lambda: stuck.calls, 30, "the match to end and its result to be on the way")
            journal = RedisJournal(b.referee.relay.redis, prefix, "reader", "-")  # type: ignore[union-attr]
            entries = await journal.entries(runner.match_id)
            ends = [e for e in entries if e["k"] == "end"]
            assert len(ends) == 1 and ends[0]["outcome"] == runner.recorder.outcome().to_json()  # type: ignore[union-attr]
            await die(a)
            adopted = await wait_for(lambda: b.referee.get(runner.match_id), 30, "referee B to adopt the match")
            await asyncio.wait_for(adopted.wait(), 30)
            b_sink = b.referee.sink
            assert isinstance(b_sink, MemoryResultSink) and b_sink.writes == 1
            replay = b_sink.replays[runner.match_id]
            verify(replay)
            played = [e for e in entries if e["k"] == "d"]
            assert [d.option_id for d in replay.decisions] == [e["o"] for e in played]  # nothing played again
            assert replay.outcome is not None and replay.outcome.to_json() == ends[0]["outcome"]
            assert replay.meta["takeovers"] == [{"referee": b.referee.relay.id, "at": len(played)}]  # type: ignore[union-attr]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_a_referee_whose_lease_lapsed_while_it_lived_stops_at_once_and_the_match_goes_on(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stalled referee (not dead) finds at its next lease refresh that another referee owns its match.

    It drops the match there and then (no waiting for its next decision), which frees its bot's
    seat, and the new owner plays that seat through the relay and finishes the match.
    """

    async def scenario() -> None:
        PausingBot.release.clear()
        PausingBot.paused.clear()
        async with two_referees(monkeypatch, lease="30") as (a, b, store, prefix):
            run = uuid.uuid4().hex[:6]
            x, y = BotId(f"x-{run}"), BotId(f"y-{run}")
            cx = BotClient(PausingBot, f"127.0.0.1:{a.port}", store.issue(BotIdentity(x, "X")), games=[game])
            cy = BotClient(FirstBot, f"127.0.0.1:{b.port}", store.issue(BotIdentity(y, "Y")), games=[game])
            tasks = [asyncio.create_task(cx.run(1)), asyncio.create_task(cy.run(1))]
            await wait_for(lambda: len(a.referee.sessions) == 1 and len(b.referee.sessions) == 1, 10, "the bots")
            runner = a.referee.start_match(
                game=game, seats=[SeatSpec(bot_id=x), SeatSpec(bot_id=y)], seed=3, time_control=PATIENT.to_proto()
            )
            await wait_for(PausingBot.paused.is_set, 20, "X to be thinking over its fourth decision")
            relay_a, relay_b = a.referee.relay, b.referee.relay
            assert relay_a is not None and relay_b is not None
            # A stalls: its lease refresh stops and the lease lapses; B takes the match over.
            relay_a._tasks[2].cancel()
            await relay_a.redis.delete(f"{prefix}:referee:{relay_a.id}")
            assert await relay_b.take_over_orphans() == [runner.match_id]
            owner = keys(prefix, runner.match_id)[0]
            await wait_for(lambda: b.referee.get(runner.match_id) is not None, 10, "B's runner")
            for _ in range(200):
                if await relay_b.redis.get(owner) == relay_b.journal.me.encode():
                    break
                await asyncio.sleep(0.05)
            assert await relay_b.redis.get(owner) == relay_b.journal.me.encode()
            # A wakes up: its next refresh finds the lease had lapsed and the match gone.
            await relay_a.publish_presence()
            await asyncio.wait_for(runner.wait(), 10)
            assert runner.abandoned and "took the match over" in runner.error, runner.error
            assert not public_match(runner).HasField("seed"), "taken over, the match goes on: its seed stays hidden"
            a_sink = a.referee.sink
            assert isinstance(a_sink, MemoryResultSink) and not a_sink.replays
            PausingBot.release.set()
            adopted = b.referee.get(runner.match_id)
            assert adopted is not None
            await asyncio.wait_for(adopted.wait(), 30)
            assert adopted.state is MatchState.SUCCEEDED and adopted.replay is not None
            verify(adopted.replay)
            assert adopted.replay.outcome is not None
            assert adopted.replay.outcome.termination not in (Termination.FORFEIT, Termination.CANCELLED)
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)

    asyncio.run(scenario())


def test_the_sdk_reconnects_to_the_next_address_of_its_list() -> None:
    """``--server A,B``: each reconnect goes to the next address; an empty list is refused."""
    client = BotClient(FirstBot, " 127.0.0.1:1 , 127.0.0.1:2,", "token")
    assert client.servers == ["127.0.0.1:1", "127.0.0.1:2"] and client.server == "127.0.0.1:1"
    client._next_server()
    assert client.server == "127.0.0.1:2"
    client._next_server()
    assert client.server == "127.0.0.1:1"
    with pytest.raises(ValueError, match="no referee address"):
        BotClient(FirstBot, " , ", "token")
