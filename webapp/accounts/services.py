"""The only write path for accounts: sign-up and API tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from rest_framework.authtoken.models import Token


@transaction.atomic
def do_create_user(username: str, password: str, email: str = "") -> User:
    """Creates an author account."""
    return User.objects.create_user(username=username, password=password, email=email)


def do_rotate_api_token(user: User) -> str:
    """Replaces the user's API token and returns the new key (for ``Authorization: Token <key>``)."""
    Token.objects.filter(user=user).delete()
    return str(Token.objects.create(user=user).key)
