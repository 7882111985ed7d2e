"""API tokens for scripts: issued with the account's credentials, shown once, rotating revokes."""

from __future__ import annotations

import base64
from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient


def _basic(username: str, password: str) -> APIClient:
    client = APIClient()
    raw = base64.b64encode(f"{username}:{password}".encode()).decode()
    client.credentials(HTTP_AUTHORIZATION=f"Basic {raw}")
    return client


def test_token_is_issued_with_username_and_password_and_works(author: User) -> None:
    resp = _basic("alice", "correct horse battery").post("/api/v1/me/api-token/")
    assert resp.status_code == 201
    key = resp.json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/me/").json()["username"] == "alice"


def test_rotating_revokes_the_old_token(author: User) -> None:
    first = _basic("alice", "correct horse battery").post("/api/v1/me/api-token/").json()["token"]
    second = _basic("alice", "correct horse battery").post("/api/v1/me/api-token/").json()["token"]
    assert first != second
    old = APIClient()
    old.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert old.get("/api/v1/me/").status_code == 401


def test_wrong_password_and_anonymous_get_no_token(author: User, anon: APIClient, db: Any) -> None:
    assert _basic("alice", "wrong").post("/api/v1/me/api-token/").status_code == 401
    assert anon.post("/api/v1/me/api-token/").status_code == 401
