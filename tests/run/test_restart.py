"""Kill each kind of child of a real ``brawl run`` and see it come back.

``brawl run`` (embedded defaults: SQLite, the ``brawlfs`` broker) is started on free ports. Each of
its services - referee, worker (with beat), web, house bots - is SIGKILLed in turn, as a crash
would end it. The supervisor must log the exit, start the service again under a new pid (its state
file, ``var/supervisor.json``, says so), and the service must work again: the referee accepts
connections, the web answers ``/healthz``, and after the last kill new matches are played and recorded,
which needs the worker, beat, the referee and the house bots all back. Ctrl-C then stops everything
with status 0.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.run.soak import _finished, _get, free_port

ROOT = Path(__file__).resolve().parents[2]


def _until(condition: Callable[[], bool], what: str, log: Path, limit: float = 180.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for: {what}\n" + log.read_text()[-4000:]
        time.sleep(0.5)


def _state(var: Path) -> dict[str, dict[str, object]]:
    try:
        return dict(json.loads((var / "supervisor.json").read_text())["services"])
    except (OSError, ValueError):
        return {}


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_each_killed_child_of_brawl_run_is_restarted_and_works_again(tmp_path: Path) -> None:
    var = tmp_path / "var"
    web, ref, internal = free_port(), free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(PYTHONPATH=f"{ROOT}:{ROOT / 'proto'}", BRAWL_VAR_DIR=str(var), BRAWL_LADDER_INTERVAL="2")
    log = tmp_path / "run.log"
    out = log.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "run", "--var", str(var), "--web", f"127.0.0.1:{web}",
         "--referee", f"127.0.0.1:{ref}", "--referee-internal", f"127.0.0.1:{internal}"],
        cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        _until(lambda: "Brawl Ladder is running" in log.read_text(), "brawl run to come up", log, 300)
        db = var / "brawl.sqlite3"
        for name in ("referee", "worker", "web", "housebots"):
            before = _state(var)[name]
            old_pid = before["pid"]
            assert isinstance(old_pid, int)
            os.kill(old_pid, signal.SIGKILL)
            _until(
                lambda n=name, p=old_pid: _state(var)[n]["pid"] not in (None, p),  # type: ignore[misc]
                f"{name} to be restarted",
                log,
            )
            after = _state(var)[name]
            assert after["restarts"] == int(before["restarts"]) + 1  # type: ignore[call-overload]
            assert after["last_exit"] == -signal.SIGKILL
            assert f"WARNING {name} exited with signal SIGKILL; restarting it" in log.read_text()
            if name == "referee":
                _until(lambda: _accepts(ref) and _accepts(internal), "the referee to listen again", log)
            if name == "web":
                _until(lambda: _get(f"http://127.0.0.1:{web}/healthz") == 200, "the web to answer again", log)
        # Ladder or tournament (the demo's round robin): either needs every service back.
        played = sum(_finished(db, ladder_only=False).values())
        _until(
            lambda: sum(_finished(db, ladder_only=False).values()) >= played + 2,
            "new matches played and recorded after the kills",
            log,
            240,
        )
        assert proc.poll() is None, "brawl run stopped:\n" + log.read_text()[-4000:]
        assert all(s["pid"] is not None for s in _state(var).values()), _state(var)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
        out.close()
    assert code == 0, log.read_text()[-4000:]
