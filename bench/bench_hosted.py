"""Hosted bots: start-up time of a sandboxed bot and the overhead per decision against a connected bot.

    .venv/bin/python -m bench.bench_hosted [--runs 5] [--matches 3]

Start-up: from starting the process to the referee seeing its session (the bot connected and said
Hello), for the same SDK bot (a) in the sandbox through the Unix-socket proxy and (b) as a plain
subprocess over TCP (a connected bot). Per decision: the referee's own ``think_ms`` (request sent to
answer received) of the same first-option bot over the same ScrumBrawl matches (same seeds) against
the ``random`` house bot, hosted versus connected; the difference is what the sandbox and the proxy
add to each decision. A third arm runs the sandbox without its seccomp filter, to show what the
filter costs. Needs bubblewrap and root.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from referee.core.ids import BotId
from referee.protocol.timecontrol import TimeSettings
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.match import SeatSpec
from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink
from workers.hosting import sandbox
from workers.hosting.proxy import UnixProxy

UPLOADS = Path(__file__).resolve().parents[1] / "tests" / "hosting" / "uploads"
TIME = TimeSettings(
    decision_time=2.0, bank_time=10.0, max_overrun=0.5, max_strikes=3, reconnect_grace=1.0, max_rtt_credit=0.05
)


async def _connected(server: object, bot_id: str) -> None:
    while not any(s.identity.bot_id == bot_id for s in server.referee.sessions.values()):  # type: ignore[attr-defined]
        await asyncio.sleep(0.002)


async def main(runs: int, matches: int) -> None:
    store = MemoryTokenStore()
    token = store.issue(BotIdentity(BotId("b"), "b", "v1", "bench", frozenset({"scrumbrawl"})))
    server = create_server(
        "127.0.0.1:0",
        tokens=store,
        sink=MemoryResultSink(),
        settings=RefereeSettings(ping_interval=1.0),
        secret="x" * 32,
    )
    await server.start()
    root = Path(tempfile.mkdtemp(prefix="brawl-bench-"))
    root.chmod(0o755)
    proxy = UnixProxy(root / sandbox.SOCKET_NAME, "127.0.0.1", server.port)
    await proxy.start()
    command = sandbox.BotCommand("python", "first_bot:FirstBot", token=token, max_matches=1, games=("scrumbrawl",))
    env = {
        **os.environ,
        "BRAWL_SERVER": f"127.0.0.1:{server.port}",
        "BRAWL_TOKEN": token,
        "PYTHONPATH": os.pathsep.join([str(UPLOADS), *sys.path]),
    }

    async def hosted(syscall_filter: bool = True) -> tuple[float, object]:
        t0 = time.perf_counter()
        run = await sandbox.start(UPLOADS, root, command, slot=30, syscall_filter=syscall_filter)
        await asyncio.wait_for(_connected(server, "b"), 60)
        return time.perf_counter() - t0, run

    async def hosted_unfiltered() -> tuple[float, object]:
        return await hosted(syscall_filter=False)

    async def plain() -> tuple[float, object]:
        t0 = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", sandbox.PYTHON_RUNNER, "first_bot:FirstBot", "1", "scrumbrawl", env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        await asyncio.wait_for(_connected(server, "b"), 60)
        return time.perf_counter() - t0, proc

    async def stop(handle: object) -> None:
        if isinstance(handle, sandbox.SandboxRun):
            await handle.stop()
        else:
            handle.terminate()  # type: ignore[attr-defined]
            await handle.wait()  # type: ignore[attr-defined]
        while any(s.identity.bot_id == "b" for s in server.referee.sessions.values()):
            await asyncio.sleep(0.01)

    arms = (
        ("hosted (sandbox + proxy + syscall filter)", hosted),
        ("hosted without the syscall filter", hosted_unfiltered),
        ("connected (plain process, TCP)", plain),
    )
    for label, starter in arms:
        startups, thinks = [], []
        for _ in range(runs):
            seconds, handle = await starter()
            startups.append(seconds)
            await stop(handle)
        seconds, handle = await starter()
        for seed in range(1, matches + 1):
            runner = server.referee.start_match(
                game="scrumbrawl",
                seats=[SeatSpec(bot_id=BotId("b")), SeatSpec(house_bot="random")],
                seed=seed,
                time_control=TIME.to_proto(),
            )
            replay = await asyncio.wait_for(runner.wait(), 300)
            assert replay is not None
            thinks += [d.think_ms for d in replay.decisions if int(d.seat) == 0 and d.think_ms is not None]
        await stop(handle)
        print(
            f"{label}: start-up to Hello median {statistics.median(startups) * 1000:.0f} ms "
            f"(min {min(startups) * 1000:.0f}, max {max(startups) * 1000:.0f}, {runs} runs); "
            f"think_ms per decision mean {statistics.mean(thinks):.2f} ms, "
            f"p95 {sorted(thinks)[int(len(thinks) * 0.95)]} ms over {len(thinks)} decisions"
        )
    await proxy.stop()
    await server.stop(0.5)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--matches", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.matches))
