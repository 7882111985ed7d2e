"""Several referees: a match between bots connected to different referee processes, via Redis.

Partitions: the origin plays a seat whose bot is on another referee (presence, claim, decisions
and answers relayed, match end frees the host's seat); the remote bot drops and comes back to its
referee within the grace and the match resumes. Needs Redis at ``REDIS_URL`` (default 127.0.0.1:6379);
the test fails, not skips, without it.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import redis.asyncio as aioredis

from referee.core.ids import BotId
from referee.core.replay import verify
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.match import MatchState
from referee.server.relay import RedisRelay, RelayLink
from referee.server.service import RefereeServer, create_server
from referee.server.sinks import MemoryResultSink
from tests.referee.bots import FirstBot, SilentBot
from tests.referee.harness import FAST, GAMES
from tests.referee.test_faults import DroppingBot

REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
"""The Redis of the test services (``scripts/services.sh`` exports ``REDIS_URL``)."""


@asynccontextmanager
async def two_referees() -> AsyncIterator[tuple[RefereeServer, RefereeServer, MemoryTokenStore]]:
    store = MemoryTokenStore()
    prefix = f"brawltest-{uuid.uuid4().hex[:8]}"
    servers = [
        create_server(
            "127.0.0.1:0",
            tokens=store,
            sink=MemoryResultSink(),
            settings=RefereeSettings(ping_interval=0.2),
            relay_url=REDIS,
            relay_prefix=prefix,
        )
        for _ in range(2)
    ]
    try:
        for s in servers:
            await s.start()
    except Exception as exc:  # a missing Redis must fail loudly with the reason
        pytest.fail(f"Redis at {REDIS} is required for the relay test: {exc!r}")
    try:
        yield servers[0], servers[1], store
    finally:
        for s in servers:
            await s.stop(0.5)
        # Journals of matches handed over at the stop would otherwise stay in Redis.
        client = aioredis.Redis.from_url(REDIS)
        doomed = [k async for k in client.scan_iter(f"{prefix}:*")]
        if doomed:
            await client.delete(*doomed)
        await client.aclose()


@pytest.mark.parametrize("game", GAMES)
def test_match_between_bots_on_two_referees(game: str) -> None:
    async def scenario() -> None:
        async with two_referees() as (origin, host, store):
            tx = store.issue(BotIdentity(BotId("x"), "X"))
            ty = store.issue(BotIdentity(BotId("y"), "Y"))
            cx = BotClient(FirstBot, f"127.0.0.1:{origin.port}", tx, games=[game])
            cy = BotClient(FirstBot, f"127.0.0.1:{host.port}", ty, games=[game], max_matches=2)
            tasks = [asyncio.create_task(cx.run(2)), asyncio.create_task(cy.run(2))]
            runners = [
                origin.referee.start_match(game=game, seats=seats, seed=n, time_control=FAST.to_proto())
                for n, seats in enumerate([[_bot("x"), _bot("y")], [_bot("y"), _bot("x")]])
            ]
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 30)
            for r in runners:
                assert r.state is MatchState.SUCCEEDED, (r.error, r.replay and r.replay.incidents)
                assert r.replay is not None and not r.replay.incidents
                verify(r.replay)
                assert any(isinstance(st.link, RelayLink) for st in r.seats)
            await asyncio.wait_for(asyncio.gather(*tasks), 10)
            assert cy.host.finished == 2
            assert not host.referee.relay.hosted  # type: ignore[union-attr]
            assert all(not s.seats for s in host.referee.sessions.values())

    asyncio.run(scenario())


def _bot(name: str):  # type: ignore[no-untyped-def]
    from referee.server.match import SeatSpec

    return SeatSpec(bot_id=BotId(name))


@pytest.mark.parametrize("game", GAMES)
def test_remote_bot_reconnects_to_its_referee_and_the_match_resumes(game: str) -> None:
    async def scenario() -> None:
        async with two_referees() as (origin, host, store):
            tx = store.issue(BotIdentity(BotId("x"), "X"))
            ty = store.issue(BotIdentity(BotId("y"), "Y"))
            cx = BotClient(FirstBot, f"127.0.0.1:{origin.port}", tx, games=[game])
            DroppingBot.dropped = False
            DroppingBot.loop = asyncio.get_running_loop()  # type: ignore[attr-defined]
            cy = BotClient(DroppingBot, f"127.0.0.1:{host.port}", ty, games=[game])
            DroppingBot.client = cy
            tasks = [asyncio.create_task(cx.run(1)), asyncio.create_task(cy.run(1))]
            r = origin.referee.start_match(
                game=game, seats=[_bot("y"), _bot("x")], seed=3, time_control=FAST.to_proto()
            )
            await asyncio.wait_for(r.wait(), 30)
            assert DroppingBot.dropped and cy.connections == 2
            assert r.state is MatchState.SUCCEEDED and r.replay is not None
            kinds = [i.kind for i in r.replay.incidents]
            assert kinds[:2] == ["disconnect", "reconnect"], r.replay.incidents
            assert r.replay.outcome is not None and r.replay.outcome.termination.value != "forfeit"
            verify(r.replay)
            await asyncio.wait_for(asyncio.gather(*tasks), 10)

    asyncio.run(scenario())


async def _lend_a_seat(origin: RefereeServer, host: RefereeServer, store: MemoryTokenStore, seed: int) -> list[Any]:
    """Starts a long match on ``origin`` whose seat 1 is a bot on ``host``; returns the client tasks."""
    game = GAMES[0]
    tx = store.issue(BotIdentity(BotId("x"), "X"))
    ty = store.issue(BotIdentity(BotId("y"), "Y"))
    clients = [
        BotClient(SilentBot, f"127.0.0.1:{origin.port}", tx, games=[game]),
        BotClient(SilentBot, f"127.0.0.1:{host.port}", ty, games=[game]),
    ]
    tasks = [asyncio.create_task(c.run(1)) for c in clients]
    patient = TimeSettings(decision_time=60.0, bank_time=60.0).to_proto()  # the match stays on
    origin.referee.start_match(game=game, seats=[_bot("x"), _bot("y")], seed=seed, time_control=patient)
    relay = host.referee.relay
    assert relay is not None
    for _ in range(200):
        if relay.hosted:
            return tasks
        await asyncio.sleep(0.05)
    raise AssertionError("the origin never claimed the host's seat")


def _kill_relay(server: RefereeServer) -> RedisRelay:
    """Stops a referee's relay tasks without any goodbye, as a SIGKILL would."""
    relay = server.referee.relay
    assert relay is not None
    for task in relay._tasks:
        task.cancel()
    return relay


