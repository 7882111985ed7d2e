"""The ladder runs on its own: beat schedules rounds, workers start matches on a real referee, results are recorded.

Partitions: bot strength (heuristic, heuristic mixed with random, random); run length (the
default run, and 200+ matches marked slow); workers left alone, or SIGKILLed every 15 s wherever
their tasks are (slow run). Everything is real: referee process, bots over gRPC, Celery worker and
beat processes on Redis, PostgreSQL.
"""

from __future__ import annotations

import os
import time

import pytest

from tests.workers.helpers import assert_counted_once, farm, finished_rated, make_bots
from tests.workers.stack import Stack, wait_until
from webapp.matches.models import Match, MatchStatus
from webapp.rankings.models import Rating

pytestmark = pytest.mark.django_db(transaction=True)

STRENGTHS = [
    ("strong", "tests.workers.bots:Heuristic"),
    ("middle", "tests.workers.bots:Mixed"),
    ("weak", "tests.workers.bots:Random"),
]


def run_ladder(stack: Stack, matches: int, timeout: float, *, kill_every: float = 0.0) -> int:
    """Runs the ladder until ``matches`` rated matches are recorded; returns how many workers were SIGKILLed.

    With ``kill_every``, the worker (pool and beat included) is SIGKILLed that often and a new one
    started, wherever its tasks happen to be.
    """
    bots = make_bots(STRENGTHS)
    stack.start_referee()
    stack.start_bots(farm(bots, max_matches=3))
    stack.start_worker("worker0", concurrency=2, beat=True)
    deadline = time.monotonic() + timeout
    kills = 0
    while finished_rated() < matches:
        if time.monotonic() > deadline:
            raise TimeoutError(f"only {finished_rated()} of {matches} rated matches recorded in {timeout:g} s")
        if kill_every and time.monotonic() > deadline - timeout + kill_every * (kills + 1):
            stack.kill(f"worker{kills}")
            kills += 1
            stack.start_worker(f"worker{kills}", concurrency=2, beat=True)
        time.sleep(0.2)
    # Stop pairing, let what is in flight be recorded (the reaper still sweeps), then check the books.
    stack.terminate(f"worker{kills}")
    stack.env["BRAWL_LADDER_GAMES"] = "scrumbrawl"
    stack.start_worker("drain", concurrency=2, beat=True)
    # Generous: under pytest-xdist another worker's browser and sandbox tests share the two cores, and
    # the last matches in flight are played by bots that think on a starved CPU (seen: over 120 s).
    wait_until(
        lambda: not Match.objects.filter(status__in=[MatchStatus.RUNNING, MatchStatus.QUEUED]).exists(),
        300,
        "running matches to be recorded",
    )
    assert_counted_once()
    elo = {r.bot_version.bot.name: r.elo for r in Rating.objects.select_related("bot_version__bot")}
    assert elo["strong"] > elo["middle"] > elo["weak"], elo
    assert not Match.objects.filter(status=MatchStatus.FAILED).exists(), list(
        Match.objects.filter(status=MatchStatus.FAILED).values_list("failure", flat=True)
    )
    return kills


def test_ladder_ranks_bots_by_strength(stack: Stack) -> None:
    run_ladder(stack, int(os.environ.get("BRAWL_LADDER_TEST_MATCHES", "60")), timeout=150)


@pytest.mark.slow
def test_ladder_of_200_matches_with_workers_killed_ranks_bots_by_strength(stack: Stack) -> None:
    assert run_ladder(stack, 210, timeout=900, kill_every=15.0) >= 2
