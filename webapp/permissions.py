"""Permissions shared by the apps: who may read and who may change what.

Anyone may read public data; an author changes only their own bots; organizers hold the organizer role
(``webapp.roles``: the ``organizers`` group, or a superuser).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django.http import HttpRequest
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.views import APIView

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def signed_in_user(request: HttpRequest | Request) -> User:
    """The user of a request that a view lets in signed in only (``IsAuthenticated``, ``login_required``).

    ``request.user`` is typed as a user or the anonymous user; behind those guards it is always a user.
    """
    return cast("User", request.user)


class IsOrganizer(permissions.BasePermission):
    """Users with the organizer role: they run tournaments."""

    message = "Only organizers may do this."

    def has_permission(self, request: Request, view: APIView) -> bool:
        from webapp.roles import is_organizer

        return is_organizer(request.user)


class IsOrganizerOrReadOnly(IsOrganizer):
    """Reads for everyone, writes for organizers."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.method in permissions.SAFE_METHODS or super().has_permission(request, view)


class IsOwnerOrReadOnly(permissions.BasePermission):
    """Reads for everyone; writes only for the object's ``owner``."""

    message = "Only the bot's author may change it."

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user.is_authenticated and obj.owner_id == request.user.pk)
