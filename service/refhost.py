"""The referee's ladder mode: the web tier checks bot tokens, results go to the workers.

``brawl referee`` without ``--tokens``/``--replays`` serves the ordinary referee server
(``referee.server.service.serve``) with the stores :func:`ladder_stores` returns:
:class:`~referee.server.auth.WebTokenStore` (the web tier's internal API at
``BRAWL_WEB_INTERNAL_URL``, called with the internal service credential) and :func:`ladder_sink` as its
result sink; ``service.cli`` hands :func:`ladder_stores` to ``referee.server.cli``, which decides the
rest (the Redis seat relay among it). The sink only
publishes: it puts ``record_result(match_id, replay)`` on the broker's ``recording`` queue, and a
worker stages and records it (``workers.recording.record_result``), the one write path for
finished matches. The referee holds no database credentials and never sets Django up: the web
tier reads the token row and records its ``last_used_at``. The referee's own retry of a failing
sink covers a broker that is briefly down, and the reaper replaces a match whose result never
arrived.

With the relay, a match runs on one referee (the one ``workers.scheduling`` started it on) and
only that referee's sink records it; a referee that merely hosts a relayed seat records nothing.

This module is not the referee (``referee/server``) nor the recording logic.
"""

from __future__ import annotations

import base64
import logging
from typing import Any

from common import settings as env_settings
from common.brokerconf import RECORDING
from common.credential import internal_token
from referee.core.ids import MatchId
from referee.server.auth import TokenStore, WebTokenStore
from referee.server.sinks import HandOffResultSink, ResultSink

log = logging.getLogger(__name__)


RECORD_RESULT = "workers.tasks.record_result"
"""The task a ladder referee sends each finished match to (on the ``recording`` queue)."""


_publisher: Any = None


def publisher() -> Any:
    """Returns the referee's publish-only Celery app (built once): the workers' broker and queues, no tasks.

    Not ``workers.celery.app``: that one imports the task modules and the web tier's metrics, and
    with them Django, which a referee never loads.
    """
    global _publisher
    if _publisher is None:
        from celery import Celery

        from common.brokerconf import publisher_settings

        app = Celery("brawl-referee", set_as_current=False)
        app.conf.update(**publisher_settings())
        _publisher = app
    return _publisher


def send_result(match_id: MatchId, data: bytes) -> str:
    """Puts ``record_result(match_id, replay)`` on the broker's ``recording`` queue; returns the replay's API path.

    Only a broker publish: the referee writes no match data to the database. The replay travels as
    :meth:`Replay.encode` bytes in base64 (the task messages are JSON).

    Raises:
        kombu.exceptions.OperationalError: the broker is down (the referee retries the sink; the
            reaper replaces the match if every attempt fails).
    """
    app = publisher()
    app.send_task(RECORD_RESULT, args=[str(match_id), base64.b64encode(data).decode("ascii")], queue=RECORDING)
    # DEBUG: the match's end is the worker's "record" line; this one would double it at INFO.
    log.debug("result sent", extra={"match_id": str(match_id), "replay_bytes": len(data)})
    return f"/api/v1/matches/{match_id}/replay/"


def ladder_sink() -> HandOffResultSink:
    """The ladder referee's result sink: every finished match goes to the workers through the broker."""
    return HandOffResultSink(send_result)


def ladder_stores() -> tuple[TokenStore, ResultSink]:
    """Returns the ladder referee's token store and result sink, for ``referee.server.cli`` to serve with.

    The tokens are the web tier's (:class:`~referee.server.auth.WebTokenStore` at
    ``BRAWL_WEB_INTERNAL_URL``, called with the internal service credential): no database here, the
    web tier checks the bot tokens (``webapp.internal``) and records their use. The sink is
    :func:`ladder_sink`.

    Raises:
        SystemExit: ``BRAWL_WEB_INTERNAL_URL`` is malformed (the message says so, with no traceback).
        common.credential.InternalTokenError: no internal service credential.
    """
    try:
        tokens = WebTokenStore(env_settings.current().web_internal_url, internal_token())
    except ValueError as exc:
        raise SystemExit(f"error: BRAWL_WEB_INTERNAL_URL: {exc}") from exc
    return tokens, ladder_sink()
