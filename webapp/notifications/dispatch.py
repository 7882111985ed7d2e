"""Asking the workers to send pending webhook deliveries now rather than at their next sweep."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from webapp import tasks_out


def send_after_commit() -> None:
    """With ``BRAWL_DISPATCH=celery``, queues one delivery sweep once the transaction commits.

    Without it nothing is sent here: the beat's periodic sweep (``workers.webhooks``) picks the
    deliveries up, which is also what retries them.
    """
    if getattr(settings, "BRAWL_DISPATCH", "none") != "celery":
        return

    def send() -> None:
        tasks_out.send_task("workers.webhooks.deliver_due_webhooks")

    transaction.on_commit(send)
