"""API views for matches, replays and spectator frames."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

import gzip

from django.core.cache import cache
from django.db.models import BooleanField as BoolField
from django.db.models import Case, Prefetch, Q, QuerySet, Value, When
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle

from referee.core.errors import EngineError
from referee.core.registry import UnknownGameError
from referee.core.replay import Replay, ReplayError
from webapp.matches.frames import spectator_frames
from webapp.matches.live import live_frames
from webapp.matches.models import Match, MatchSeat, MatchStatus
from webapp.matches.serializers import FramesSerializer, MatchDetailSerializer, MatchSerializer

FRAMES_CACHE_SECONDS = 600
"""How long computed frames stay in the cache."""


def match_queryset() -> QuerySet[Match]:
    """Matches with their seats, bots and authors prefetched, replay bytes deferred."""
    seats = MatchSeat.objects.select_related("bot_version__bot__owner").order_by("seat")
    return (
        Match.objects.defer("replay_gz")
        .annotate(
            replay_stored=Case(
                When(Q(replay_gz__isnull=False) | ~Q(replay_path=""), then=Value(True)),
                default=Value(False),
                output_field=BoolField(),
            )
        )
        .prefetch_related(Prefetch("seats", queryset=seats))
    )


def visible_matches(user: object) -> QuerySet[Match]:
    """Matches the user may see: everything except games of unpublished tournaments, unless staff."""
    qs = match_queryset()
    if not getattr(user, "is_staff", False):
        qs = qs.filter(Q(tournament__isnull=True) | Q(tournament__published=True))
    return qs


def filter_matches(qs: QuerySet[Match], params: dict[str, str]) -> QuerySet[Match]:
    """Applies the list filters shared by the API and the pages.

    Raises:
        ValidationError: a numeric filter is not a number.
    """
    try:
        if params.get("game"):
            qs = qs.filter(game=params["game"])
        if params.get("status"):
            qs = qs.filter(status=params["status"])
        if params.get("rated") in ("true", "false"):
            qs = qs.filter(rated=params["rated"] == "true")
        if params.get("tournament"):
            qs = qs.filter(tournament_id=int(params["tournament"]))
        # Seat filters are written as ``id IN (SELECT match_id ...)`` so PostgreSQL starts from the
        # seat index of the bot instead of testing every match with a correlated EXISTS.
        if params.get("bot"):
            bot = int(params["bot"])
            mine = MatchSeat.objects.filter(bot_version__bot_id=bot)
            qs = qs.filter(pk__in=mine.values("match_id"))
            result = params.get("result")
            if result in ("win", "draw"):
                others_first = MatchSeat.objects.filter(rank=1).exclude(bot_version__bot_id=bot).values("match_id")
                qs = qs.filter(pk__in=mine.filter(rank=1).values("match_id"))
                qs = qs.exclude(pk__in=others_first) if result == "win" else qs.filter(pk__in=others_first)
            elif result == "loss":
                qs = qs.filter(pk__in=mine.filter(rank__gt=1).values("match_id"))
        if params.get("opponent"):
            opp = int(params["opponent"])
            qs = qs.filter(pk__in=MatchSeat.objects.filter(bot_version__bot_id=opp).values("match_id"))
        if params.get("owner"):
            owned = MatchSeat.objects.filter(bot_version__bot__owner__username=params["owner"])
            qs = qs.filter(pk__in=owned.values("match_id"))
    except ValueError as exc:
        raise ValidationError({"detail": f"bad filter value: {exc}"}) from exc
    return qs


def load_replay(match: Match) -> Replay:
    """Returns the stored replay of ``match``.

    Raises:
        NotFound: the match has no replay.
    """
    fresh = Match.objects.only("replay_gz", "replay_path").get(pk=match.pk)
    raw = fresh.replay_bytes()
    if raw is None:
        raise NotFound("this match has no replay (yet)")
    return Replay.loads(raw)


class LiveThrottle(SimpleRateThrottle):
    """Live polling is cheap (frames come from memory) but frequent: its own, wider rate per user or address."""

    scope = "live"
    rate = "3600/hour"

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
class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    """Matches: public reads; matches are created by challenges, the matchmaker and tournaments."""

    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> QuerySet[Match]:
        qs = visible_matches(self.request.user)
        if self.action == "list":
            qs = filter_matches(qs, self.request.query_params)
        return qs.order_by("-created", "-id")

    def get_serializer_class(self) -> type[MatchSerializer]:
        return MatchDetailSerializer if self.action == "retrieve" else MatchSerializer

    @extend_schema(responses={(200, "application/json"): OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str | None = None) -> HttpResponse:
        """Downloads the replay JSON (``brawl replay verify`` checks it); gzip if ``?gz=1``."""
        match = self.get_object()
        fresh = Match.objects.only("replay_gz", "replay_path").get(pk=match.pk)
        raw = fresh.replay_bytes()
        if raw is None:
            raise NotFound("this match has no replay (yet)")
        if request.query_params.get("gz") == "1":
            response = HttpResponse(gzip.compress(raw, mtime=0), content_type="application/gzip")
            response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json.gz"'
        else:
            response = HttpResponse(raw, content_type="application/json")
            response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
        return response

    @extend_schema(
        parameters=[OpenApiParameter("start", int), OpenApiParameter("limit", int)], responses=FramesSerializer
    )
    @action(detail=True, methods=["get"], throttle_classes=[FramesThrottle])
    def frames(self, request: Request, pk: str | None = None) -> Response:
        """Re-simulates the replay and returns the spectator's view after each decision, with public events."""
        match = self.get_object()
        try:
            start = max(0, int(request.query_params.get("start", 0)))
            limit = request.query_params.get("limit")
            limit_n = int(limit) if limit else None
        except ValueError as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        # A stored replay never changes, so its frames are cached (keyed on the match and the slice).
        key = f"frames:{match.pk}:{start}:{limit_n}"
        cached = cache.get(key) if match.is_final else None
        if cached is not None:
            return Response(cached)
        replay = load_replay(match)
        try:
            data = spectator_frames(replay, start=start, limit=limit_n)
        except ValueError as exc:
            if isinstance(exc, ReplayError | EngineError):
                return Response({"detail": str(exc), "code": "replay_error"}, status=422)
            raise ValidationError({"detail": str(exc)}) from exc
        except (UnknownGameError, EngineError, ImportError) as exc:
            return Response({"detail": str(exc), "code": "engine_unavailable"}, status=503)
        if match.is_final:
            cache.set(key, data, timeout=FRAMES_CACHE_SECONDS)
        return Response(data)

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

        ``live`` is false when the match is not running (load ``frames/`` once ``has_replay``).
        """
        match = self.get_object()
        try:
            since = int(request.query_params.get("since", -1))
            wait = float(request.query_params.get("wait", 0))
        except ValueError as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        if wait != wait:  # NaN
            raise ValidationError({"detail": "wait must be a number"})
        head = {"match": match.pk, "status": match.status, "has_replay": bool(getattr(match, "replay_stored", False))}
        if match.status != MatchStatus.RUNNING or not match.referee_id:
            return Response({**head, "live": False, "game": match.game, "frames": [], "last": since, "ended": True})
        seats = [s.bot_version.bot.name for s in match.seats.all()]
        data = live_frames(match.pk, match.referee_id, match.game, since=since, wait=wait)
        return Response({**head, "live": True, "seats": seats, **data})
