"""Migration 0005: latency moves from ``Match.latency`` (JSON per seat) onto the seats, both ways.

Real migrations on the test database: rows made with today's models, the ``matches`` app taken
back to 0004 (the seats' figures copied into ``Match.latency``), the JSON changed there, and
forward again (the JSON copied onto the seats, the column dropped).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchSeat

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("matches", "0004_match_frames")
AFTER = ("matches", "0005_seat_latency")


def migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


def test_latency_is_copied_to_the_match_and_back_to_the_seats(make_bot: Any, author: Any, other: Any) -> None:
    a, b = make_bot(author, "lat-a"), make_bot(other, "lat-b")
    match = match_services.do_queue_match("tinygame", [a.latest_version, b.latest_version], rated=False)
    MatchSeat.objects.filter(match=match, seat=0).update(
        mean_latency_ms=12.34, p95_latency_ms=30, max_latency_ms=41, timed_decisions=9
    )
    try:
        migrate(BEFORE)
        with connection.cursor() as cursor:
            cursor.execute("SELECT latency FROM matches_match WHERE id = %s", [match.pk])
            (stored,) = cursor.fetchone()
            latency = stored if isinstance(stored, dict) else json.loads(stored)
            assert latency == {"0": {"mean_ms": 12.3, "p95_ms": 30, "max_ms": 41, "decisions": 9}}
            # Figures written by the old code, before the upgrade: they must reach the seats.
            latency["1"] = {"mean_ms": 5.0, "p95_ms": 7, "max_ms": 8, "decisions": 3}
            cursor.execute("UPDATE matches_match SET latency = %s WHERE id = %s", [json.dumps(latency), match.pk])
    finally:
        migrate(AFTER)
    seats = {s.seat: s for s in MatchSeat.objects.filter(match=match)}
    assert (seats[1].p95_latency_ms, seats[1].max_latency_ms, seats[1].timed_decisions) == (7, 8, 3)
    assert seats[0].latency_summary() == {"mean_ms": 12.3, "p95_ms": 30, "max_ms": 41, "decisions": 9}
    assert "latency" not in {f.name for f in Match._meta.get_fields()}
