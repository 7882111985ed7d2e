"""Sending author webhooks: the deliveries ``webapp.notifications`` queued, with retries and backoff.

``deliver_due()`` claims the pending deliveries whose time has come (``SKIP LOCKED``, so several
workers share the work without sending one twice at once), POSTs each signed body and records the
attempt: a 2xx delivers it, anything else (an error status, a refused connection, a timeout)
schedules the next attempt with exponential backoff until ``MAX_ATTEMPTS``. The beat runs the sweep
every few seconds (``deliver_due_webhooks``) and the web app asks for one right after an event.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from typing import Any

from referee import settings
from workers.celery import app

log = logging.getLogger(__name__)

TIMEOUT_S = 5.0
"""How long a receiver may take to answer."""
BATCH = 50
"""Deliveries claimed per sweep."""


ALLOW_PRIVATE_ENV = "BRAWL_WEBHOOK_ALLOW_PRIVATE"
"""Set to 1 to let webhooks reach loopback and private addresses (tests, a closed network)."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not an order: following one could lead the worker to an address the
    target check refused (a public receiver answering 302 to http://127.0.0.1:6379/)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def forbidden_target(url: str) -> str:
    """Returns why the worker may not POST to ``url`` (empty when it may).

    An author chooses the URL, and the workers sit inside the service's network beside the database,
    Redis and the referees' internal API: every address the host name resolves to must be a public
    one, unless ``BRAWL_WEBHOOK_ALLOW_PRIVATE`` is set. (A name that resolves differently between this
    check and the connection is not caught; docs/web.md recommends an egress proxy as well.)
    """
    if settings.current().webhook_allow_private:
        return ""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    try:
        infos = socket.getaddrinfo(
            host, parts.port or (443 if parts.scheme == "https" else 80), type=socket.SOCK_STREAM
        )
    except (OSError, UnicodeError, ValueError) as exc:
        return f"cannot resolve {host!r}: {exc}"
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if not address.is_global:
            return f"refused: {host!r} resolves to {address}, which is not a public address"
    return ""


def post(url: str, body: bytes, headers: dict[str, str], timeout: float = TIMEOUT_S) -> tuple[int | None, str]:
    """POSTs ``body``; returns the status code (None when there was no answer) and an error text."""
    refused = forbidden_target(url)
    if refused:
        return None, refused
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return response.status, ""
    except urllib.error.HTTPError as exc:
        return exc.code, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return None, f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"


def deliver_due(now: datetime | None = None, limit: int = BATCH) -> int:
    """Sends the deliveries that are due; returns how many were attempted."""
    from django.db import transaction
    from django.utils import timezone

    from webapp.notifications import services
    from webapp.notifications.models import Delivery, DeliveryStatus

    now = now or timezone.now()
    attempted = 0
    while attempted < limit:
        with transaction.atomic():
            delivery = (
                Delivery.objects.select_for_update(skip_locked=True)
                .select_related("webhook", "event")
                .filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
                .order_by("next_attempt_at", "id")
                .first()
            )
            if delivery is None:
                break
            body = services.body_of(delivery)
            headers = {
                "Content-Type": "application/json",
                "User-Agent": "brawl-ladder-webhooks",
                "X-Brawl-Event": delivery.event.kind,
                "X-Brawl-Delivery": str(delivery.pk),
                "X-Brawl-Signature": services.sign(delivery.webhook.secret, body),
            }
            # The row stays locked while we wait on the receiver (at most TIMEOUT_S), so no other
            # worker sends it at the same time.
            code, error = post(delivery.webhook.url, body, headers)
            services.record_attempt(delivery, status_code=code, error=error, now=now)
            attempted += 1
            log.info(
                "webhook attempt",
                extra={"delivery": delivery.pk, "status": delivery.status, "code": code, "attempts": delivery.attempts},
            )
    return attempted


@app.task(name="workers.webhooks.deliver_due_webhooks", ignore_result=True)
def deliver_due_webhooks() -> int:
    """The beat's and the web app's sweep over due webhook deliveries."""
    return deliver_due()


def beat_entry(interval: float) -> dict[str, Any]:
    """The beat schedule entry of the sweep."""
    return {"task": "workers.webhooks.deliver_due_webhooks", "schedule": interval, "options": {"expires": interval}}
