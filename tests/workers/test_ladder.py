"""The ladder runs on its own: beat schedules rounds, workers start matches on a real referee, results are recorded.

Partitions: bot strength (heuristic, heuristic mixed with random, random); run length (the
default run, and 200+ matches marked slow). Everything is real: referee process, bots over gRPC,
Celery worker and beat processes on Redis, PostgreSQL.
"""

from __future__ import annotations

import os

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


def run_ladder(stack: Stack, matches: int, timeout: float) -> None:
    bots = make_bots(STRENGTHS)
    stack.start_referee()
    stack.start_bots(farm(bots, max_matches=3))
    stack.start_worker("worker", concurrency=2, beat=True)
    wait_until(lambda: finished_rated() >= matches, timeout, f"{matches} rated matches to be recorded")
    # Stop scheduling, let what is in flight be recorded, then check the books.
    stack.terminate("worker")
    stack.start_worker("drain", concurrency=2)
    wait_until(
        lambda: not Match.objects.filter(status=MatchStatus.RUNNING).exists(), 60, "running matches to be recorded"
    )
    assert_counted_once()
    elo = {r.bot_version.bot.name: r.elo for r in Rating.objects.select_related("bot_version__bot")}
    assert elo["strong"] > elo["middle"] > elo["weak"], elo
    assert not Match.objects.filter(status__in=[MatchStatus.FAILED]).exists(), list(
        Match.objects.filter(status=MatchStatus.FAILED).values_list("failure", flat=True)
    )


def test_ladder_ranks_bots_by_strength(stack: Stack) -> None:
    run_ladder(stack, int(os.environ.get("BRAWL_LADDER_TEST_MATCHES", "60")), timeout=150)


@pytest.mark.slow
def test_ladder_of_200_matches_ranks_bots_by_strength(stack: Stack) -> None:
    run_ladder(stack, 210, timeout=900)
