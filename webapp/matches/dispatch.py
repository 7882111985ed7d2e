"""Handing a queued match to whoever runs matches: the one place the web app enqueues work.

With ``BRAWL_DISPATCH=celery`` the match id is sent, after the transaction commits, to the task
named by ``BRAWL_RUN_MATCH_TASK`` through ``webapp.tasks_out`` (a publish-only Celery app that sends
by name and imports no workers code; the workers refetch the row, so only the id travels).
Otherwise nothing is sent: a queued match waits in the table until the workers' reaper starts it.
This module does not run matches.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from webapp import tasks_out

log = logging.getLogger(__name__)


def enqueue_match(match_id: int) -> None:
    """Arranges for match ``match_id`` to be run once the current transaction commits."""
    transaction.on_commit(lambda: _send(match_id))


def _send(match_id: int) -> None:
    mode = getattr(settings, "BRAWL_DISPATCH", "none")
    if mode != "celery":
        log.debug("match queued without dispatch", extra={"match_id": match_id})
        return
    tasks_out.send_task(settings.BRAWL_RUN_MATCH_TASK, args=[match_id])
    # DEBUG: the worker logs the match's start at INFO; a line here too would double it.
    log.debug("match dispatched", extra={"match_id": match_id})
