"""The web tier's internal API: what the referees ask of the database, over HTTP.

A ladder referee holds no database credentials. When a bot connects (and every 10 s while it
stays connected) the referee posts the token the bot presented to ``/internal/v1/bot-token``;
the answer is the bot's identity (id, name, owner, version, the games it may play) or
``{"valid": false}`` for a token that is unknown, revoked, or whose bot is inactive. A valid
check records ``last_used_at`` on the token row, here, through ``webapp.bots.token_store``.

Every call carries the internal service credential, ``authorization: Bearer
<BRAWL_INTERNAL_TOKEN>`` (on embedded defaults the secret generated under the var dir, found by
``common.credential.internal_token``), compared in constant time. Without it the answer is 401
and says nothing else; the routes are not in the public API's schema. Tokens travel in the POST
body, never in a URL, so no access log records them.

This module is not the public API (``webapp.urls_api``) nor the token policy (``webapp.bots``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from common.credential import InternalTokenError, credential_matches, internal_token
from webapp.bots.token_store import lookup

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 4096
"""Longest request body accepted: a token is some 50 characters."""


def _bearer(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def _refused(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def authorised(request: HttpRequest) -> bool:
    """Whether ``request`` carries the internal service credential."""
    try:
        expected = internal_token()
    except InternalTokenError:
        log.exception("internal API: no usable BRAWL_INTERNAL_TOKEN; refusing every call")
        return False
    return credential_matches(_bearer(request), expected)


@csrf_exempt
@never_cache
def check_bot_token(request: HttpRequest) -> HttpResponse:
    """``POST /internal/v1/bot-token`` with ``{"token": "..."}``: who the token belongs to.

    Answers 200 ``{"valid": true, "bot_id", "name", "version_id", "owner", "games", "revoked":
    false, "expires_at": null}`` for a valid token (tokens do not expire; the fields are there
    so the answer can say so), 200 ``{"valid": false}`` for any other token, 401 without the
    service credential, 405 for another method, 400 for a body that is not ``{"token": str}``.
    """
    if not authorised(request):
        return _refused(401, "this endpoint needs the internal service credential")
    if request.method != "POST":
        return _refused(405, 'POST a JSON object {"token": "..."}')
    if len(request.body) > MAX_BODY_BYTES:
        return _refused(400, f"body over {MAX_BODY_BYTES} bytes")
    try:
        body: Any = json.loads(request.body or b"null")
    except ValueError:
        return _refused(400, "the body is not JSON")
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str):
        return _refused(400, 'expected a JSON object {"token": "<bot token>"}')
    identity = lookup(token)
    if identity is None:
        return JsonResponse({"valid": False})
    return JsonResponse(
        {
            "valid": True,
            "bot_id": identity.bot_id,
            "name": identity.name,
            "version_id": identity.version_id,
            "owner": identity.owner,
            "games": sorted(identity.games),
            "revoked": False,
            "expires_at": None,
        }
    )


urlpatterns = [path("bot-token", check_bot_token, name="internal-bot-token")]
"""Mounted under ``internal/v1/`` by ``webapp.urls``."""
