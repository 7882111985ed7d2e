"""Sending author webhooks: the deliveries ``webapp.notifications`` queued, with retries and backoff.

``deliver_due()`` claims the pending deliveries whose time has come (``SKIP LOCKED``, so several
workers share the work without sending one twice at once), POSTs each signed body and records the
attempt: a 2xx delivers it, anything else (an error status, a refused connection, a timeout)
schedules the next attempt with exponential backoff until ``MAX_ATTEMPTS``. The beat runs the sweep
every few seconds (``deliver_due_webhooks``) and the web app asks for one right after an event.
"""

from __future__ import annotations

import http.client
import ipaddress
import logging
import socket
import ssl
from datetime import datetime
from typing import Any

from common import settings
from webapp.notifications import targets
from webapp.notifications.targets import WebhookTarget
from workers.celery import app

log = logging.getLogger(__name__)

TIMEOUT_S = 5.0
"""How long a receiver may take to answer."""
BATCH = 50
"""Deliveries claimed per sweep."""


ALLOW_PRIVATE_ENV = "BRAWL_WEBHOOK_ALLOW_PRIVATE"
"""Set to 1 to let webhooks reach loopback and private addresses (tests, a closed network)."""


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to one address already checked, whatever the host name resolves to now."""

    def __init__(self, address: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """The same over TLS: the connection goes to the checked address, the certificate is checked
    against the URL's host name."""

    _context: ssl.SSLContext  # set by HTTPSConnection's constructor; the standard library's stubs leave it out

    def __init__(self, address: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, context=ssl.create_default_context(), **kwargs)
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def resolve(target: WebhookTarget) -> tuple[str, str]:
    """The address the worker connects to for ``target``, or why it may not (one is empty).

    An author chooses the URL, and the workers sit inside the service's network beside the database,
    Redis and the referees' internal API: every address the host resolves to must be a public one,
    unless ``BRAWL_WEBHOOK_ALLOW_PRIVATE`` is set. The host is resolved once, here, and the
    connection goes to the address returned, so a name that resolves elsewhere a moment later
    (DNS rebinding) does not move the delivery.
    """
    allow_private = settings.current().webhook_allow_private
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError) as exc:
        return "", f"cannot resolve {target.host!r}: {exc}"
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        return "", f"cannot resolve {target.host!r}: no address"
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if not allow_private and not address.is_global:
            return "", f"refused: {target.host!r} resolves to {address}, which is not a public address"
    return addresses[0], ""


def forbidden_target(url: str) -> str:
    """Returns why the worker may not POST to ``url`` (empty when it may): a URL outside the
    accepted form (``webapp.notifications.targets``), or a host that is not public (:func:`resolve`)."""
    try:
        target = targets.parse(url)
    except targets.BadWebhookUrl as exc:
        return str(exc)
    return resolve(target)[1]


def post(url: str, body: bytes, headers: dict[str, str], timeout: float = TIMEOUT_S) -> tuple[int | None, str]:
    """POSTs ``body``; returns the status code (None when there was no answer) and an error text.

    What is sent is the canonical form of ``url``, to the address :func:`resolve` checked. A
    redirect is an answer, not an order (``http.client`` follows none): following one could lead the
    worker to an address the check refused. Never raises: any failure is the error text.
    """
    try:
        target = targets.parse(url)
    except targets.BadWebhookUrl as exc:
        return None, str(exc)
    address, refused = resolve(target)
    if refused:
        return None, refused
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(address, target.host, target.port, timeout=timeout)
    try:
        connection.putrequest("POST", target.target, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", target.authority)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        code = response.status
        return code, "" if 200 <= code < 300 else f"HTTP {code}"
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return None, f"{type(exc).__name__}: {exc}"
    except Exception as exc:
        log.exception("webhook post failed", extra={"host": target.host})
        return None, f"{type(exc).__name__}: {exc}"
    finally:
        connection.close()


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
            # The row stays locked while we wait on the receiver (at most TIMEOUT_S), so no other
            # worker sends it at the same time. Whatever goes wrong with this one delivery is its
            # failed attempt, backed off like any other: it never stops the sweep for the others.
            try:
                body = services.body_of(delivery)
                headers = {
                    "Content-Type": "application/json",
                    "User-Agent": "brawl-ladder-webhooks",
                    "X-Brawl-Event": delivery.event.kind,
                    "X-Brawl-Delivery": str(delivery.pk),
                    "X-Brawl-Signature": services.sign(delivery.webhook.secret, body),
                }
                code, error = post(delivery.webhook.url, body, headers)
            except Exception as exc:
                log.exception("webhook delivery failed", extra={"delivery": delivery.pk})
                code, error = None, f"{type(exc).__name__}: {exc}"
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
