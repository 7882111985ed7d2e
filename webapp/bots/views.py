"""API views for games, bots, versions and tokens: parse, check permission, call a service.

A bot's challenge (``/bots/<id>/challenge/``) creates a match: its view is the matches app's
(``webapp.matches.challenges``).
"""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from referee.core.registry import game_names
from webapp.bots import serializers as s
from webapp.bots import services
from webapp.bots.models import Bot, BotToken
from webapp.games import all_games, game_info
from webapp.permissions import IsOwnerOrReadOnly, signed_in_user

TOKEN_WARNING = "Store this token now: it is shown once and cannot be retrieved again."


def issued(token: services.IssuedToken) -> dict[str, object]:
    """Returns the one-time body that carries a plain token."""
    return {"token": token.token, "id": token.record.pk, "prefix": token.record.prefix, "warning": TOKEN_WARNING}


class GameViewSet(viewsets.ViewSet):
    """The games of the ladder (from the rules registry)."""

    permission_classes = [permissions.AllowAny]
    lookup_field = "name"
    lookup_value_regex = "[a-z0-9_-]+"

    @extend_schema(responses=s.GameSerializer(many=True))
    def list(self, request: Request) -> Response:
        return Response(s.GameSerializer(all_games(), many=True).data)  # type: ignore[arg-type]  # stubs: many=True's instance typed as one item

    @extend_schema(responses=s.GameSerializer)
    def retrieve(self, request: Request, name: str) -> Response:
        if name not in game_names():
            return Response({"detail": f"unknown game {name!r}", "code": "not_found"}, status=404)
        return Response(s.GameSerializer(game_info(name)).data)


@extend_schema(
    parameters=[
        OpenApiParameter("game", str, description="Only bots of this game."),
        OpenApiParameter("owner", str, description="Only bots of this author (username)."),
        OpenApiParameter("active", bool, description="Only active (true) or inactive (false) bots."),
        OpenApiParameter("house", bool, description="Only house bots (true) or author bots (false)."),
        OpenApiParameter("mine", bool, description="Only the caller's bots."),
    ]
)
class BotViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.UpdateModelMixin, viewsets.GenericViewSet[Bot]
):
    """Bots: anyone reads; an author creates bots and changes only their own."""

    serializer_class = s.BotSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly]
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Bot]:
        qs = Bot.objects.select_related("owner", "latest_version", "stats").order_by("game", "name")
        if self.action == "list":
            qs = qs.exclude(is_person=True)  # a person's seat identity at people's tables is no bot to list
        if self.action != "list":
            # The filters select a listing; on one bot they would hide it (a PATCH with ?active=false
            # that activates the bot then failed to read it back: a 500 the schema fuzzer found).
            return qs
        p = self.request.query_params
        if p.get("game"):
            qs = qs.filter(game=p["game"])
        if p.get("owner"):
            qs = qs.filter(owner__username=p["owner"])
        if p.get("active") in ("true", "false"):
            qs = qs.filter(active=p["active"] == "true")
        if p.get("house") in ("true", "false"):
            qs = qs.filter(is_house=p["house"] == "true")
        if p.get("mine") == "true":
            qs = qs.filter(owner_id=self.request.user.pk or -1)
        return qs

    @extend_schema(request=s.BotCreateSerializer, responses={201: s.BotCreatedSerializer})
    def create(self, request: Request) -> Response:
        body = s.BotCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bot, token = services.do_create_bot(signed_in_user(request), **body.validated_data)
        bot = self.get_queryset().get(pk=bot.pk)
        return Response({"bot": s.BotSerializer(bot).data, "token": issued(token)}, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.BotUpdateSerializer, responses=s.BotSerializer)
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        bot = self.get_object()
        body = s.BotUpdateSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        services.do_update_bot(bot, **body.validated_data)
        return Response(s.BotSerializer(self.get_queryset().get(pk=bot.pk)).data)

    def update(self, request: Request, *args: object, **kwargs: object) -> Response:
        return self.partial_update(request, kwargs.get("pk"))  # type: ignore[arg-type]

    def _own_bot(self) -> Bot:
        bot = self.get_object()
        if bot.owner_id != self.request.user.pk:
            self.permission_denied(self.request, message="Only the bot's author may do this.")
        return bot

    @extend_schema(request=None, responses=s.BotVersionSerializer(many=True))
    @action(detail=True, methods=["get"])
    def versions(self, request: Request, pk: str | None = None) -> Response:
        """Lists the bot's versions, newest first."""
        bot = self.get_object()
        return Response(s.BotVersionSerializer(bot.versions.order_by("-number"), many=True).data)

    @extend_schema(request=s.BotVersionSerializer, responses={201: s.BotVersionSerializer})
    @versions.mapping.post
    def new_version(self, request: Request, pk: str | None = None) -> Response:
        """Creates the next version of the bot (it starts its own rating)."""
        bot = self._own_bot()
        body = s.BotVersionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        version = services.do_create_version(bot, notes=body.validated_data.get("notes", ""))
        return Response(s.BotVersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=s.BotTokenSerializer(many=True))
    @action(detail=True, methods=["get"])
    def tokens(self, request: Request, pk: str | None = None) -> Response:
        """Lists the bot's tokens by prefix (author only)."""
        bot = self._own_bot()
        return Response(s.BotTokenSerializer(bot.tokens.all(), many=True).data)

    @extend_schema(request=None, responses={201: s.IssuedTokenSerializer})
    @action(detail=True, methods=["post"], url_path="rotate-token")
    def rotate_token(self, request: Request, pk: str | None = None) -> Response:
        """Revokes every token of the bot and issues a new one, shown once."""
        bot = self._own_bot()
        return Response(issued(services.do_issue_token(bot, revoke_others=True)), status=status.HTTP_201_CREATED)

    @extend_schema(request=s.RevokeTokenSerializer, responses=s.BotTokenSerializer(many=True))
    @action(detail=True, methods=["post"], url_path="revoke-token")
    def revoke_token(self, request: Request, pk: str | None = None) -> Response:
        """Revokes one token (``token_id``) or, without it, all of the bot's tokens."""
        bot = self._own_bot()
        body = s.RevokeTokenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if "token_id" in body.validated_data:
            services.do_revoke_token(get_object_or_404(BotToken, pk=body.validated_data["token_id"], bot=bot))
        else:
            services.do_revoke_all_tokens(bot)
        return Response(s.BotTokenSerializer(bot.tokens.all(), many=True).data)
