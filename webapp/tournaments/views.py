"""API views for tournaments: public reads of published ones, organizer operations, author entries."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from webapp.bots.models import Bot, BotVersion
from webapp.matches.models import Match
from webapp.matches.serializers import MatchSerializer
from webapp.matches.views import match_queryset
from webapp.permissions import IsOrganizer, IsOrganizerOrReadOnly, signed_in_user
from webapp.roles import is_organizer
from webapp.tournaments import serializers as s
from webapp.tournaments import services
from webapp.tournaments.bracket import bracket_data
from webapp.tournaments.models import Tournament, TournamentEntrant, TournamentStatus


def visible_tournaments(user: Any) -> QuerySet[Tournament]:
    """What ``user`` may see: organizers see every tournament; others see published ones, ones taking
    entries (registration opens before results are made public), and ones their own bots entered."""
    qs = Tournament.objects.all()
    if is_organizer(user):
        return qs
    shown = Q(published=True) | Q(status=TournamentStatus.REGISTRATION)
    if getattr(user, "is_authenticated", False):
        mine = TournamentEntrant.objects.filter(bot_version__bot__owner=user).values("tournament_id")
        shown |= Q(pk__in=mine)
    return qs.filter(shown)


class TournamentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Tournament]):
    """Tournaments: anyone reads published ones; organizers create and run them; authors enter bots."""

    permission_classes = [IsOrganizerOrReadOnly]

    def get_queryset(self) -> QuerySet[Tournament]:
        qs = visible_tournaments(self.request.user).order_by("-created")
        if self.request.query_params.get("game"):
            qs = qs.filter(game=self.request.query_params["game"])
        if self.request.query_params.get("status"):
            qs = qs.filter(status=self.request.query_params["status"])
        return qs

    def get_serializer_class(self) -> type[s.TournamentSerializer]:
        return s.TournamentDetailSerializer if self.action == "retrieve" else s.TournamentSerializer

    @extend_schema(request=s.TournamentCreateSerializer, responses={201: s.TournamentDetailSerializer})
    def create(self, request: Request) -> Response:
        body = s.TournamentCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        t = services.do_create_tournament(signed_in_user(request), **body.validated_data)
        return Response(s.TournamentDetailSerializer(t).data, status=status.HTTP_201_CREATED)

    def _done(self, t: Tournament) -> Response:
        return Response(s.TournamentDetailSerializer(Tournament.objects.get(pk=t.pk)).data)

    @extend_schema(responses=s.EntrantSerializer(many=True))
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def entrants(self, request: Request, pk: str | None = None) -> Response:
        """Lists the entries."""
        t = self.get_object()
        qs = TournamentEntrant.objects.filter(tournament=t).select_related("bot_version__bot__owner")
        return Response(s.EntrantSerializer(qs, many=True).data)

    @extend_schema(request=s.RegisterSerializer, responses={201: s.EntrantSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def register(self, request: Request, pk: str | None = None) -> Response:
        """An author enters one of their own bots; the entry waits for an organizer's approval."""
        t = self.get_object()
        body = s.RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bot = get_object_or_404(Bot, pk=body.validated_data["bot"])
        if bot.owner_id != request.user.pk:
            self.permission_denied(request, message="You can only enter your own bots.")
        version_id = body.validated_data.get("bot_version") or bot.latest_version_id
        version = get_object_or_404(BotVersion.objects.select_related("bot"), pk=version_id, bot=bot)
        entrant = services.do_register_entrant(t, version)
        entrant = TournamentEntrant.objects.select_related("bot_version__bot__owner").get(pk=entrant.pk)
        return Response(s.EntrantSerializer(entrant).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=s.TournamentDetailSerializer)
    @action(detail=True, methods=["post"], url_path="open-registration", permission_classes=[IsOrganizer])
    def open_registration(self, request: Request, pk: str | None = None) -> Response:
        """Opens entries (draft to registration)."""
        return self._done(services.do_open_registration(self.get_object()))

    @extend_schema(request=s.ApproveSerializer, responses=s.EntrantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsOrganizer])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        """Approves or rejects an entry, optionally with a manual seed."""
        t = self.get_object()
        body = s.ApproveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entrant = get_object_or_404(TournamentEntrant, pk=body.validated_data["entrant"], tournament=t)
        services.do_approve_entrant(entrant, body.validated_data["approved"], body.validated_data.get("seed"))
        entrant = TournamentEntrant.objects.select_related("bot_version__bot__owner").get(pk=entrant.pk)
        return Response(s.EntrantSerializer(entrant).data)

    @extend_schema(request=None, responses=s.TournamentDetailSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsOrganizer])
    def start(self, request: Request, pk: str | None = None) -> Response:
        """Seeds approved entrants and queues the first round."""
        return self._done(services.do_start_tournament(self.get_object()))

    @extend_schema(request=None, responses=s.TournamentDetailSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsOrganizer])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        """Stops queuing new matches."""
        return self._done(services.do_pause_tournament(self.get_object()))

    @extend_schema(request=None, responses=s.TournamentDetailSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsOrganizer])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Resumes a paused tournament."""
        return self._done(services.do_resume_tournament(self.get_object()))

    @extend_schema(request=s.FinishSerializer, responses=s.TournamentDetailSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsOrganizer])
    def finish(self, request: Request, pk: str | None = None) -> Response:
        """Ends a running or paused tournament now: queued and running games are cancelled, standings stay."""
        body = s.FinishSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._done(services.do_finish_tournament(self.get_object(), body.validated_data.get("reason", "")))

    @extend_schema(request=s.PublishSerializer, responses=s.TournamentDetailSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsOrganizer])
    def publish(self, request: Request, pk: str | None = None) -> Response:
        """Publishes (or hides) the tournament."""
        body = s.PublishSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._done(services.do_publish_tournament(self.get_object(), body.validated_data["published"]))

    @extend_schema(request=s.ReplayMatchSerializer, responses={201: MatchSerializer})
    @action(detail=True, methods=["post"], url_path="replay-match", permission_classes=[IsOrganizer])
    def replay_match(self, request: Request, pk: str | None = None) -> Response:
        """Replaces a disputed game with a fresh match on a new seed."""
        t = self.get_object()
        body = s.ReplayMatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        match = get_object_or_404(Match, pk=body.validated_data["match"])
        new = services.do_replay_match(t, match, body.validated_data["reason"])
        return Response(MatchSerializer(match_queryset().get(pk=new.pk)).data, status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def bracket(self, request: Request, pk: str | None = None) -> Response:
        """The tournament as columns of series (brackets), or a crosstable and standings."""
        return Response(bracket_data(self.get_object()))
