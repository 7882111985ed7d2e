"""Failed sign-ins lock an account, and an address, out for a while.

Every password check goes through Django's ``authenticate`` (the login page, and HTTP Basic on
``POST /api/v1/me/api-token/``), which sends ``user_login_failed`` on a failure. Failures are
counted in the shared cache per account (the user name, case-folded) and per client address
(``REMOTE_ADDR`` as ``webapp.middleware.ClientAddressMiddleware`` resolved it) in a fixed window
of ``BRAWL_LOGIN_LOCKOUT_SECONDS``. Reaching ``BRAWL_LOGIN_FAILURES_PER_ACCOUNT`` locks that
account, and ``BRAWL_LOGIN_FAILURES_PER_ADDRESS`` that address, for the window: while locked even
the right password is refused (:class:`LockoutBackend`, the one entry of ``AUTHENTICATION_BACKENDS``), so
guessing gains nothing. A success clears the account's count. Per-account lockout lets anyone lock
a known account for the window; that is the price of stopping a distributed guesser, and the
window is short.
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest


def _account_key(username: str) -> str:
    # Hashed: user names are attacker-chosen text and cache keys have a length and character limit.
    return hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]


def _keys(username: str | None, address: str | None) -> list[tuple[str, int]]:
    keys = []
    if username:
        keys.append((f"login:acct:{_account_key(username)}", settings.BRAWL_LOGIN_FAILURES_PER_ACCOUNT))
    if address:
        keys.append((f"login:addr:{address}", settings.BRAWL_LOGIN_FAILURES_PER_ADDRESS))
    return keys


def client_of(request: HttpRequest | None) -> str | None:
    """The client's address of ``request`` (already resolved behind trusted proxies), if any."""
    if request is None:
        return None
    return request.META.get("REMOTE_ADDR") or None


def locked_for(username: str | None, address: str | None) -> int:
    """Returns the seconds left of a lockout of this account or address (0 when neither is locked)."""
    now = time.time()
    left = 0.0
    for key, _limit in _keys(username, address):
        until = cache.get(f"{key}:locked")
        if until is not None:
            left = max(left, float(until) - now)
    return math.ceil(left) if left > 0 else 0


def record_failure(username: str | None, address: str | None) -> None:
    """Counts one failed sign-in against the account and the address; locks whichever reached its limit."""
    window = settings.BRAWL_LOGIN_LOCKOUT_SECONDS
    for key, limit in _keys(username, address):
        cache.add(key, 0, timeout=window)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr: this failure starts a new window
            cache.set(key, 1, timeout=window)
            count = 1
        if count >= limit:
            # add, not set: failures during a lockout do not extend it.
            cache.add(f"{key}:locked", time.time() + window, timeout=window)


def clear_account(username: str) -> None:
    """Forgets the failures of an account (after a successful sign-in)."""
    for key, _limit in _keys(username, None):
        cache.delete(key)


class LockoutBackend(ModelBackend):
    """Django's model backend, refusing every attempt while the account or address is locked out.

    Raising ``PermissionDenied`` stops ``authenticate`` before the password is checked, so a locked
    account answers the same whatever password is tried (and the check costs no password hash).
    """

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if locked_for(username, client_of(request)):
            raise PermissionDenied("too many failed sign-ins")
        return super().authenticate(request, username=username, password=password, **kwargs)


@receiver(user_login_failed)
def _on_failure(sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any) -> None:
    record_failure(credentials.get("username"), client_of(request))


@receiver(user_logged_in)
def _on_success(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    clear_account(user.get_username())
