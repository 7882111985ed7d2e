"""Migration bots 0003: the per-bot counts are backfilled from the matches already finished.

Real migrations on the test database (PostgreSQL, built from an empty database by every migration):
results recorded through the services, the ``bots`` app taken back to 0002 (the count tables
dropped), forward again through 0003 (whose backfill fills them from the historical models alone,
importing no app code), then to the latest state. The rows must equal today's recount
(``webapp.matches.stats.recount``), last match and its time included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.bots.models import Bot, BotOpponentStats, BotStats
from webapp.matches import services as match_services
from webapp.matches import stats
from webapp.matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("bots", "0002_description_limit")
AFTER = ("bots", "0003_bot_stats")

Counts = tuple[dict[int, tuple[Any, ...]], dict[tuple[int, int], tuple[int, int, int]]]
"""(games, wins, draws, losses, last match, last played) per bot; (w, d, l) per ordered pair."""


def migrate(targets: list[tuple[str, str]] | None = None) -> None:
    """Migrates to ``targets`` (``None``: the latest migration of every app)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets if targets is not None else executor.loader.graph.leaf_nodes())


def stored() -> Counts:
    per_bot = {
        s.bot_id: (s.games, s.wins, s.draws, s.losses, s.last_match_id, s.last_played) for s in BotStats.objects.all()
    }
    pairs = {(o.bot_id, o.opponent_id): (o.wins, o.draws, o.losses) for o in BotOpponentStats.objects.all()}
    return per_bot, pairs


def recounted() -> Counts:
    counts = stats.recount()
    per_bot = {b: (c.games, c.wins, c.draws, c.losses, c.last_match_id, c.last_played) for b, c in counts.items()}
    pairs = {(b, o): (w, d, lost) for b, c in counts.items() for o, (w, d, lost) in c.opponents.items()}
    return per_bot, pairs


def test_the_backfill_gives_the_recount_of_the_finished_matches(make_bot: Callable[..., Bot]) -> None:
    bots = [make_bot(User.objects.create_user(f"mig{i}"), f"mig-bot{i}") for i in range(4)]
    a, b, c, d = (x.latest_version for x in bots)

    def play(versions: list[Any], ranks: tuple[int, ...]) -> Match:
        m = match_services.do_queue_match(GAME, versions, rated=False)
        match_services.do_start_match(m.pk, "ref-test")
        finished: Match = results.do_finish_match(m.pk, forced_replay(m, ranks), referee_id="ref-test")
        return finished

    play([a, b], (1, 2))
    play([b, a], (1, 1))  # a draw
    play([a, b, c], (1, 2, 2))  # three seats: b and c draw with each other
    play([b, c, d], (1, 1, 2))  # shared first place
    play([d, a], (1, 2))
    failed = match_services.do_queue_match(GAME, [a, d], rated=False)
    match_services.do_fail_match(failed.pk, "referee lost")  # never counts
    match_services.do_queue_match(GAME, [c, a], rated=False)  # still queued: never counts
    expected = recounted()
    assert len(expected[0]) == 4 and expected[0][a.bot_id][:4] == (4, 2, 1, 1)

    try:
        migrate([BEFORE])
        assert "bots_botstats" not in connection.introspection.table_names()
        migrate([AFTER])  # the backfill runs here
    finally:
        migrate()
    assert stored() == recounted() == expected
    assert set(BotStats.objects.values_list("revision", flat=True)) == {1}
