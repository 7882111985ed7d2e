"""``DjangoTokenStore``: the referee's ``TokenStore`` backed by the ``BotToken`` table.

The referee calls :meth:`DjangoTokenStore.authenticate` with the token a bot presented; the store
hashes it with SHA-256, finds the valid token row with that hash, compares the hashes in constant
time, and answers with the bot's identity or ``None``. This module is not the referee's policy on
refused tokens; it only answers who a token belongs to.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.db import connection
from django.db.models import Q

from referee.core.ids import BotId
from referee.server.auth import BotIdentity
from webapp.bots import services
from webapp.bots.models import BotToken

P = ParamSpec("P")
R = TypeVar("R")


def closing(fn: Callable[P, R]) -> Callable[P, R]:
    """Wraps ``fn`` to close the worker thread's database connection afterwards.

    The referee calls from an event loop; each call runs in a pool thread, whose connection would
    otherwise stay open for the life of the thread.
    """

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        finally:
            connection.close()

    return run


def lookup(token: str) -> BotIdentity | None:
    """Returns the identity of the bot whose valid token is ``token``, or ``None``."""
    if not token:
        return None
    digest = services.hash_token(token)
    row = (
        BotToken.objects.select_related("bot")
        .filter(token_hash=digest, revoked_at__isnull=True)
        # A person's seat identity is never active (no matchmaking) but plays its tables.
        .filter(Q(bot__active=True) | Q(bot__is_person=True))
        .first()
    )
    # The lookup is by hash, so timing reveals nothing about the token; the constant-time
    # comparison guards against a database collation ever matching a hash loosely.
    if row is None or not hmac.compare_digest(row.token_hash, digest):
        return None
    services.do_touch_token(row.pk)
    bot = row.bot
    return BotIdentity(
        bot_id=BotId(str(bot.pk)),
        name=bot.name,
        version_id=str(bot.latest_version_id or ""),
        owner=str(bot.owner_id),
        games=frozenset({bot.game}),
    )


class DjangoTokenStore:
    """The referee's ``TokenStore``, answering from the database."""

    async def authenticate(self, token: str) -> BotIdentity | None:
        """Returns the identity of the bot that owns ``token``, or ``None`` if it is unknown or revoked."""
        return await sync_to_async(closing(lookup), thread_sensitive=False)(token)
