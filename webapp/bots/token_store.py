"""``DjangoTokenStore``: the referee's ``TokenStore`` backed by the ``BotToken`` table.

The referee calls :meth:`DjangoTokenStore.authenticate` with the token a bot presented; the store
hashes it with SHA-256, finds the valid token row with that hash, compares the hashes in constant
time, and answers with the bot's identity or ``None``. This module is not the referee's policy on
refused tokens; it only answers who a token belongs to.
"""

from __future__ import annotations

import hmac

from asgiref.sync import sync_to_async

from webapp.bots import services
from webapp.bots.models import BotToken

try:  # The referee server defines the identity type; until it lands, an equal local shape is used.
    from referee.server.auth import BotIdentity
except ImportError:  # pragma: no cover - depends on the referee server being present
    from dataclasses import dataclass

    @dataclass(frozen=True, slots=True)
    class BotIdentity:  # type: ignore[no-redef]
        """Who a token belongs to."""

        bot_id: str
        """The bot's id."""
        game: str
        """The game the bot plays."""
        name: str
        """The bot's display name."""
        version: int
        """The bot's latest version number."""


def lookup(token: str) -> BotIdentity | None:
    """Returns the identity of the bot whose valid token is ``token``, or ``None``."""
    if not token:
        return None
    digest = services.hash_token(token)
    row = (
        BotToken.objects.select_related("bot__latest_version")
        .filter(token_hash=digest, revoked_at__isnull=True, bot__active=True)
        .first()
    )
    # The lookup is by hash, so timing reveals nothing about the token; the constant-time
    # comparison guards against a database collation ever matching a hash loosely.
    if row is None or not hmac.compare_digest(row.token_hash, digest):
        return None
    services.do_touch_token(row.pk)
    bot = row.bot
    version = bot.latest_version.number if bot.latest_version else 0
    return make_identity(bot_id=str(bot.pk), game=bot.game, name=bot.name, version=version)


def make_identity(*, bot_id: str, game: str, name: str, version: int) -> BotIdentity:
    """Builds the referee's identity value from the fields it declares."""
    fields = getattr(BotIdentity, "__dataclass_fields__", {})
    values = {"bot_id": bot_id, "game": game, "name": name, "version": version}
    return BotIdentity(**{k: v for k, v in values.items() if not fields or k in fields})


class DjangoTokenStore:
    """The referee's ``TokenStore``, answering from the database."""

    async def authenticate(self, token: str) -> BotIdentity | None:
        """Returns the identity of the bot that owns ``token``, or ``None`` if it is unknown or revoked."""
        return await sync_to_async(lookup, thread_sensitive=True)(token)
