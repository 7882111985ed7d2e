"""Writing the learning dataset: a Celery task per game and month, and the beat's sweep over stale months.

| task | queue | does |
| --- | --- | --- |
| ``export_dataset(game, month)`` | scheduling | writes that month's files (``webapp.datasets.export.write_dataset``) |
| ``export_datasets()`` | scheduling | the hourly sweep: ``export_dataset`` per month whose matches changed |

Both are safe to run twice: the same matches give the same rows, and the files are replaced by
renames. The sweep compares each month's public finished matches with the ids its manifest
recorded, so a month is written again when a match finishes in it or a mirrored twin ending
later reveals its pair. This module is not the rows (``webapp.datasets.build``) nor the files
(``webapp.datasets.export``).
"""

from __future__ import annotations

from typing import Any

from celery.utils.log import get_task_logger

from common.logsetup import bind
from workers.celery import app
from workers.tasks import RETRY

log = get_task_logger(__name__)


@app.task(name="workers.dataset.export_dataset", bind=True, **RETRY)
def export_dataset(self: Any, game: str, month: str) -> dict[str, Any]:
    """Writes ``game``'s dataset for ``month`` and returns its counts (matches, decisions, skipped)."""
    from webapp.datasets.export import write_dataset

    with bind(game=game):
        manifest = write_dataset(game, month)
        counts = {
            "matches": manifest["matches"],
            "decisions": manifest["decisions"],
            "skipped": len(manifest["skipped"]),
        }
        log.info("dataset", extra={"month": month, **counts})
    return counts


@app.task(name="workers.dataset.export_datasets", bind=True, **RETRY)
def export_datasets(self: Any) -> list[str]:
    """Sends ``export_dataset`` for every game's month that is missing or out of date; returns ``game/month`` names."""
    from referee.core.registry import game_names
    from webapp.datasets.export import stale_months

    sent = []
    for game in sorted(game_names()):
        for month in stale_months(game):
            export_dataset.delay(game, month)
            sent.append(f"{game}/{month}")
    if sent:
        log.info("dataset sweep", extra={"months": ",".join(sent)})
    return sent
