"""``DjangoResultSink``: the referee's ``ResultSink`` that records finished matches in the database.

The referee calls :meth:`DjangoResultSink.record` with its match id and the replay; the sink
finishes the ``Match`` through :func:`webapp.matches.services.do_finish_match` (replay, seats,
ratings, tournament progress in one transaction). Recording a match that is already final stores
nothing new, as the protocol requires. The referee's match id is the ``Match`` primary key, or the
``request_id`` the match was queued with.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async

from referee.core.ids import MatchId
from referee.core.replay import Replay
from webapp.bots.token_store import closing
from webapp.matches import services
from webapp.matches.models import Match


def find_match(match_id: str) -> Match:
    """Returns the match the referee calls ``match_id``.

    Raises:
        Match.DoesNotExist: no match has that id or request id.
    """
    if match_id.isdigit():
        found = Match.objects.filter(pk=int(match_id)).first()
        if found is not None:
            return found
    return Match.objects.get(request_id=match_id)


def record_result(match_id: str, replay: Replay, referee_id: str = "") -> str:
    """Finishes the match once and returns where its replay is (``/api/v1/matches/<id>/replay/``)."""
    match = find_match(match_id)
    if not match.is_final:
        services.do_finish_match(match.pk, replay, referee_id=referee_id)
    return f"/api/v1/matches/{match.pk}/replay/"


class DjangoResultSink:
    """The referee's ``ResultSink``, writing to the database.

    Args:
        referee_id: Recorded on each match as the referee that ran it.
    """

    def __init__(self, referee_id: str = "") -> None:
        self.referee_id = referee_id

    async def record(self, match_id: MatchId, replay: Replay) -> str:
        """Records the finished match (idempotent) and returns the replay's URL path."""
        return await sync_to_async(closing(record_result), thread_sensitive=False)(
            str(match_id), replay, self.referee_id
        )
