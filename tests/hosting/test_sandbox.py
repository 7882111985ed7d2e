"""Hosted bots in a real bubblewrap sandbox, playing on a real referee on loopback.

Each hostile upload runs as a hosted bot in a ScrumBrawl match against a connected bot; the test
reads the hosted bot's log (what the author sees) and the match's end, and checks that the attempt
was refused and that the connected bot's match went on.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from referee.protocol.timecontrol import TimeSettings
from referee.server.match import MatchState
from tests.referee.bots import FirstBot
from tests.referee.harness import Env, referee_env, wait_connected
from workers.hosting import sandbox
from workers.hosting.proxy import UnixProxy

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0,
    reason="needs bubblewrap and root (scripts/services.sh installs bubblewrap)",
)

UPLOADS = Path(__file__).parent / "uploads"
GAME = "scrumbrawl"
TIME = TimeSettings(
    decision_time=2.0, bank_time=4.0, max_overrun=0.5, max_strikes=2, reconnect_grace=1.0, max_rtt_credit=0.05
)
SMALL = sandbox.Limits(memory_bytes=768 * 1024 * 1024, processes=48)


@asynccontextmanager
async def hosted(
    env: Env, entry: str, bot_id: str, *, slot: int, targets: list[str] | None = None, limits: sandbox.Limits = SMALL
) -> AsyncIterator[sandbox.SandboxRun]:
    """Runs ``entry`` from tests/hosting/uploads as hosted bot ``bot_id`` through a Unix-socket proxy."""
    root = Path(tempfile.mkdtemp(prefix="brawl-hosted-"))
    bot_dir, sock_dir = root / "bot", root / "run"
    shutil.copytree(UPLOADS, bot_dir)
    sock_dir.mkdir()
    if targets:
        (bot_dir / "targets.txt").write_text("\n".join(targets) + "\n")
    for path in (root, bot_dir, sock_dir):
        path.chmod(0o755)
    proxy = UnixProxy(sock_dir / sandbox.SOCKET_NAME, "127.0.0.1", env.server.port)
    await proxy.start()
    command = sandbox.BotCommand("python", entry, token=env.token(bot_id), max_matches=4, games=(GAME,))
    run = await sandbox.start(bot_dir, sock_dir, command, slot=slot, limits=limits)
    try:
        await wait_connected(env, bot_id, timeout=30)
        yield run
    finally:
        await run.stop()
        await proxy.stop()
        shutil.rmtree(root, ignore_errors=True)


async def play(env: Env, hosted_id: str, seed: int = 1) -> object:
    """Plays one match, hosted bot against the connected bot ``conn``; returns the runner."""
    runner = env.start(GAME, [hosted_id, "conn"], seed=seed, time=TIME)
    await asyncio.wait_for(runner.wait(), 120)
    return runner


def test_hosted_bot_plays_ladder_matches_against_a_connected_bot() -> None:
    """The hosted bot connects through the Unix socket, says Hello, and plays two whole matches."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME])
            await wait_connected(env, "conn")
            async with hosted(env, "first_bot:FirstBot", "hosted", slot=1) as run:
                for seed in (1, 2):
                    runner = await play(env, "hosted", seed)
                    assert runner.state is MatchState.SUCCEEDED, runner.error
                    assert runner.replay is not None and not runner.replay.incidents
                await asyncio.sleep(0)
            assert "hosted bot starts match" in run.log.text()
            assert run.verdict() == "stopped by the host", run.log.text()

    asyncio.run(scenario())


def test_network_connections_are_refused() -> None:
    """A bot that opens TCP connections (to a port listening on the host's loopback and outside) gets none."""

    async def scenario() -> None:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        try:
            async with referee_env() as env:
                env.connect(FirstBot, "conn", games=[GAME])
                targets = [f"127.0.0.1:{port}", f"127.0.0.1:{env.server.port}", "192.0.2.1:80"]
                async with hosted(env, "hostile:NetworkBot", "net", slot=2, targets=targets) as run:
                    runner = await play(env, "net")
                    assert runner.state is MatchState.SUCCEEDED
            log = run.log.text()
            assert "ESCAPED" not in log, log
            assert log.count("CONTAINED network") == 3, log
        finally:
            listener.close()

    asyncio.run(scenario())


