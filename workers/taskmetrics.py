"""Counts Celery task failures and retries where ``/metrics`` can read them (``webapp.metrics``).

Handlers for Celery's ``task_failure`` and ``task_retry`` signals, connected when ``workers.celery``
is imported (so in every worker process). Each event adds one to a counter keyed on the task name
and the kind (``failure``, ``retry``): a Redis hash when ``REDIS_URL`` is set, else a line in
``$BRAWL_VAR_DIR/metrics/task-events.log``. The store is shared by every worker and read by the web
process at each scrape, so the numbers survive worker restarts and need no per-worker endpoint.

Counting must never change what happens to a task: a store that cannot be written is logged and
the event is lost. This module is not the tasks (``workers.tasks``) nor the metrics view.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from celery import signals

from common import settings
from webapp.metrics import record_task_event

log = logging.getLogger(__name__)


def _store() -> tuple[str | None, Path]:
    """The store of this process, from the same variables as the broker (``workers.celery``)."""
    conf = settings.current()
    return conf.redis_url, conf.var_dir


def count(task_name: str, kind: str) -> None:
    """Adds one ``kind`` event of ``task_name`` to the shared store; logs instead of raising."""
    redis_url, var_dir = _store()
    try:
        record_task_event(task_name, kind, redis_url=redis_url, var_dir=var_dir)
    except Exception:
        log.warning("could not count a %s of %s", kind, task_name, exc_info=True)


def on_task_failure(sender: Any = None, **kwargs: Any) -> None:
    """``task_failure``: the task raised and will not be retried (or its retries are exhausted)."""
    count(getattr(sender, "name", None) or "unknown", "failure")


def on_task_retry(sender: Any = None, **kwargs: Any) -> None:
    """``task_retry``: the task asked to be retried (a transient error, with backoff)."""
    count(getattr(sender, "name", None) or "unknown", "retry")


def connect() -> None:
    """Connects the handlers (idempotent: Celery keys receivers by ``dispatch_uid``)."""
    signals.task_failure.connect(on_task_failure, weak=False, dispatch_uid="brawl-task-failure")
    signals.task_retry.connect(on_task_retry, weak=False, dispatch_uid="brawl-task-retry")
