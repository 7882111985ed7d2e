"""The challenge endpoint: an author asks for an unrated match of their bot against another.

``POST /api/v1/bots/<id>/challenge/`` stays under the bot's URL, but a challenge creates a match, so
the view lives with the matches app (above the bots app) and the bots app's views import nothing
of matches. The limit per author and UTC day is the matches service's (``do_request_challenge``).
"""

# DRF declares options as mutable class attributes (permission_classes).
# ruff: noqa: RUF012

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.bots.models import Bot
from webapp.bots.serializers import ChallengeSerializer
from webapp.matches import services as match_services
from webapp.matches.serializers import MatchSerializer
from webapp.matches.views import match_queryset
from webapp.permissions import IsOwnerOrReadOnly


class ChallengeView(APIView):
    """Requests an unrated match against any active bot; limited per author per UTC day."""

    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly]

    @extend_schema(request=ChallengeSerializer, responses={201: MatchSerializer}, operation_id="bots_challenge_create")
    def post(self, request: Request, pk: int) -> Response:
        """Requests an unrated match against any active bot; limited per author per UTC day.

        A refused request answers 429 with ``retry_after`` seconds and ``resets_at``.
        """
        bot = get_object_or_404(Bot.objects.select_related("owner", "latest_version"), pk=pk)
        self.check_object_permissions(request, bot)
        if bot.owner_id != request.user.pk:
            self.permission_denied(request, message="Only the bot's author may do this.")
        body = ChallengeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        opponent = get_object_or_404(Bot.objects.select_related("latest_version"), pk=body.validated_data["opponent"])
        match = match_services.do_request_challenge(request.user, bot, opponent)
        left, resets_at = match_services.challenges_left(request.user)
        response = Response(
            MatchSerializer(match_queryset().get(pk=match.pk)).data,
            status=status.HTTP_201_CREATED,
        )
        response["X-Challenges-Remaining"] = str(left)
        response["X-Challenges-Reset"] = resets_at.isoformat()
        return response