def test_writes_outside_and_inside_its_folder_are_refused() -> None:
    """A bot cannot write its own (read-only) folder, the project, /usr or /etc; nothing appears there."""

    async def scenario() -> None:
        canary = Path(tempfile.mkdtemp(prefix="brawl-canary-"))
        target = canary / "planted.txt"
        try:
            async with referee_env() as env:
                env.connect(FirstBot, "conn", games=[GAME])
                async with hosted(env, "hostile:WriterBot", "writer", slot=3, targets=[str(target)]) as run:
                    await play(env, "writer")
            log = run.log.text()
            assert "ESCAPED" not in log, log
            assert log.count("CONTAINED write") == 5, log
            assert not target.exists()
            assert not Path("/usr/planted.txt").exists() and not Path("/etc/planted.txt").exists()
        finally:
            shutil.rmtree(canary, ignore_errors=True)

    asyncio.run(scenario())


def test_a_bot_can_write_and_read_its_private_tmp_up_to_its_size_and_nothing_of_it_remains() -> None:
    """Issue 24, finding 8: /tmp (also ``HOME``) was a root-owned tmpfs the bot's uid could not
    write. Now the bot writes and reads a file there and under ``~/.cache``; the tmpfs fills at
    ``Limits.tmp_bytes`` (4 MiB here: 3 blocks of 1 MiB fit beside the rest, then ``ENOSPC``);
    nothing appears in the host's /tmp, and the next run of the same slot starts with an empty /tmp."""
    marker = f"brawl-tmp-{os.getpid()}"
    limits = sandbox.Limits(memory_bytes=SMALL.memory_bytes, processes=SMALL.processes, tmp_bytes=4 * 1024 * 1024)

    async def scenario() -> list[str]:
        logs = []
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME])
            for n in range(2):
                async with hosted(env, "tmp_bot:TmpBot", f"tmp{n}", slot=11, targets=[marker], limits=limits) as run:
                    runner = await play(env, f"tmp{n}")
                    assert runner.state is MatchState.SUCCEEDED, runner.error
                logs.append(run.log.text())
        return logs

    logs = asyncio.run(scenario())
    for log in logs:
        assert "TMP before []" in log, log
        assert f"TMP read hello {marker}" in log, log
        assert "TMP home /tmp/.cache/probe.txt at home" in log, log
        full = next(line for line in log.splitlines() if line.startswith("TMP full "))
        assert full.startswith("TMP full 3 OSError: errno 28"), full  # ENOSPC at the tmpfs size
    assert not Path("/tmp", f"{marker}.txt").exists(), "the bot's /tmp is not the host's"


def test_fork_bomb_stops_at_the_process_limit() -> None:
    """Forking without limit stops at the bot's own process limit; the match still finishes."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME])
            async with hosted(env, "hostile:ForkBot", "forker", slot=4) as run:
                runner = await play(env, "forker")
                assert runner.state is MatchState.SUCCEEDED
        log = run.log.text()
        assert "CONTAINED fork bomb: BlockingIOError" in log, log
        forked = int(log.split("forked ")[1].split()[0])
        assert forked < SMALL.processes
        assert sandbox.verdict(1, log, stopped=False) == "process limit reached (too many processes or threads)"

    asyncio.run(scenario())


def test_memory_hog_is_stopped_and_named_out_of_memory() -> None:
    """Allocating past the memory limit ends the bot with an out-of-memory verdict; its seat forfeits."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME])
            async with hosted(env, "hostile:MemoryBot", "hog", slot=5) as run:
                runner = await play(env, "hog")
            assert runner.state is MatchState.SUCCEEDED
            assert runner.replay is not None
        assert run.verdict() == "out of memory (memory limit reached)", run.log.text()

    asyncio.run(scenario())


@pytest.mark.skipif(sandbox.Cgroups.create("probe", sandbox.Limits()) is None, reason="cgroups are not writable here")
def test_resident_memory_past_the_cgroup_limit_is_an_oom_kill_named_as_such() -> None:
    """With a resident limit below the address-space limit, the kernel's OOM killer ends the hog."""
    sandbox.Cgroups.create("probe", sandbox.Limits()).remove()  # type: ignore[union-attr]
    limits = sandbox.Limits(memory_bytes=2048 * 1024 * 1024, resident_bytes=160 * 1024 * 1024, processes=48)

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME])
            async with hosted(env, "hostile:MemoryBot", "oom", slot=8, limits=limits) as run:
                assert run.cgroups is not None
                runner = await play(env, "oom")
                await asyncio.wait_for(run.wait(), 30)
            assert runner.state is MatchState.SUCCEEDED
        assert "MemoryError" not in run.log.text()  # the kernel killed it; Python never saw an error
        assert run.verdict() == "out of memory (memory limit reached)", run.log.text()

    asyncio.run(scenario())


