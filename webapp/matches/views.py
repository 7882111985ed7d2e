"""API views for matches, replays and spectator frames."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from django.db.models import BooleanField as BoolField
from django.db.models import Case, Prefetch, Q, QuerySet, Value, When
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle

from referee.core.errors import EngineError
from referee.core.registry import UnknownGameError
from referee.core.replay import Replay, ReplayError, decompress
from webapp import longpoll
from webapp.api import BadParameter, bounded_int, query_id
from webapp.matches.framestore import frames_gz, patched_frames_gz
from webapp.matches.live import MAX_WAIT_SECONDS, live_frames
from webapp.matches.models import Match, MatchSeat, MatchStatus, with_secrets_state
from webapp.matches.pagination import MatchCursorPagination
from webapp.matches.serializers import (
    LIST_FIELDS,
    FramesSerializer,
    MatchDetailSerializer,
    MatchSerializer,
    match_list_rows,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def match_queryset() -> QuerySet[Match]:
    """Matches with their seats, bots and authors prefetched, replay bytes deferred, secrets state annotated."""
    seats = MatchSeat.objects.select_related("bot_version__bot__owner").order_by("seat")
    return (
        with_secrets_state(Match.objects.defer("replay_gz"))
        .annotate(  # type: ignore[no-redef]  # shadows Match.replay_stored() on these rows: listings read the flag
            replay_stored=Case(
                When(Q(replay_gz__isnull=False) | ~Q(replay_path=""), then=Value(True)),
                default=Value(False),
                output_field=BoolField(),
            )
        )
        .prefetch_related(Prefetch("seats", queryset=seats))
    )


def visible_matches(user: User | AnonymousUser) -> QuerySet[Match]:
    """Matches the user may see: everything except games of unpublished tournaments, unless staff or an
    organizer; an author also sees their own bots' games there (secrets still wait for the reveal rule)."""
    from webapp.roles import is_organizer

    qs = match_queryset()
    if not (getattr(user, "is_staff", False) or is_organizer(user)):
        shown = Q(tournament__isnull=True) | Q(tournament__published=True)
        if user.is_authenticated:
            shown |= Q(pk__in=MatchSeat.objects.filter(bot_version__bot__owner=user).values("match_id"))
        qs = qs.filter(shown)
    return qs


def filter_matches(qs: QuerySet[Match], params: Mapping[str, str]) -> QuerySet[Match]:
    """Applies the list filters shared by the API and the pages.

    Raises:
        BadParameter: an id filter is not an id (a 400 with code ``bad_parameter``).
    """
    if params.get("game"):
        qs = qs.filter(game=params["game"])
    if params.get("status"):
        qs = qs.filter(status=params["status"])
    if params.get("rated") in ("true", "false"):
        qs = qs.filter(rated=params["rated"] == "true")
    tournament = query_id(params.get("tournament"), "tournament")
    if tournament is not None:
        qs = qs.filter(tournament_id=tournament)
    # Seat filters are written as ``id IN (SELECT match_id ...)`` so PostgreSQL starts from the
    # seat index of the bot instead of testing every match with a correlated EXISTS.
    bot = query_id(params.get("bot"), "bot")
    if bot is not None:
        mine = MatchSeat.objects.filter(bot_version__bot_id=bot)
        qs = qs.filter(pk__in=mine.values("match_id"))
        result = params.get("result")
        if result in ("win", "draw"):
            others_first = MatchSeat.objects.filter(rank=1).exclude(bot_version__bot_id=bot).values("match_id")
            qs = qs.filter(pk__in=mine.filter(rank=1).values("match_id"))
            qs = qs.exclude(pk__in=others_first) if result == "win" else qs.filter(pk__in=others_first)
        elif result == "loss":
            qs = qs.filter(pk__in=mine.filter(rank__gt=1).values("match_id"))
    opponent = query_id(params.get("opponent"), "opponent")
    if opponent is not None:
        qs = qs.filter(pk__in=MatchSeat.objects.filter(bot_version__bot_id=opponent).values("match_id"))
    if params.get("owner"):
        owned = MatchSeat.objects.filter(bot_version__bot__owner__username=params["owner"])
        qs = qs.filter(pk__in=owned.values("match_id"))
    return qs


GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip stream."""


class NotRevealed(NotFound):
    """The replay exists but holds the seed of a match (or mirrored set) that has not ended."""

    default_detail = "the replay is published when the match, and every match sharing its seed, has ended"
    default_code = "not_revealed"


def public_replay_stored(match: Match) -> bytes:
    """Returns the replay of ``match`` as stored (see ``Match.replay_stored``) if its secrets are revealed.

    Raises:
        NotRevealed: the match (or a match sharing its seed) has not ended; a staged replay stays hidden.
        NotFound: the match has no replay.
    """
    if not match.secrets_revealed():
        raise NotRevealed()
    raw = Match.objects.only("replay_gz", "replay_path").get(pk=match.pk).replay_stored()
    if raw is None:
        raise NotFound("this match has no replay (yet)")
    return raw


def public_replay_bytes(match: Match) -> bytes:
    """Returns the stored replay JSON of ``match`` if its secrets are revealed (see :func:`public_replay_stored`)."""
    return decompress(public_replay_stored(match))


def load_replay(match: Match) -> Replay:
    """Returns the stored replay of ``match`` once its secrets are revealed (see :func:`public_replay_bytes`)."""
    return Replay.loads(public_replay_bytes(match))


def all_frames_gz(match: Match) -> bytes:
    """Returns every spectator frame of ``match``'s replay as gzipped JSON, computed once and stored.

    Raises:
        NotRevealed, NotFound: see :func:`public_replay_bytes`.
        ReplayError, EngineError, UnknownGameError, ImportError: the engine could not re-simulate it.
    """
    return frames_gz(match.pk, public_replay_bytes(match))


def all_frames(match: Match) -> dict[str, Any]:
    """Returns every spectator frame of ``match``'s replay as data (see :func:`all_frames_gz`)."""
    return cast(dict[str, Any], json.loads(gzip.decompress(all_frames_gz(match))))


class LiveThrottle(SimpleRateThrottle):
    """Live polling is cheap (frames come from memory) but frequent: its own, wider rate per user or address."""

    scope = "live"
    rate = "3600/hour"

    def get_cache_key(self, request: Request, view: object) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ReplayThrottle(SimpleRateThrottle):
    """Replay downloads are large answers read from the database or disk: the ``replay`` rate per user or address."""

    scope = "replay"

    def get_cache_key(self, request: Request, view: object) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class FramesThrottle(SimpleRateThrottle):
    """Re-simulating a replay costs CPU: the ``frames`` rate limits it per user or address."""

    scope = "frames"

    def get_cache_key(self, request: Request, view: object) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


