"""The web tier's internal API (``webapp.internal``): the bot token check the referees call.

What an outsider can read through this door (nothing without the service credential), what the
referee gets with it, and that ``last_used_at`` is recorded by the web side. The real-process
check (a ladder referee with no database credentials against a real Django server) is in
``tests/referee/test_token_service.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from common.credential import internal_token
from webapp.bots import services as bot_services
from webapp.bots.models import BotToken

pytestmark = pytest.mark.django_db

URL = "/internal/v1/bot-token"


def post(client: Client, body: Any, secret: str | None) -> Any:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"} if secret is not None else {}
    return client.post(URL, data=json.dumps(body), content_type="application/json", **headers)


def internal_routes() -> list[str]:
    """Every route mounted under ``internal/`` (so a new one cannot escape the outsider check)."""
    found: list[str] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                found.append(prefix + str(p.pattern))

    walk(get_resolver().url_patterns, "/")
    return [r for r in found if r.startswith("/internal/")]


@pytest.fixture
def issued() -> bot_services.IssuedToken:
    owner = User.objects.create_user("ines", password="correct horse battery")
    _, token = bot_services.do_create_bot(owner, "scrumbrawl", "ines-bot")
    return token


def test_an_outsider_reads_nothing_through_the_internal_doors(client: Client, issued: Any) -> None:
    routes = internal_routes()
    assert routes == [URL]
    for route in routes:
        for method in ("get", "post", "put", "delete"):
            for headers in ({}, {"HTTP_AUTHORIZATION": "Bearer wrong-" + "x" * 30}, {"HTTP_AUTHORIZATION": "Basic a"}):
                answer = client.generic(
                    method.upper(), route, json.dumps({"token": issued.token}), "application/json", **headers
                )
                assert answer.status_code == 401, (method, headers)
                assert issued.token[:12] not in answer.content.decode()
                assert b"bot_id" not in answer.content
    # The refused checks did not count as a use of the token.
    assert BotToken.objects.get(pk=issued.record.pk).last_used_at is None


def test_a_valid_token_answers_the_identity_and_records_its_use(client: Client, issued: Any) -> None:
    answer = post(client, {"token": issued.token}, internal_token())
    assert answer.status_code == 200
    assert answer["Cache-Control"].startswith("max-age=0")
    bot = issued.record.bot
    assert answer.json() == {
        "valid": True,
        "bot_id": str(bot.pk),
        "name": "ines-bot",
        "version_id": str(bot.latest_version_id),
        "owner": str(bot.owner_id),
        "games": ["scrumbrawl"],
        "revoked": False,
        "expires_at": None,
    }
    assert BotToken.objects.get(pk=issued.record.pk).last_used_at is not None


def test_unknown_revoked_and_inactive_tokens_are_not_valid(client: Client, issued: Any) -> None:
    secret = internal_token()
    assert post(client, {"token": "brawl_" + "n" * 43}, secret).json() == {"valid": False}
    assert post(client, {"token": ""}, secret).json() == {"valid": False}
    bot = issued.record.bot
    bot.active = False
    bot.save(update_fields=["active"])
    assert post(client, {"token": issued.token}, secret).json() == {"valid": False}
    bot.active = True
    bot.save(update_fields=["active"])
    bot_services.do_revoke_token(issued.record)
    assert post(client, {"token": issued.token}, secret).json() == {"valid": False}
    assert BotToken.objects.get(pk=issued.record.pk).last_used_at is None


@pytest.mark.parametrize(
    "body", [None, [], "brawl_x", {"token": 5}, {"tok": "brawl_x"}, {"token": "x" * 5000}], ids=repr
)
def test_a_malformed_check_is_a_clear_400(client: Client, body: Any) -> None:
    answer = post(client, body, internal_token())
    assert answer.status_code == 400
    assert "error" in answer.json()


def test_the_credential_is_required_even_for_the_wrong_method(client: Client) -> None:
    assert client.get(URL).status_code == 401
    answer = client.get(URL, HTTP_AUTHORIZATION=f"Bearer {internal_token()}")
    assert answer.status_code == 405
