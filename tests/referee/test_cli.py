"""``brawl referee`` and ``brawl bot run`` as processes: tokens file, replays dir, SIGTERM.

Partitions: two SDK bots in their own processes play a match that ``brawl referee start`` starts
through the internal API (with the credential the referee generated under the shared var dir) on a
referee process; the replay lands in --replays and verifies and carries the seed commitment;
SIGTERM stops the referee cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from referee.core.fairness import seed_commitment
from referee.core.replay import Replay, verify
from tests.referee import harness  # noqa: F401 - registers tinygame, which the replay is re-simulated with

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
BRAWL = [sys.executable, "-m", "service.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_referee_and_bot_processes_play_and_stop_cleanly(tmp_path: Path) -> None:
    env = {**{k: v for k, v in ENV.items() if k != "BRAWL_INTERNAL_TOKEN"}, "BRAWL_VAR_DIR": str(tmp_path / "var")}
    tokens = tmp_path / "tokens.json"
    token = {}
    for bot in ("alice", "bob"):
        out = subprocess.run(
            [*BRAWL, "referee", "token", "--tokens", str(tokens), "--bot-id", bot],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env=ENV,
        )
        token[bot] = out.stdout.strip()
    port = free_port()
    address = f"127.0.0.1:{port}"
    internal = f"127.0.0.1:{free_port()}"
    # The referee process registers tinygame through a tiny wrapper module, as a deployment would
    # register an extra game; the product games need nothing.
    wrapper = tmp_path / "referee_with_tinygame.py"
    wrapper.write_text(
        "import sys\nfrom referee.core import register\nfrom tests.conformance.tinygame import TinyGame\n"
        "from service.cli import main\nregister(TinyGame())\nsys.exit(main())\n"
    )
    referee = subprocess.Popen(
        [
            sys.executable,
            str(wrapper),
            "referee",
            "--listen",
            address,
            "--internal-listen",
            internal,
            "--tokens",
            str(tokens),
            "--replays",
            str(tmp_path / "replays"),
            "--grace",
            "2",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    bots = [
        subprocess.Popen(
            [
                *BRAWL,
                "bot",
                "run",
                "tests.referee.bots:FirstBot",
                "--server",
                address,
                "--token",
                token[b],
                "--games",
                "tinygame",
                "--matches",
                "1",
            ],
            cwd=ROOT,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for b in ("alice", "bob")
    ]
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", int(internal.rsplit(":", 1)[1])), timeout=0.2):
                    break
            except OSError:
                assert referee.poll() is None, referee.stdout.read() if referee.stdout else ""
                asyncio.run(asyncio.sleep(0.1))
        started = subprocess.run(
            [
                *BRAWL,
                *("referee", "start", "--internal", internal, "--game", "tinygame", "--bot", "alice", "--bot", "bob"),
                *("--seed", "4", "--decision-ms", "500", "--join-timeout", "30"),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert started.returncode == 0, started.stdout + started.stderr
        first = started.stdout.splitlines()[0]
        match_id = first.split()[1]
        commitment = first.rsplit(" ", 1)[1]
        assert "SUCCEEDED" in started.stdout and "seed 4" in started.stdout, started.stdout
        assert commitment == seed_commitment(match_id, 4)
        for p in bots:
            assert p.wait(timeout=60) == 0, p.stdout.read() if p.stdout else ""
        replay_file = tmp_path / "replays" / f"{match_id}.json.gz"
        for _ in range(50):
            if replay_file.exists():
                break
            asyncio.run(asyncio.sleep(0.1))
        replay = Replay.load(replay_file)
        verify(replay)
        assert replay.seats == ["alice", "bob"] and not replay.incidents
        assert replay.meta["seed_commitment"] == commitment and replay.meta["match_id"] == match_id
    finally:
        for p in bots:
            if p.poll() is None:
                p.kill()
        referee.send_signal(signal.SIGTERM)
        status = referee.wait(timeout=20)
    log = referee.stdout.read() if referee.stdout else ""
    assert status == 0, log
    assert "stopping" in log and "bot 'alice' connected" in log


def parse(*argv: str) -> argparse.Namespace:
    from service.cli import build_parser

    return build_parser().parse_args(["referee", *argv])


def test_referee_mode_and_relay_follow_the_options_and_redis_url() -> None:
    from referee.server.cli import is_standalone, relay_url

    redis = {"REDIS_URL": "redis://r:6379/0"}
    ladder = parse("--listen", "127.0.0.1:1")
    assert not is_standalone(ladder)
    assert relay_url(ladder, redis) == "redis://r:6379/0"
    assert relay_url(ladder, {}) is None
    assert relay_url(parse("--no-relay"), redis) is None
    assert relay_url(parse("--redis", "redis://other/1"), {}) == "redis://other/1"
    for standalone in (parse("--tokens", "t.json"), parse("--replays", "out")):
        assert is_standalone(standalone)
        assert relay_url(standalone, redis) is None, "a standalone referee relays only when told to"
    assert relay_url(parse("--tokens", "t.json", "--redis", "redis://other/1"), redis) == "redis://other/1"


def test_ladder_referee_prints_a_notice_and_runs_the_referee_in_ladder_mode(tmp_path: Path) -> None:
    port = free_port()
    internal = f"127.0.0.1:{free_port()}"  # not the default port: tests run in parallel
    env = {k: v for k, v in ENV.items() if k not in ("REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(BRAWL_VAR_DIR=str(tmp_path))  # no database credentials, no Django settings: none needed
    proc = subprocess.Popen(
        [*BRAWL, "ladder-referee", "--listen", f"127.0.0.1:{port}", "--internal-listen", internal, "--grace", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for _ in range(300):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                asyncio.run(asyncio.sleep(0.1))
    finally:
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=20)
    log = proc.stdout.read() if proc.stdout else ""
    assert status == 0, log
    assert "brawl ladder-referee is deprecated; running: brawl referee --listen" in log
    assert "ladder mode: web tier checks tokens, results to the broker, relay off" in log