@extend_schema(
    parameters=[
        OpenApiParameter("game", str),
        OpenApiParameter("status", str, enum=["queued", "running", "finished", "failed", "cancelled", "rescheduled"]),
        OpenApiParameter("rated", bool),
        OpenApiParameter("tournament", int),
        OpenApiParameter("bot", int, description="Matches in which this bot played."),
        OpenApiParameter("opponent", int, description="With ``bot``: only against this bot."),
        OpenApiParameter("result", str, enum=["win", "loss", "draw"], description="With ``bot``: its result."),
        OpenApiParameter("owner", str, description="Matches in which a bot of this author played."),
    ]
)
class MatchViewSet(viewsets.ReadOnlyModelViewSet[Match]):
    """Matches: public reads; matches are created by challenges, the matchmaker and tournaments.

    The list is newest first (by id) in pages of a keyset: follow ``next`` (see ``matches.pagination``).
    """

    permission_classes = [permissions.AllowAny]
    pagination_class = MatchCursorPagination

    def get_queryset(self) -> QuerySet[Match]:
        qs = visible_matches(self.request.user)
        if self.action == "list":
            qs = filter_matches(qs, self.request.query_params)
        return qs.order_by("-id")

    def get_serializer_class(self) -> type[MatchSerializer]:
        return MatchDetailSerializer if self.action == "retrieve" else MatchSerializer

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        """Matches newest first, in keyset pages (``next``/``previous`` links); ``?page=N`` for numbered pages.

        The rows are read as plain values and shaped like :class:`MatchSerializer` by
        :func:`match_list_rows` (same fields, same values), without a model or a serializer per row.
        """
        rows = self.get_queryset().prefetch_related(None).values(*LIST_FIELDS)
        page = self.paginate_queryset(rows)
        assert page is not None  # the list always paginates
        return self.get_paginated_response(match_list_rows(page))

    @extend_schema(responses={(200, "application/json"): OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"], throttle_classes=[ReplayThrottle])
    def replay(self, request: Request, pk: str | None = None) -> HttpResponse:
        """Downloads the replay JSON (``brawl replay verify`` checks it); gzip if ``?gz=1``."""
        match = self.get_object()
        stored = public_replay_stored(match)
        if request.query_params.get("gz") == "1":
            # The stored bytes are Replay.encode's gzip already; an older plain-JSON file is encoded once.
            gz = stored if stored[:2] == GZIP_MAGIC else Replay.loads(stored).encode()
            response = HttpResponse(gz, content_type="application/gzip")
            response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json.gz"'
        else:
            response = HttpResponse(decompress(stored), content_type="application/json")
            response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
        return response

    @extend_schema(
        parameters=[
            OpenApiParameter("start", int),
            OpenApiParameter("limit", int),
            OpenApiParameter(
                "form",
                str,
                enum=["patch"],
                description="``patch`` (whole replay only): frame 0 has the observation and the view, each "
                "later frame a ``patch`` and a ``view_patch`` of the ones before ([path, value] sets, [path] "
                'removes, [path, "L", spec] list rebuilds; docs/web.md) - what the viewer loads.',
            ),
        ],
        responses=FramesSerializer,
    )
    @action(detail=True, methods=["get"], throttle_classes=[FramesThrottle])
    def frames(self, request: Request, pk: str | None = None) -> HttpResponse:
        """Re-simulates the replay and returns the spectator's view after each decision, with public events."""
        match = self.get_object()
        start = bounded_int(request.query_params.get("start"), "start", default=0, low=0)
        limit = bounded_int(request.query_params.get("limit"), "limit", default=None, low=0)
        try:
            if request.query_params.get("form") == "patch" and start == 0 and limit is None:
                stored = patched_frames_gz(match.pk, public_replay_bytes(match))
            else:
                stored = all_frames_gz(match)
        except (ReplayError, EngineError) as exc:
            return Response({"detail": str(exc), "code": "replay_error"}, status=422)
        except (UnknownGameError, ImportError) as exc:
            return Response({"detail": str(exc), "code": "engine_unavailable"}, status=503)
        if start == 0 and limit is None:
            # The whole replay, as most viewers ask: the stored bytes as they are, with no parse or re-render;
            # a strong ETag per encoding (the bytes never change for one replay), revalidated on each use.
            zipped = "gzip" in request.headers.get("Accept-Encoding", "")
            etag = f'"{hashlib.sha256(stored).hexdigest()[:32]}{"" if zipped else "-identity"}"'
            if etag in request.headers.get("If-None-Match", ""):
                response = HttpResponse(status=304)
            elif zipped:
                response = HttpResponse(stored, content_type="application/json")
                response["Content-Encoding"] = "gzip"
            else:
                response = HttpResponse(gzip.decompress(stored), content_type="application/json")
            response["ETag"], response["Vary"] = etag, "Accept-Encoding"
            response["Cache-Control"] = "private, no-cache"
            return response
        data = cast(dict[str, Any], json.loads(gzip.decompress(stored)))
        # Frame i is at position i of the full list; a slice is just a slice, never a re-simulation.
        end = None if limit is None else start + limit
        return Response({**data, "start": start, "frames": data["frames"][start:end]})

    @extend_schema(
        parameters=[
            OpenApiParameter("since", int, description="Only frames with a higher index (default -1: all)."),
            OpenApiParameter("wait", float, description="Seconds to wait for a new frame (long-poll, at most 20)."),
        ],
        responses={(200, "application/json"): OpenApiTypes.OBJECT},
    )
    @action(detail=True, methods=["get"], throttle_classes=[LiveThrottle])
    def live(self, request: Request, pk: str | None = None) -> Response:
        """The spectator frames of a running match read from its referee, after index ``since``.

        ``live`` is false when the match is not running (load ``frames/`` once ``has_replay``). When
        every waiting slot of the process is taken (``webapp.longpoll``) it answers at once, with
        ``retry_after`` and a ``Retry-After`` header.
        """
        match = self.get_object()
        since = bounded_int(request.query_params.get("since"), "since", default=-1, low=-1, high=10**9)
        raw_wait = request.query_params.get("wait") or "0"
        try:
            wait = float(raw_wait)
        except ValueError:
            raise BadParameter(f"wait must be a number of seconds, got {raw_wait[:40]!r}") from None
        if not 0 <= wait <= MAX_WAIT_SECONDS:  # also refuses NaN and infinities
            raise BadParameter(f"wait must be between 0 and {MAX_WAIT_SECONDS:g} seconds, got {raw_wait[:40]}")
        # has_replay only once the replay may be read (see Match.secrets_revealed).
        head = {"match": match.pk, "status": match.status, "has_replay": MatchSerializer().get_has_replay(match)}
        if match.status != MatchStatus.RUNNING or not match.referee_id:
            return Response({**head, "live": False, "game": match.game, "frames": [], "last": since, "ended": True})
        seats = [s.bot_version.bot.name for s in match.seats.all()]
        with longpoll.wait_slot(wait) as granted:
            data = live_frames(match.pk, match.referee_id, match.game, since=since, wait=granted)
        if not longpoll.refused(wait, granted):
            return Response({**head, "live": True, "seats": seats, **data})
        # Every waiting slot of this process is taken: answer what there is now, and when to ask again.
        retry = longpoll.RETRY_AFTER_SECONDS
        response = Response({**head, "live": True, "seats": seats, **data, "retry_after": retry})
        response["Retry-After"] = str(retry)
        return response
