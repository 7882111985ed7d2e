"""Sandboxes never outlive their host.

A real ``brawl host`` process runs a hosted bot connected to a real referee; the test SIGKILLs the
host (no clean-up code of its own can run) and waits, with a bounded deadline, until every process
of the sandbox is gone. A second test leaves a run group behind as a dead host would, with a
process in it, and checks that the next host's start-up sweep kills it and removes the group while
a live host's group is left alone.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink
from tests.workers.conftest import database_url
from webapp.bots import services as bot_services
from webapp.bots.models import BotToken
from webapp.bots.token_store import DjangoTokenStore
from webapp.hosting import services
from webapp.hosting.models import HostedRun
from workers.hosting import sandbox
from workers.hosting.host import BotHost, HostSettings

REPO = Path(__file__).resolve().parents[2]
UPLOADS = Path(__file__).parent / "uploads"
GAME = "scrumbrawl"
pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or os.geteuid() != 0, reason="needs bubblewrap and root")


def _start_time(pid: int) -> int | None:
    return sandbox.process_start(pid)


def descendants(root: int) -> dict[int, int]:
    """Every process below ``root`` (pid -> start time), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found: dict[int, int] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        start = _start_time(pid)
        if start is not None:
            found[pid] = start
        todo += children.get(pid, [])
    return found


def still_running(processes: dict[int, int]) -> dict[int, int]:
    """Those of ``processes`` still alive (the same pid with the same start time, never a reused pid)."""
    return {pid: start for pid, start in processes.items() if _start_time(pid) == start}


def wait_until_gone(processes: dict[int, int], limit: float = 30.0) -> dict[int, int]:
    """Polls until none of ``processes`` runs or ``limit`` seconds pass; returns those left."""
    deadline = time.monotonic() + limit
    left = still_running(processes)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = still_running(processes)
    return left


@pytest.mark.django_db(transaction=True)
def test_a_sigkilled_host_leaves_no_sandbox_behind(tmp_path: Path) -> None:
    var = tmp_path / "var"
    storage = var / "hosted"
    alice = User.objects.create_user("alice-life", password="x")
    bot, _ = bot_services.do_create_bot(alice, GAME, "Hosted-Life")
    with override_settings(BRAWL_HOSTED_DIR=str(storage)):
        row = services.do_upload(
            alice, bot, "first_bot.py", (UPLOADS / "first_bot.py").read_bytes(), "first_bot:FirstBot"
        )
        services.do_record_validation(row, True, "ok", "")  # validated: the host runs it at once
    env = {
        **os.environ,
        "PYTHONPATH": f"{REPO}:{REPO / 'proto'}",
        "PYTHONUNBUFFERED": "1",
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DATABASE_URL": database_url(),
        "BRAWL_VAR_DIR": str(var),
    }
    log_path = tmp_path / "host.log"
    sandboxes: dict[int, int] = {}

    async def scenario() -> None:
        server = create_server("127.0.0.1:0", tokens=DjangoTokenStore(), sink=MemoryResultSink(), secret="s" * 32)
        await server.start()
        with log_path.open("wb") as out:
            host = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "host", "--server", f"127.0.0.1:{server.port}", "--poll", "0.2"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not any(s.identity.bot_id == str(bot.pk) for s in server.referee.sessions.values()):
                assert host.poll() is None, "brawl host exited:\n" + log_path.read_text()[-3000:]
                assert time.monotonic() < deadline, "the hosted bot never connected:\n" + log_path.read_text()[-3000:]
                await asyncio.sleep(0.1)
            sandboxes.update(descendants(host.pid))
            names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in sandboxes}
            assert "bwrap" in names and len(sandboxes) >= 3, names  # bubblewrap, its init, the bot
            host.send_signal(signal.SIGKILL)
            await asyncio.to_thread(host.wait)
            left = await asyncio.to_thread(wait_until_gone, sandboxes)
            assert not left, {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:120] for pid in left}
        finally:
            if host.poll() is None:
                host.kill()
                host.wait()
            await server.stop(0.5)

    asyncio.run(scenario())
    # The next host closes the run the dead one left open, and revokes its token.
    [run] = HostedRun.objects.filter(upload=row)
    assert run.ended is None and run.verdict == "running" and run.token_id is not None
    assert BotToken.objects.get(pk=run.token_id).revoked_at is None
    assert BotHost(HostSettings()).close_orphan_runs() == 1
    run.refresh_from_db()
    assert run.ended is not None and run.verdict == services.ORPHAN_VERDICT
    assert BotToken.objects.get(pk=run.token_id).revoked_at is not None


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_the_next_host_kills_and_removes_what_a_dead_host_left(tmp_path: Path) -> None:
    limits = sandbox.Limits()
    # A dead host's group (its pid no longer runs with that start time), with a live process in it.
    dead = sandbox.Cgroups.create(f"host-{_dead_pid()}-1-slot-99-1", limits)
    assert dead is not None, "cgroups are writable here (as root in this container)"
    procs = " ".join(str(p / "cgroup.procs") for p in dead.paths.values())
    leftover = subprocess.Popen(["/bin/sh", "-c", sandbox.ATTACH_SCRIPT, "sh", "sleep", "600"], env={
        "BRAWL_CGROUP_PROCS": procs, "PATH": "/usr/bin:/bin"})  # fmt: skip
    # A live host's group (this process) is never touched.
    live = sandbox.Cgroups.create(sandbox.group_name(98), limits)
    assert live is not None
    try:
        deadline = time.monotonic() + 10
        while str(leftover.pid) not in next(iter(dead.paths.values())).joinpath("cgroup.procs").read_text():
            assert time.monotonic() < deadline and leftover.poll() is None
            time.sleep(0.02)
        report = sandbox.sweep_leftovers()
        assert report.groups >= 1 and report.killed >= 1 and report.left == 0
        assert leftover.wait(timeout=10) == -signal.SIGKILL
        assert not any(path.exists() for path in dead.paths.values())
        assert all(path.exists() for path in live.paths.values())
    finally:
        if leftover.poll() is None:
            leftover.kill()
            leftover.wait()
        live.remove()
        dead.remove(wait=0)


def test_a_stop_at_any_moment_of_the_start_leaves_nothing_running(tmp_path: Path) -> None:
    """A stop that lands while bubblewrap is still setting up (before its child has its parent-death
    signal) once left the bot running until it ended by itself; the run's cgroups now catch it."""
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "lingerer_7f3a.py").write_text("import time\ntime.sleep(30)\n")
    for path in (tmp_path, bot_dir):
        path.chmod(0o755)

    def lingering() -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and b"lingerer_7f3a:X" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
        return found

    async def scenario() -> None:
        for delay in (0.0, 0.002, 0.005, 0.008, 0.01, 0.012, 0.015, 0.02, 0.03, 0.05, 0.2) * 2:
            command = sandbox.BotCommand("check", "lingerer_7f3a:X")
            run = await sandbox.start(bot_dir, tmp_path, command, slot=97)
            assert run.cgroups is not None  # writable here: the stop relies on them
            await asyncio.sleep(delay)
            await asyncio.wait_for(run.stop(), 20)
            deadline = time.monotonic() + 10
            while lingering() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert not lingering(), f"the bot outlived a stop {delay * 1000:.0f} ms after its start"

    asyncio.run(scenario())