def test_host_frees_the_seats_it_lent_when_the_origin_dies() -> None:
    """A dead origin sends no match end: when its lease lapses the host frees the lent seat."""

    async def scenario() -> None:
        async with two_referees() as (origin, host, store):
            tasks = await _lend_a_seat(origin, host, store, seed=4)
            relay = host.referee.relay
            assert relay is not None
            session = next(iter(host.referee.sessions.values()))
            assert session.seats
            assert await relay.free_seats_of_lost_origins() == 0  # the origin is alive
            dead = _kill_relay(origin)
            await relay.redis.delete(f"{relay.prefix}:referee:{dead.id}")  # its lease lapses
            assert await relay.free_seats_of_lost_origins() == 1
            assert not relay.hosted and not session.seats
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(scenario())


def test_a_restarted_origin_under_the_same_id_is_a_lost_origin() -> None:
    """A lease naming another boot means the origin restarted and forgot its matches."""

    async def scenario() -> None:
        async with two_referees() as (origin, host, store):
            tasks = await _lend_a_seat(origin, host, store, seed=5)
            relay = host.referee.relay
            assert relay is not None
            dead = _kill_relay(origin)
            await relay.redis.set(f"{relay.prefix}:referee:{dead.id}", "another-boot", ex=10)
            assert await relay.free_seats_of_lost_origins() == 1
            assert not relay.hosted
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(scenario())
