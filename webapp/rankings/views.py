"""API views for leaderboards and rating history."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.db.models import BooleanField, Case, ExpressionWrapper, F, FloatField, QuerySet, Value, When, Window
from django.db.models.functions import RowNumber
from django.http import HttpRequest, QueryDict
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from ladder.glicko2 import CONSERVATIVE_Z
from webapp.api import Pagination, query_id
from webapp.cache import read_through
from webapp.rankings.mapping import CONFIG
from webapp.rankings.models import Rating, RatingHistory
from webapp.rankings.serializers import RatingHistorySerializer, RatingSerializer
from webapp.rankings.stamps import game_scope, leaderboard_stamp

PROVISIONAL_GAMES = CONFIG.k.provisional_games
"""A version is provisional, and listed after the established ones, until it has played this many rated games (20).

The same count as the rating's provisional phase (K 40 until then, 20 after): until then the
rating is still moving fast towards the bot's level.
"""


def leaderboard(game: str | None, *, active: bool | None = True, latest_only: bool = True) -> QuerySet[Rating]:
    """Ratings ordered best first, annotated with ``rank`` and ``provisional``, with bots and authors joined.

    Established versions come first by the published, conservative rating (Glicko-2 ``r - 2 RD``,
    annotated as ``conservative``: ``ladder.glicko2.conservative``), then provisional ones (see
    :data:`PROVISIONAL_GAMES`) by the same.

    Args:
        game: only this game (ranks are per game, so pass one for meaningful ranks).
        active: only active bots (``True``), only inactive (``False``) or all (``None``).
        latest_only: only each bot's latest version.
    """
    qs = Rating.objects.select_related("bot_version__bot__owner")
    if game:
        qs = qs.filter(game=game)
    if active is not None:
        qs = qs.filter(bot_version__bot__active=active)
    if latest_only:
        qs = qs.filter(bot_version__bot__latest_version=F("bot_version"))
    # Provisional versions (fewer than PROVISIONAL_GAMES rated games) rank after every established one:
    # a bot with 0 games and the initial rating must not sit above bots that earned theirs.
    provisional = Case(
        When(games__lt=PROVISIONAL_GAMES, then=Value(True)), default=Value(False), output_field=BooleanField()
    )
    conservative = ExpressionWrapper(
        F("glicko_rating") - Value(CONSERVATIVE_Z) * F("glicko_rd"), output_field=FloatField()
    )
    return (
        qs.annotate(provisional=provisional, conservative=conservative)
        .annotate(
            rank=Window(
                RowNumber(),
                partition_by=[F("game")],
                order_by=[F("provisional").asc(), F("conservative").desc(), F("id").asc()],
            )
        )
        .order_by("game", "provisional", "-conservative", "id")
    )


def ratings_query(params: Mapping[str, str]) -> str:
    """The ratings API's query string in a canonical order: the key of its cached answer."""
    return urlencode(sorted(params.items()))


def ratings_key(query: str) -> str:
    """The cache key of the ratings API's answer to ``query`` (one entry, stamped: ``webapp.cache.read_through``)."""
    return f"ratings-api:v2:{query}"


def leaderboard_for(params: Mapping[str, str]) -> QuerySet[Rating]:
    """The ratings API's leaderboard for its query parameters (``game``, ``active``, ``versions``)."""
    active = {"true": True, "false": False, "all": None}.get(params.get("active", "true"), True)
    return leaderboard(params.get("game"), active=active, latest_only=params.get("versions", "latest") != "all")


def ratings_body(query: str) -> dict[str, Any]:
    """The ratings API's answer to ``query`` without its links, which name the host asked (:func:`with_links`).

    Pages as the API's default pagination does (``page``, ``page_size``).

    Raises:
        NotFound: the page does not exist (a 404, as DRF's page-number pagination answers).
    """
    request = HttpRequest()
    request.GET = QueryDict(query)
    drf_request = Request(request)
    paginator = Pagination()
    rows = paginator.paginate_queryset(leaderboard_for(drf_request.query_params), drf_request)
    page = paginator.page
    assert page is not None  # set by paginate_queryset just above
    return {
        "count": page.paginator.count,
        "page": page.number,
        "has_next": page.has_next(),
        "has_previous": page.has_previous(),
        "results": RatingSerializer(rows, many=True).data,
    }


def with_links(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """The answer of :func:`ratings_body` with its ``next`` and ``previous`` links for ``request``'s URL.

    The links DRF's page-number pagination writes (page 1 has no ``page`` parameter).
    """
    url, number = request.build_absolute_uri(), body["page"]
    previous = None
    if body["has_previous"]:
        previous = remove_query_param(url, "page") if number == 2 else replace_query_param(url, "page", number - 1)
    return {
        "count": body["count"],
        "next": replace_query_param(url, "page", number + 1) if body["has_next"] else None,
        "previous": previous,
        "results": body["results"],
    }


@extend_schema(
    parameters=[
        OpenApiParameter("game", str, description="The game's leaderboard (ranks are per game)."),
        OpenApiParameter("active", str, enum=["true", "false", "all"], description="Bot activity; default true."),
        OpenApiParameter(
            "versions", str, enum=["latest", "all"], description="Latest version per bot (default) or all."
        ),
    ]
)
class RatingViewSet(viewsets.ReadOnlyModelViewSet[Rating]):
    """Leaderboards: ratings per bot version and game, best first."""

    serializer_class = RatingSerializer
    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> QuerySet[Rating]:
        return leaderboard_for(self.request.query_params)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """The leaderboard, cached until the next rated result or bot change (see ``stamps.leaderboard_stamp``).

        The answer is the same for every caller, so it is cached per query string, without its
        absolute ``next`` and ``previous`` links (added per request), so that a worker can refresh
        it after a result (``webapp.pages.refresh``) without knowing the host.
        """
        query = ratings_query(request.query_params)
        game = request.query_params.get("game")
        body, _ = read_through(
            ratings_key(query),
            leaderboard_stamp(game),
            lambda: ratings_body(query),
            scope=game_scope(game) if game else None,
        )
        return Response(with_links(request, body))


@extend_schema(
    parameters=[
        OpenApiParameter("bot", int, description="All versions of this bot."),
        OpenApiParameter("bot_version", int),
        OpenApiParameter("game", str),
        OpenApiParameter("match", int),
    ]
)
class RatingHistoryViewSet(viewsets.ReadOnlyModelViewSet[RatingHistory]):
    """The append-only rating history, in the order it was recorded."""

    serializer_class = RatingHistorySerializer
    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> QuerySet[RatingHistory]:
        qs = RatingHistory.objects.select_related("bot_version").order_by("id")
        p = self.request.query_params
        # Ids are checked (1..2**63-1) before they reach the database: a bad one is a 400 ``bad_parameter``.
        if (bot := query_id(p.get("bot"), "bot")) is not None:
            qs = qs.filter(bot_version__bot_id=bot)
        if (version := query_id(p.get("bot_version"), "bot_version")) is not None:
            qs = qs.filter(bot_version_id=version)
        if (match := query_id(p.get("match"), "match")) is not None:
            qs = qs.filter(match_id=match)
        if p.get("game"):
            qs = qs.filter(game=p["game"])
        return qs
