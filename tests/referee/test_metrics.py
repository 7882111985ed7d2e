"""The referee's Prometheus metrics, scraped over real HTTP from a real referee on loopback.

Partitions: the endpoint answers in the Prometheus text format; while a match plays the running
gauge and the session gauge count it; once it ends, decisions (by source), think time, overhead,
strikes (timeout, illegal answer) and finished matches (by termination) have moved by exactly what
the replay records; ``brawl referee --metrics`` serves them from a referee process.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from referee.core import SeededChance, get_game
from referee.server.match import MatchState
from referee.server.metrics import parse_address, serve_metrics
from tests.referee.bots import IllegalOnceBot, SlowFirstBot
from tests.referee.harness import referee_env
from tests.referee.test_cli import free_port

ROOT = Path(__file__).resolve().parents[2]
GAME = "tinygame"

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int) -> tuple[str, Samples]:
    """Returns the Content-Type and every sample of ``http://127.0.0.1:port/metrics``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        content_type = resp.headers["Content-Type"]
        text = resp.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return content_type, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def seed_where_seat0_decides_first() -> int:
    g = get_game(GAME)
    for seed in range(1, 100):
        decision = g.new_match(g.default_config(2), 2, SeededChance(seed)).to_move()
        if decision is not None and decision.seat == 0:
            return seed
    raise AssertionError("no seed in 1..99 gives seat 0 the first decision")


def test_parse_address() -> None:
    assert parse_address("127.0.0.1:9100") == ("127.0.0.1", 9100)
    assert parse_address("[::1]:9100") == ("::1", 9100)
    assert parse_address(":9100") == ("0.0.0.0", 9100)
    for bad in ("9100", "host:", "host:port"):
        try:
            parse_address(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was accepted")


def test_metrics_move_when_a_match_is_played() -> None:
    port = serve_metrics("127.0.0.1:0")

    async def scenario() -> None:
        async with referee_env() as env:
            _, before = await asyncio.to_thread(scrape, port)
            SlowFirstBot.delay = 1.2  # past decision_time 0.5 + overrun 0.25: one timeout
            env.connect(SlowFirstBot, "slow", games=[GAME])
            env.connect(IllegalOnceBot, "once", games=[GAME])
            runner = env.start(GAME, ["slow", "once"], seed=seed_where_seat0_decides_first())
            while runner.state is not MatchState.RUNNING:
                await asyncio.sleep(0.01)
            _, during = await asyncio.to_thread(scrape, port)
            assert value(during, "brawl_referee_matches_running", game=GAME) == (
                value(before, "brawl_referee_matches_running", game=GAME) + 1
            )
            assert value(during, "brawl_referee_bot_sessions") == value(before, "brawl_referee_bot_sessions") + 2
            await asyncio.wait_for(runner.wait(), 30)
            replay = runner.replay
            assert replay is not None, runner.error
            outcome = replay.outcome
            assert outcome is not None
        content_type, after = await asyncio.to_thread(scrape, port)

        assert content_type.startswith("text/plain; version=0.0.4")

        def moved(name: str, **labels: str) -> float:
            return value(after, name, **labels) - value(before, name, **labels)

        kinds = [i.kind for i in replay.incidents]
        assert kinds.count("timeout") >= 1 and kinds.count("illegal_answer") == 1
        defaults = sum(1 for d in replay.decisions if d.source == "default")
        answered = len(replay.decisions) - defaults
        assert moved("brawl_referee_decisions_total", game=GAME, source="answer") == answered
        assert moved("brawl_referee_decisions_total", game=GAME, source="default") == defaults == kinds.count("timeout")
        assert moved("brawl_referee_strikes_total", game=GAME, kind="timeout") == kinds.count("timeout")
        assert moved("brawl_referee_strikes_total", game=GAME, kind="illegal_answer") == 1
        assert moved("brawl_referee_think_seconds_count", game=GAME) == len(replay.decisions)
        # The timeout is charged the whole limit: at least decision_time plus the overrun.
        assert moved("brawl_referee_think_seconds_sum", game=GAME) >= 0.75
        assert moved("brawl_referee_decision_overhead_seconds_count", game=GAME) == len(replay.decisions)
        assert moved("brawl_referee_decision_overhead_seconds_sum", game=GAME) > 0
        termination = outcome.termination.value
        assert moved("brawl_referee_matches_finished_total", game=GAME, termination=termination) == 1
        assert value(after, "brawl_referee_matches_running", game=GAME) == value(
            before, "brawl_referee_matches_running", game=GAME
        )
        # The referee stopped at the end of the block: its sessions are closed.
        assert value(after, "brawl_referee_bot_sessions") == value(before, "brawl_referee_bot_sessions")

    asyncio.run(scenario())


def test_referee_process_serves_metrics_with_the_flag(tmp_path: Path) -> None:
    metrics_port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "service.cli", "referee", "--tokens", str(tmp_path / "tokens.json")]
    argv += ["--listen", f"127.0.0.1:{free_port()}", "--internal-listen", f"127.0.0.1:{free_port()}"]
    argv += ["--metrics", f"127.0.0.1:{metrics_port}", "--grace", "0"]
    proc = subprocess.Popen(argv, env=env, cwd=tmp_path, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                content_type, samples = scrape(metrics_port)
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "the metrics endpoint never answered"
                time.sleep(0.1)
        assert content_type.startswith("text/plain")
        assert value(samples, "brawl_referee_bot_sessions") == 0
        # The referee's collector is installed: its series are served from the first scrape. Whether a
        # collection has run by then depends on how busy the machine is, so only presence is checked
        # here; tests/referee/test_collector.py checks the timed values in-process.
        for name in ("brawl_referee_gc_pause_seconds_total", "brawl_referee_gc_longest_pause_seconds"):
            assert (name, ()) in samples and value(samples, name) >= 0, name
        assert value(samples, "brawl_referee_gc_reclaims_total") == 0
        assert ("process_start_time_seconds", ()) in samples or any(k[0].startswith("python_") for k in samples)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
