"""Several referee processes behind one bot port (``--reuse-port``, SO_REUSEPORT).

``brawl run`` starts one referee per core (with Redis); they share the bot port, the kernel
spreads the bots' connections over them, each has its own internal listener, and the relay joins
the bots of one match that landed on different processes. Needs Redis at ``REDIS_URL``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from referee.core.ids import BotId
from referee.core.replay import verify
from referee.sdk import BotClient
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.match import MatchState, SeatSpec
from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink
from service.supervise import referee_count
from tests.referee.bots import FirstBot
from tests.referee.harness import FAST

REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def test_a_bot_port_is_shared_only_when_asked() -> None:
    """Two referees asking for --reuse-port bind one port; a referee that does not is refused it."""

    async def scenario() -> None:
        store = MemoryTokenStore()
        first = create_server("127.0.0.1:0", tokens=store, sink=MemoryResultSink(), secret="s" * 32, reuse_port=True)
        await first.start()
        try:
            address = f"127.0.0.1:{first.port}"
            second = create_server(address, tokens=store, sink=MemoryResultSink(), secret="s" * 32, reuse_port=True)
            await second.start()
            assert second.port == first.port and second.internal_port != first.internal_port
            await second.stop(0.1)
            with pytest.raises(RuntimeError, match="bind"):
                create_server(address, tokens=store, sink=MemoryResultSink(), secret="s" * 32, reuse_port=False)
        finally:
            await first.stop(0.1)

    asyncio.run(scenario())


def test_matches_finish_whichever_process_each_bot_lands_on() -> None:
    """Six bots connect to one shared port served by two relayed referees; every match finishes.

    Played in a fresh process, so no listener an earlier test left in this one (gRPC closes them
    lazily) can share the port. It used to hang in about a third of the runs, whatever ran
    before: at ``stop`` redis-py swallowed the cancellation of the relay writer's ``XADD`` in
    flight (or made it an exception the loop logged), the writer went back to its empty outbox,
    and ``stop`` waited for that task forever
    (``RedisRelay.stop`` now also stops the loops by a flag and waits a bounded time).
    """
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from tests.referee.test_reuse_port import shared_port_scenario; shared_port_scenario()",
        ],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def shared_port_scenario() -> None:
    """The scenario of the test above, run in its own process."""

    async def scenario() -> None:
        store = MemoryTokenStore()
        prefix = f"brawltest-{uuid.uuid4().hex[:8]}"
        servers = []
        # Not port 0 with SO_REUSEPORT: the kernel may then pick a port that a listener of an earlier
        # test still holds with SO_REUSEPORT (gRPC closes listeners lazily), and that listener would
        # take some of the bots. A plain socket is only given a port nothing holds.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            address = f"127.0.0.1:{probe.getsockname()[1]}"
        for _ in range(2):
            s = create_server(
                address,
                tokens=store,
                sink=MemoryResultSink(),
                settings=RefereeSettings(ping_interval=0.2),
                relay_url=REDIS,
                relay_prefix=prefix,
                secret="s" * 32,
                reuse_port=True,
            )
            try:
                await s.start()
            except Exception as exc:  # a missing Redis must fail loudly with the reason
                pytest.fail(f"Redis at {REDIS} is required: {exc!r}")
            servers.append(s)
        bots = [f"p{i}" for i in range(6)]
        clients = [
            BotClient(FirstBot, address, store.issue(BotIdentity(BotId(b), b)), games=["tinygame"], max_matches=4)
            for b in bots
        ]
        tasks = [asyncio.create_task(c.run()) for c in clients]
        try:
            sessions = {}
            deadline = asyncio.get_running_loop().time() + 30
            while len(sessions) < len(bots):
                if asyncio.get_running_loop().time() > deadline:
                    pytest.fail(f"only {sorted(sessions)} of {bots} had a session after 30 s")
                await asyncio.sleep(0.05)
                sessions = {
                    s.identity.bot_id: i for i, srv in enumerate(servers) for s in srv.referee.sessions.values()
                }
            runners = [
                servers[n % 2].referee.start_match(
                    game="tinygame",
                    seats=[SeatSpec(bot_id=BotId(bots[n % 6])), SeatSpec(bot_id=BotId(bots[(n + 1) % 6]))],
                    seed=n,
                    time_control=FAST.to_proto(),
                )
                for n in range(6)
            ]
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 60)
            for r in runners:
                assert r.state is MatchState.SUCCEEDED and r.replay is not None, r.error
                verify(r.replay)
        finally:
            for c in clients:
                c.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            for s in servers:
                await s.stop(0.5)
            client = aioredis.Redis.from_url(REDIS)
            doomed = [k async for k in client.scan_iter(f"{prefix}:*")]
            if doomed:
                await client.delete(*doomed)
            await client.aclose()

    asyncio.run(scenario())


def test_brawl_run_starts_one_referee_per_core_only_with_the_relay() -> None:
    """`brawl run`: one referee per core with REDIS_URL, one without; --referees N is checked."""
    cores = max(1, os.cpu_count() or 1)
    assert referee_count(None, {"REDIS_URL": "redis://x"}) == cores
    assert referee_count(None, {}) == 1
    assert referee_count(3, {"REDIS_URL": "redis://x"}) == 3
    with pytest.raises(ValueError, match="needs REDIS_URL"):
        referee_count(2, {})
    with pytest.raises(ValueError, match="at least 1"):
        referee_count(0, {"REDIS_URL": "redis://x"})
