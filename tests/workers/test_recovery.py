"""Exactly once under failure: a worker SIGKILLed mid-record, duplicate deliveries, a match its referee lost.

Partitions: the failure (worker killed inside the recording transaction; start and record each
delivered several times, concurrently; a running match its referee does not know); the recovery
path (broker redelivery of an unacknowledged message; the beat's reaper). Each test ends with the
books checked: one rating-history row per seat of each recorded rated match and nothing else.
"""

from __future__ import annotations

import base64

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from referee import client as referee_client
from tests.workers.conftest import GAME, database_url
from tests.workers.helpers import assert_counted_once, farm, make_bots
from tests.workers.stack import Stack, wait_until
from webapp.bots.models import BotVersion
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus
from webapp.rankings.models import Rating, RatingHistory
from webapp.rankings.services import ratings_for
from workers.celery import app
from workers.recording import record_staged

pytestmark = pytest.mark.django_db(transaction=True)

PAIR = [("strong", "tests.workers.bots:Heuristic"), ("weak", "tests.workers.bots:Random")]


def task_lines(log: str, message: str, match_id: int, action: str = "") -> list[str]:
    """The worker's log lines ``<message> action=<action> ... match_id=<match_id>`` (fields in any order)."""
    wanted = f" {message} action={action}" if action else f" {message} action="
    return [line for line in log.splitlines() if wanted in line and f" match_id={match_id} " in f"{line} "]


def start_pair(stack: Stack, max_matches: int = 1) -> list[BotVersion]:
    bots = make_bots(PAIR)
    stack.env["BRAWL_LADDER_GAMES"] = "scrumbrawl"  # no ladder rounds: each test makes its own matches
    stack.start_referee()
    stack.start_bots(farm(bots, max_matches=max_matches))
    return [BotVersion.objects.get(pk=b.version_id) for b in bots]


def waiting_on_lock() -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cur.fetchone()[0])


def test_worker_killed_inside_the_recording_transaction_loses_nothing_and_counts_once(stack: Stack) -> None:
    versions = start_pair(stack)
    stack.start_worker("first", concurrency=1)
    rating_ids = [r.pk for r in ratings_for(GAME, [v.pk for v in versions]).values()]
    # Hold the ratings' row locks: the recording transaction will have written the match and its
    # seats when it blocks on them, so the kill lands in the middle of the write.
    blocker = psycopg.connect(database_url())
    blocker.execute("SELECT id FROM rankings_rating WHERE id = ANY(%s) FOR UPDATE", [rating_ids])
    try:
        match = match_services.do_queue_match(GAME, versions, rated=True)
        wait_until(lambda: Match.objects.get(pk=match.pk).has_replay, 60, "the referee to stage the result")
        wait_until(waiting_on_lock, 30, "record_match to block inside its transaction")
        stack.kill("first")  # SIGKILL, worker and pool children
        match.refresh_from_db()
        assert match.status == MatchStatus.RUNNING, "a killed transaction must leave nothing recorded"
        assert all(s.rank is None for s in match.seats.all())
        assert not RatingHistory.objects.exists()
    finally:
        blocker.rollback()
        blocker.close()
    # Only the broker's redelivery of the unacknowledged message can record it: no beat, no reaper.
    stack.start_worker("second", concurrency=1)
    wait_until(lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED, 60, "redelivered record_match")
    # The line is written just after the transaction commits: wait for it rather than race it.
    wait_until(lambda: task_lines(stack.log("second"), "record", match.pk, "recorded"), 30, "the worker's record line")
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]
    assert_counted_once()


def test_duplicate_start_and_record_deliveries_are_harmless(stack: Stack) -> None:
    versions = start_pair(stack, max_matches=2)
    stack.start_worker("worker", concurrency=2)
    match = match_services.do_queue_match(GAME, versions, rated=True)  # dispatches start_match once
    for _ in range(3):
        app.send_task("workers.tasks.start_match", args=[match.pk])
    wait_until(lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED, 60, "the match to be recorded")
    # The referee's own message, delivered again (a retried publish, a redelivery), and the reaper's.
    encoded = base64.b64encode(Match.objects.get(pk=match.pk).replay_bytes() or b"").decode()
    for _ in range(3):
        app.send_task("workers.tasks.record_match", args=[match.pk])
        app.send_task("workers.tasks.record_result", args=[str(match.pk), encoded], queue="recording")
        app.send_task("workers.tasks.start_match", args=[match.pk])
    wait_until(
        lambda: (
            len(task_lines(stack.log("worker"), "record", match.pk)) >= 7
            and len(task_lines(stack.log("worker"), "start", match.pk)) >= 7
        ),
        30,
        "every duplicate to be handled",
    )
    log = stack.log("worker")
    assert len(task_lines(log, "record", match.pk, "recorded")) == 1
    assert len(task_lines(log, "record", match.pk, "final")) >= 6
    assert len(task_lines(log, "start", match.pk, "started")) <= 4  # the rest found it final
    # The referee played it once: every start carried the same request id.
    stub = referee_client.stub(stack.referee_address)
    from brawl.referee.v1 import referee_pb2

    listed = stub.ListMatches(referee_pb2.ListMatchesRequest(), timeout=5, metadata=referee_client.credential()).matches
    assert [m.match_id for m in listed] == [str(match.pk)]
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]
    # A late, repeated report from the referee stages nothing and records nothing.
    match.refresh_from_db()
    from referee.core.replay import Replay

    replay = Replay.loads(match.replay_bytes() or b"")
    assert match_services.do_stage_result(match.pk, replay.encode()) is False
    assert record_staged(match.pk) == "final"
    assert_counted_once()


def test_reaper_replaces_a_match_its_referee_lost_and_counts_only_the_replacement(stack: Stack) -> None:
    stack.env.update({"BRAWL_REAPER_START_GRACE": "1", "BRAWL_REAPER_INTERVAL": "1"})
    versions = start_pair(stack)
    settings.BRAWL_DISPATCH = "none"  # this match reaches no worker: as if its start was lost mid-way
    lost = match_services.do_queue_match(GAME, versions, rated=True)
    settings.BRAWL_DISPATCH = "celery"
    # Marked running on the referee, which never heard of it (the worker died before StartMatch).
    match_services.do_start_match(lost.pk, stack.referee_address)
    stack.start_worker("worker", concurrency=2, beat=True)
    wait_until(
        lambda: Match.objects.filter(replaces=lost, status=MatchStatus.FINISHED).exists(),
        60,
        "the reaper's replacement to be played and recorded",
    )
    lost.refresh_from_db()
    assert lost.status == MatchStatus.RESCHEDULED
    assert "does not know the match" in lost.failure
    replacement = Match.objects.get(replaces=lost)
    assert not RatingHistory.objects.filter(match=lost).exists()
    assert RatingHistory.objects.filter(match=replacement).count() == 2
    # A result for the lost match arriving late (its referee was only slow) is refused.
    replay_text = replacement.replay_bytes() or b""
    from referee.core.replay import Replay

    assert match_services.do_stage_result(lost.pk, Replay.loads(replay_text).encode()) is False
    assert record_staged(lost.pk) == "final"
    assert_counted_once()
