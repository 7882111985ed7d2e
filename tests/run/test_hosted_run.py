"""``brawl run`` on a fresh machine: a hosted house bot joins the leaderboard beside connected ones.

The demo uploads ``hosted-heuristic`` for each game as the house user; the bot host started by
``brawl run`` validates it (import check and a validation match in the sandbox), runs it in
bubblewrap, and the ladder seats it like any connected bot. The test waits until the leaderboard
API shows the hosted version (version 2: the validated upload) with rated games, beside
connected house bots that have games too.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.run.test_run_command import _free_port, _get, _processes_with, checkout  # noqa: F401 - fixture

pytestmark = [
    pytest.mark.skipif(
        shutil.which("bwrap") is None or os.geteuid() != 0, reason="the bot host needs bubblewrap and root"
    ),
    # About 140 s here (a whole brawl run, the validation match, then ladder rounds): the slow suite.
    pytest.mark.slow,
]


def test_run_shows_a_hosted_house_bot_on_the_leaderboard(checkout: Path, tmp_path: Path) -> None:  # noqa: F811
    var = tmp_path / "var"
    web, ref, internal = _free_port(), _free_port(), _free_port()
    marker = f"BRAWL_VAR_DIR={var}"
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(PYTHONPATH=f"{checkout}:{checkout / 'proto'}", BRAWL_VAR_DIR=str(var), BRAWL_LADDER_INTERVAL="2")
    log_path = tmp_path / "run.log"
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "run", "--var", str(var), "--web", f"127.0.0.1:{web}",
         "--referee", f"127.0.0.1:{ref}", "--referee-internal", f"127.0.0.1:{internal}"],
        cwd=checkout, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        hosted: dict[str, object] | None = None
        rows: list[dict[str, object]] = []
        while time.monotonic() < deadline and hosted is None:
            assert proc.poll() is None, "brawl run exited early:\n" + log_path.read_text()[-3000:]
            status, body = _get(f"http://127.0.0.1:{web}/api/v1/ratings/?game=scrumbrawl")
            if status == 200:
                rows = json.loads(body)["results"]
                hosted = next((r for r in rows if r["bot"] == "hosted-heuristic" and int(r["games"]) > 0), None)
            time.sleep(2)
        assert hosted is not None, f"no rated hosted bot: {rows}\n" + log_path.read_text()[-4000:]
        assert hosted["is_house"] and hosted["version"] == 2  # the validated upload, not the empty first version
        connected = [
            r for r in rows if r["bot"] in {"heuristic", "steady", "erratic", "random"} and int(r["games"]) > 0
        ]
        assert connected, rows
        text = log_path.read_text()
        assert "host: upload" in text and "passed" in text, text[-3000:]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
        log.close()
    assert code == 0, log_path.read_text()[-3000:]
    assert not _processes_with(marker)
    # No sandbox outlives the host. Their environment is cleared, so look for the stored folder
    # (under --var) that every sandbox's command line binds.
    sandboxes = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and str(var).encode() in _cmdline(p)]
    assert not sandboxes


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""
