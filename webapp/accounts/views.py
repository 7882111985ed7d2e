"""API view of the current user."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.accounts.serializers import MeSerializer
from webapp.matches.services import challenges_left


class MeView(APIView):
    """The caller's account and remaining challenge quota."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        left, resets_at = challenges_left(request.user)
        return Response(
            MeSerializer(
                {
                    "id": request.user.pk,
                    "username": request.user.username,
                    "is_organizer": request.user.is_staff,
                    "challenges_left": left,
                    "challenges_reset_at": resets_at,
                }
            ).data
        )
