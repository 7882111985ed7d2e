"""The supervisor of ``brawl run`` (``service.supervise.Supervisor``) on real child processes.

A child that exits is restarted and the restart logged; only a crash loop (``max_crashes`` exits in
the crash window) stops everything, with a message naming the child and its last output lines;
stopping ends a child's whole process group.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from service.supervise import Service, Supervisor


def _until(condition: Callable[[], bool], what: str, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for: {what}"
        time.sleep(0.05)


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_a_child_that_dies_is_restarted_and_the_restart_logged(tmp_path: Path) -> None:
    lines: list[str] = []
    sleeper = Service("sleeper", _python("import time; print('up', flush=True); time.sleep(600)"))
    steady = Service("steady", _python("import time; time.sleep(600)"))
    status = tmp_path / "status.json"
    sup = Supervisor([sleeper, steady], grace=5, out=lines.append, backoff=0.1, status_path=status)
    sup.start()
    result: list[int] = []
    waiter = threading.Thread(target=lambda: result.append(sup.wait()))
    waiter.start()
    try:
        assert sleeper.process is not None and steady.process is not None
        first, other = sleeper.process.pid, steady.process.pid
        _until(lambda: "sleeper | up" in lines, "the first start's output")
        os.kill(first, 9)
        _until(lambda: sleeper.restarts == 1 and sleeper.process is not None, "a restart")
        assert sleeper.process is not None and sleeper.process.pid != first
        _until(lambda: lines.count("sleeper | up") == 2, "the restarted child's output")
        assert any("WARNING sleeper exited with signal SIGKILL; restarting it" in line for line in lines), lines
        assert any("sleeper restarted (pid" in line for line in lines), lines
        assert steady.process.pid == other and steady.restarts == 0, "a healthy sibling was touched"
        state = json.loads(status.read_text())
        assert state["services"]["sleeper"]["restarts"] == 1
        assert state["services"]["sleeper"]["last_exit"] == -9
        assert state["services"]["sleeper"]["pid"] == sleeper.process.pid
        assert state["failure"] is None
    finally:
        sup.stop()
        waiter.join(30)
    assert result == [0]
    assert not _alive(sleeper.process.pid) and not _alive(steady.process.pid)


def test_a_crash_loop_stops_everything_naming_the_child_and_its_last_lines(tmp_path: Path) -> None:
    lines: list[str] = []
    crasher = Service("crasher", _python("print('loading the widget', flush=True); raise SystemExit('widget broke')"))
    steady = Service("steady", _python("import time; time.sleep(600)"))
    sup = Supervisor(
        [steady, crasher], grace=5, out=lines.append, backoff=0.05, max_crashes=3, status_path=tmp_path / "s.json"
    )
    sup.start()
    assert sup.wait() == 1
    assert sup.failure is not None
    assert sup.failure.startswith("crasher exited 3 times within 60 s (last: status 1); stopping everything")
    assert "loading the widget" in sup.failure and "widget broke" in sup.failure
    assert crasher.restarts == 2
    assert steady.process is not None and steady.process.poll() is not None, "the other service was not stopped"
    assert json.loads((tmp_path / "s.json").read_text())["failure"] == sup.failure


def test_a_restart_and_a_stop_end_the_childs_whole_process_group(tmp_path: Path) -> None:
    """A worker runs beat in a child process: killing the worker must not leave beat running."""
    pidfile = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); print('started', flush=True); time.sleep(600)"
    )
    lines: list[str] = []
    parent = Service("parent", _python(code))
    sup = Supervisor([parent], grace=5, out=lines.append, backoff=0.1)
    sup.start()
    waiter = threading.Thread(target=sup.wait)
    waiter.start()
    try:
        _until(lambda: pidfile.exists() and pidfile.read_text().strip() != "", "the grandchild")
        grandchild = int(pidfile.read_text())
        pidfile.unlink()
        assert parent.process is not None
        os.kill(parent.process.pid, 9)
        _until(lambda: not _alive(grandchild), "the crashed child's grandchild to be ended")
        _until(lambda: pidfile.exists() and pidfile.read_text().strip() != "", "the restarted child's grandchild")
        second = int(pidfile.read_text())
    finally:
        sup.stop()
        waiter.join(30)
    _until(lambda: not _alive(second), "the grandchild to be ended by stop")
