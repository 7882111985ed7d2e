"""Ladder seeds are secret: each table's seed comes from ``referee.core.fairness.new_seed``.

Issue 11: the matchmaker's generator is seeded from the round's tick, so its seeds could be
recomputed by anyone who knows the tick. Partitions: several tables in one round; a table played
in several seat rotations (a mirrored set) against tables of other pairs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import pytest
from django.conf import LazySettings

from referee import client as referee_client
from referee.client import Presence
from tests.workers.conftest import GAME
from tests.workers.helpers import make_bots
from webapp.matches.models import Match
from workers import scheduling

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_table_of_a_round_gets_its_own_seed_from_new_seed(
    monkeypatch: pytest.MonkeyPatch, settings: LazySettings
) -> None:
    bots = make_bots([(f"seedy-{i}", "tests.workers.bots:Random") for i in range(6)])
    online = [
        Presence(
            referee="127.0.0.1:1",
            bot_id=str(b.bot.pk),
            version_id=str(b.version_id),
            games=(GAME,),
            max_matches=4,
            active_matches=0,
        )
        for b in bots
    ]
    monkeypatch.setattr(referee_client, "presence", lambda game, addresses=None: (online, []))
    settings.BRAWL_DISPATCH = "none"  # queue only: no worker, no referee
    draws: list[int] = []
    counter: Iterator[int] = iter(range(7_000_000_001, 7_000_001_000))

    def fake_new_seed() -> int:
        draws.append(next(counter))
        return draws[-1]

    monkeypatch.setattr(scheduling, "new_seed", fake_new_seed)
    report = scheduling.schedule_round(GAME, "seed-round-1")
    assert len(report.queued) >= 3, report
    by_pair: dict[frozenset[int], set[int]] = defaultdict(set)
    for match in Match.objects.filter(pk__in=report.queued).prefetch_related("seats"):
        assert match.seed in draws, "every seed was drawn from new_seed"
        by_pair[frozenset(s.bot_version_id for s in match.seats.all())].add(match.seed)
    # One table per pair in a round: its matches (a mirrored set when the game mirrors) share one
    # seed, and no two tables share one.
    assert all(len(seeds) == 1 for seeds in by_pair.values()), by_pair
    firsts = [next(iter(seeds)) for seeds in by_pair.values()]
    assert len(set(firsts)) == len(firsts)
