"""A real worker writes the learning dataset: the beat's sweep finds the stale month and sends its export.

Two Super Fantasy Brawl matches are played to their end in this process with the real engine and
recorded through ``webapp.results`` (the recorder's write path); the sweep
``workers.dataset.export_datasets`` goes through Redis to a real ``brawl worker`` process, which
sends ``export_dataset`` for the month and writes the files under the stack's ``BRAWL_VAR_DIR``.
The test reads them back with pyarrow; a second sweep finds nothing stale.
"""

from __future__ import annotations

from typing import Any

import pyarrow.parquet as pq
import pytest
from django.contrib.auth.models import User

from referee.core.bots import RandomPolicy
from referee.core.registry import get_game
from referee.core.replay import Recorder, Replay
from tests.workers.conftest import GAME
from tests.workers.stack import Stack, wait_until
from webapp import results
from webapp.bots import services as bot_services
from webapp.datasets import export
from webapp.matches import services as match_services
from webapp.matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def played(match: Match) -> Replay:
    """Plays ``match`` to its end with random legal choices (the real engine, the row's seed)."""
    game = get_game(GAME)
    names = [f"seat{s.seat}" for s in match.seats.order_by("seat")]
    rec = Recorder(game, game.parse_config(match.config, len(names)), match.seed, names, meta={"match_id": match.pk})
    policies = [RandomPolicy(21 + i) for i in range(len(names))]
    while rec.outcome() is None:
        decision = rec.match.to_move()
        assert decision is not None
        choice = policies[decision.seat].choose(decision, rec.match.observe(decision.seat), rec.match.legal_options())
        rec.apply(choice, think_ms=3)
    return rec.finish()


def test_a_real_worker_writes_the_stale_month(stack: Stack, settings: Any) -> None:
    from workers.celery import app

    owner = User.objects.create_user("dataset-author")
    bots = [bot_services.do_create_bot(owner, GAME, name)[0] for name in ("north", "south")]
    settings.BRAWL_DISPATCH = "none"  # no referee here: a start message would only retry
    recorded = []
    for n in range(2):
        versions = [b.latest_version for b in (bots if n == 0 else bots[::-1])]
        m = match_services.do_queue_match(GAME, versions, rated=True, config={"round_cap": 4})
        match_services.do_start_match(m.pk, "ref-test")
        recorded.append(results.do_finish_match(m.pk, played(m), referee_id="ref-test"))
    assert recorded[0].finished_at is not None
    month = export.month_of(recorded[0].finished_at)
    settings.VAR_DIR = stack.directory  # the stack's processes run with it as their BRAWL_VAR_DIR
    assert export.stale_months(GAME) == [month]

    stack.start_worker("worker", concurrency=1)
    app.send_task("workers.dataset.export_datasets")

    def written() -> dict[str, Any] | None:
        found = export.read_manifest(GAME, month)
        return found if found and found["matches"] == 2 else None

    manifest = wait_until(written, 120, "the worker to write the month's dataset")
    table = pq.read_table(export.folder(GAME, month) / "decisions.parquet")
    decisions = sum(len(Replay.decode(m.replay_stored() or b"").decisions) for m in Match.objects.filter(game=GAME))
    assert table.num_rows == manifest["decisions"] == decisions > 0
    assert set(table.column("match_id").to_pylist()) == {m.pk for m in recorded}
    assert export.stale_months(GAME) == []
    assert "Traceback" not in stack.log("worker")
