"""The Celery application of the Brawl Ladder: broker, queues, reliability settings and the beat schedule.

The broker is Redis when ``REDIS_URL`` is set; otherwise the embedded filesystem transport of
``common.broker`` under ``<BRAWL_VAR_DIR>/broker`` (``./var/broker``), so the one-machine default
needs no server (kombu's own filesystem transport tore messages under concurrency, kombu#1551). Tasks
acknowledge late and are rejected back to the queue when their worker dies, one message is
prefetched at a time, and every task is safe to run twice (see ``workers.tasks``). Three queues
keep recording from waiting behind scheduling or behind a result's slow aftermath: ``scheduling``
(ladder rounds, starting matches, tournaments, the reaper), ``recording`` (finished matches) and
``followups`` (sent once a result commits: author notifications, page refresh, viewer frames).

Environment (besides Django's ``DATABASE_URL`` and ``REDIS_URL``), read through ``common.settings``:
    BRAWL_REFEREES: comma-separated ``host:port`` of the referees' internal API (``127.0.0.1:50052``).
    BRAWL_LADDER_GAMES: games the beat schedules ladder rounds for (default: every registered game).
    BRAWL_LADDER_INTERVAL: seconds between ladder rounds per game (default 3).
    BRAWL_TOURNAMENT_INTERVAL: seconds between tournament progress sweeps (default 10).
    BRAWL_REAPER_INTERVAL: seconds between reaper sweeps (default 10).
    BRAWL_BROKER_VISIBILITY_TIMEOUT: seconds after which Redis gives an unacknowledged message (its
        worker died) to another worker (default 300; longer than any task runs).

This module is not the tasks (``workers.tasks``) nor the command line (``workers.cli``).
"""

from __future__ import annotations

import os

from celery import Celery, signals

from common import settings

# Broker settings and queues live apart so a ladder referee can publish results without importing
# this app (its task metrics import the web tier, and with it Django). Re-exported for callers.
from common.brokerconf import FOLLOWUPS, QUEUES, RECORDING, SCHEDULING, broker_settings

__all__ = ["FOLLOWUPS", "QUEUES", "RECORDING", "SCHEDULING", "app", "broker_settings"]

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

DATASET_SWEEP_INTERVAL = 3600.0
"""Seconds between the beat's sweeps over the learning dataset's months (``workers.dataset``)."""


def ladder_games() -> list[str]:
    """Returns the games the beat schedules ladder rounds for."""
    chosen = settings.current().ladder_games
    if chosen:
        return chosen
    from referee.core.registry import game_names

    return game_names()


def beat_schedule() -> dict[str, dict[str, object]]:
    """Returns the periodic tasks: a ladder round per game, tournament progress and the reaper.

    Each entry expires after one interval: a tick that waited longer than that is dropped, since
    the next one does the same work with fresher data.
    """
    conf = settings.current()
    ladder, tournaments, reaper = conf.ladder_interval, conf.tournament_interval, conf.reaper_interval
    schedule: dict[str, dict[str, object]] = {
        f"ladder-{game}": {
            "task": "workers.tasks.schedule_ladder_round",
            "schedule": ladder,
            "args": (game,),
            "options": {"expires": ladder},
        }
        for game in ladder_games()
    }
    schedule["tournaments"] = {
        "task": "workers.tasks.advance_tournaments",
        "schedule": tournaments,
        "options": {"expires": tournaments},
    }
    webhooks = conf.webhook_interval
    schedule["webhooks"] = {
        "task": "workers.webhooks.deliver_due_webhooks",
        "schedule": webhooks,
        "options": {"expires": webhooks},
    }
    schedule["datasets"] = {
        "task": "workers.dataset.export_datasets",
        "schedule": DATASET_SWEEP_INTERVAL,
        "options": {"expires": DATASET_SWEEP_INTERVAL},
    }
    schedule["reaper"] = {
        "task": "workers.tasks.reap_stuck_matches",
        "schedule": reaper,
        "options": {"expires": reaper},
    }
    return schedule


app = Celery("brawl", include=["workers.tasks", "workers.webhooks", "workers.dataset"])
app.conf.update(
    **broker_settings(),
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_serializer="json",
    accept_content=["json"],
    result_serializer="json",
    task_ignore_result=True,
    task_default_queue=SCHEDULING,
    # Each queue has its own exchange and routing key: queues sharing a binding would each get a
    # copy of every message.
    task_queues=QUEUES,
    task_default_exchange=SCHEDULING,
    task_default_routing_key=SCHEDULING,
    task_routes={
        "workers.tasks.record_match": {"queue": RECORDING},
        "workers.tasks.record_result": {"queue": RECORDING},
        "workers.tasks.notify_result": {"queue": FOLLOWUPS},
        "workers.tasks.store_frames": {"queue": FOLLOWUPS},
        "workers.tasks.refresh_pages": {"queue": FOLLOWUPS},
        "workers.tasks.*": {"queue": SCHEDULING},
    },
    broker_connection_retry_on_startup=True,
    # Logging is set up by ``common.logsetup`` (the ``setup_logging`` receiver below): the same
    # format, JSON option and ``task_id`` field as every other process.
    worker_hijack_root_logger=False,
    beat_schedule=beat_schedule(),
    timezone="UTC",
)
app.set_default()


@signals.setup_logging.connect
def _logging(loglevel: object = None, **_: object) -> None:
    """Celery's own root-logger set-up is replaced by the project's (``common.logsetup``)."""
    from common import logsetup

    logsetup.configure("worker", verbose=str(loglevel).upper() in {"DEBUG", "10"})


# Count task failures and retries for ``/metrics`` (``workers.taskmetrics``).
from workers import taskmetrics  # noqa: E402  (needs the app configured, and settings named, first)

taskmetrics.connect()
