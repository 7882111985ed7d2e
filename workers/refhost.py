"""The referee's ladder mode: bots authenticate against the database, results go to the workers.

``brawl referee`` without ``--tokens``/``--replays`` runs :func:`serve_ladder_referee`: the
ordinary referee server (``referee.server.service.serve``) with ``webapp``'s
:class:`~webapp.bots.token_store.DjangoTokenStore` and :class:`StagingSink` as its result sink,
and the Redis seat relay when a URL is given (``referee.server.cli`` decides). The sink stages
the replay on the match row (``do_stage_result``, atomic and once) and sends ``record_match`` to
the ``recording`` queue; ``workers.recording`` explains the rest of the path, which is the one
write path for finished matches. The referee's own retry of a failing sink, and the reaper's
sweep of staged replays, cover a lost message or a broker that is down.

With the relay, a match runs on one referee (the one ``workers.scheduling`` started it on) and
only that referee's sink records it; a referee that merely hosts a relayed seat records nothing.

This module is not the referee (``referee/server``) nor the recording logic.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any

from referee.core.ids import MatchId
from referee.core.replay import Replay

if TYPE_CHECKING:
    from webapp.matches.models import Match

log = logging.getLogger(__name__)


def find_match(match_id: str) -> Match:
    """Returns the match the referee calls ``match_id``: the ``Match`` primary key, or its ``request_id``.

    Raises:
        Match.DoesNotExist: no match has that id or request id.
    """
    from webapp.matches.models import Match

    if match_id.isdigit():
        found = Match.objects.filter(pk=int(match_id)).first()
        if found is not None:
            return found
    return Match.objects.get(request_id=match_id)


class StagingSink:
    """The referee's ``ResultSink`` for the ladder: stage the replay, then ask the workers to record it."""

    def _record(self, match_id: str, replay: Replay) -> str:
        from webapp.matches import services
        from workers.celery import RECORDING, app

        match = find_match(match_id)
        staged = services.do_stage_result(match.pk, replay)
        match.refresh_from_db(fields=["status"])
        if not match.is_final:
            # Sent even when the replay was staged by an earlier attempt: that attempt's message
            # may never have left; recording twice is harmless.
            app.send_task("workers.tasks.record_match", args=[match.pk], queue=RECORDING)
        # DEBUG: the match's end is the worker's "record" line; this one would double it at INFO.
        log.debug("result staged match_id=%s new=%s final=%s", match.pk, staged, match.is_final)
        return f"/api/v1/matches/{match.pk}/replay/"

    async def record(self, match_id: MatchId, replay: Replay) -> str:
        """Stages the replay of ``match_id`` and enqueues its recording; returns the replay's URL path.

        Raises:
            Match.DoesNotExist: the database has no such match.
            OperationalError: the database failed (the referee retries).
            kombu.exceptions.OperationalError: the broker is down (the referee retries; the
                reaper records the staged replay if every attempt fails).
        """
        from webapp.bots.token_store import closing

        return await asyncio.to_thread(closing(self._record), str(match_id), replay)


def serve_ladder_referee(
    listen: str,
    *,
    grace: float = 30.0,
    max_message_bytes: int | None = None,
    relay_url: str | None = None,
    internal_address: str = "127.0.0.1:50052",
    tls: Any = None,
    reuse_port: bool = False,
) -> None:
    """Runs a ladder-mode referee on ``listen`` until SIGTERM.

    Args:
        listen: ``HOST:PORT`` of the bot port.
        grace: Seconds running matches get on shutdown.
        max_message_bytes: The gRPC message limit (the referee's default when ``None``).
        relay_url: Redis URL of the seat relay between referees; ``None`` turns it off.
        internal_address: ``HOST:PORT`` of the internal API (what ``BRAWL_REFEREES`` lists).
        tls: ``referee.server.service.TlsFiles`` to serve bots over TLS, or ``None``.
        reuse_port: Share the bot port with the other referee processes of this machine.
    """
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    from referee.server.hub import RefereeSettings
    from referee.server.service import serve
    from webapp.bots.token_store import DjangoTokenStore

    settings = RefereeSettings() if max_message_bytes is None else RefereeSettings(max_message_bytes=max_message_bytes)
    asyncio.run(
        serve(
            listen,
            tokens=DjangoTokenStore(),
            sink=StagingSink(),
            settings=settings,
            grace=grace,
            relay_url=relay_url,
            internal_address=internal_address,
            tls=tls,
            reuse_port=reuse_port,
        )
    )
