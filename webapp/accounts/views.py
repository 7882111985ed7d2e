"""API view of the current user."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.authentication import BasicAuthentication, SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from webapp.accounts import lockout
from webapp.accounts.serializers import ApiTokenSerializer, MeSerializer
from webapp.accounts.services import do_rotate_api_token
from webapp.matches.services import challenges_left
from webapp.permissions import signed_in_user
from webapp.roles import is_organizer


class MeView(APIView):
    """The caller's account and remaining challenge quota."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        left, resets_at = challenges_left(signed_in_user(request))
        return Response(
            MeSerializer(
                {
                    "id": request.user.pk,
                    "username": request.user.username,
                    "is_organizer": is_organizer(request.user),
                    "challenges_left": left,
                    "challenges_reset_at": resets_at,
                }
            ).data
        )


class LockoutBasicAuthentication(BasicAuthentication):
    """HTTP Basic that answers 429 with ``Retry-After`` while the account or address is locked out."""

    def authenticate_credentials(self, userid: str, password: str, request: Request | None = None) -> Any:
        wait = lockout.locked_for(userid, lockout.client_of(request))
        if wait:
            raise Throttled(wait=wait, detail="too many failed sign-ins; try again later")
        return super().authenticate_credentials(userid, password, request)


class LockoutBasicScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """Describes :class:`LockoutBasicAuthentication` in the OpenAPI schema as HTTP Basic."""

    target_class = "webapp.accounts.views.LockoutBasicAuthentication"
    name = "basicAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "basic"}


class ApiTokenThrottle(SimpleRateThrottle):
    """Issuing API tokens: the ``api_token`` rate per user (or address, before authentication succeeds)."""

    scope = "api_token"

    def get_cache_key(self, request: Request, view: object) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ApiTokenView(APIView):
    """Issues the caller a new API token (the old one stops working); the key is shown once.

    Authenticate with the session (signed in on the site) or the current token, or with HTTP Basic
    credentials, so a script can fetch its first token with the account's username and password.
    """

    permission_classes = [permissions.IsAuthenticated]
    authentication_classes = [LockoutBasicAuthentication, SessionAuthentication, TokenAuthentication]
    throttle_classes = [AnonRateThrottle, UserRateThrottle, ApiTokenThrottle]

    @extend_schema(request=None, responses={201: ApiTokenSerializer})
    def post(self, request: Request) -> Response:
        key = do_rotate_api_token(signed_in_user(request))
        return Response(ApiTokenSerializer({"token": key}).data, status=status.HTTP_201_CREATED)