def test_a_bot_that_never_answers_forfeits_on_time() -> None:
    """A silent bot is held to the referee's clock: strikes, then forfeit; the connected bot's match ends."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME])
            async with hosted(env, "hostile:SilentBot", "mute", slot=6) as run:
                runner = await play(env, "mute")
            assert runner.state is MatchState.SUCCEEDED
            assert runner.replay is not None
            reasons = " ".join(str(i) for i in runner.replay.incidents)
            assert "strike" in reasons or "forfeit" in reasons or "time" in reasons, reasons
        assert run.verdict() == "stopped by the host"

    asyncio.run(scenario())


def test_snooping_finds_no_other_bot_no_database_and_no_service_environment() -> None:
    """Another bot's files, the database file and the service's secrets are not in the sandbox."""

    async def scenario() -> None:
        other = Path(tempfile.mkdtemp(prefix="brawl-otherbot-"))
        (other / "secret_strategy.py").write_text("SECRET = 'other bot source'\n")
        database = Path(tempfile.mkdtemp(prefix="brawl-var-")) / "db.sqlite3"
        database.write_text("service database")
        os.environ["BRAWL_HOSTING_CANARY"] = "service-secret-canary"
        try:
            async with referee_env() as env:
                env.connect(FirstBot, "conn", games=[GAME])
                targets = [str(other / "secret_strategy.py"), str(database), "/work/main/var/db.sqlite3"]
                async with hosted(env, "hostile:SnoopBot", "snoop", slot=7, targets=targets) as run:
                    await play(env, "snoop")
            log = run.log.text()
            assert "ESCAPED" not in log, log
            assert log.count("CONTAINED read") == 4, log  # three files and /proc/1/environ
            assert "service-secret-canary" not in log and "other bot source" not in log
            env_line = next(line for line in log.splitlines() if line.startswith("ENVIRONMENT "))
            names = {pair.split("=", 1)[0] for pair in env_line.split()[1:]}
            assert names <= {"HOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "BRAWL_SERVER", "BRAWL_TOKEN", "PWD"} | {
                "GRPC_ENABLE_FORK_SUPPORT",
                "GRPC_VERBOSITY",
                "LC_CTYPE",
            }
            assert not {"DATABASE_URL", "REDIS_URL", "BRAWL_INTERNAL_TOKEN"} & names
        finally:
            del os.environ["BRAWL_HOSTING_CANARY"]
            shutil.rmtree(other, ignore_errors=True)
            shutil.rmtree(database.parent, ignore_errors=True)

    asyncio.run(scenario())


@pytest.mark.skipif(sandbox.Cgroups.create("probe", sandbox.Limits()) is None, reason="cgroups are not writable here")
def test_each_run_is_in_its_own_cgroups_with_its_cpu_quota_and_limits(tmp_path: Path) -> None:
    """The sandbox's processes are in the run's groups, which carry the CPU quota, memory and pids limits."""
    sandbox.Cgroups.create("probe", sandbox.Limits()).remove()  # type: ignore[union-attr]
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "sleeper.py").write_text("import time\ntime.sleep(60)\n")
    for path in (tmp_path, bot_dir):
        path.chmod(0o755)
    limits = sandbox.Limits(cpu_share=0.25, resident_bytes=300 * 1024 * 1024, processes=40)

    async def scenario() -> None:
        run = await sandbox.start(bot_dir, tmp_path, sandbox.BotCommand("check", "sleeper:X"), slot=9, limits=limits)
        try:
            assert run.cgroups is not None
            groups = run.cgroups.paths

            def in_every_group(pid: int) -> bool:
                return all(str(pid) in (path / "cgroup.procs").read_text().split() for path in groups.values())

            # The launcher's shell moves itself into every group, then execs bubblewrap (same pid).
            for _ in range(500):
                if in_every_group(run.process.pid):
                    break
                await asyncio.sleep(0.01)
            assert in_every_group(run.process.pid)
            if run.cgroups.v2:
                assert (groups["unified"] / "cpu.max").read_text().split()[0] == "25000"
            else:
                assert (groups["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "25000"
                assert int((groups["memory"] / "memory.limit_in_bytes").read_text()) <= 300 * 1024 * 1024
                assert (groups["pids"] / "pids.max").read_text().strip() == "40"
        finally:
            await run.stop()
        assert run.cgroups is None and not any(p.exists() for p in groups.values())  # removed at the end

    asyncio.run(scenario())
