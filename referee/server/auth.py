"""Bot tokens: how a connecting bot proves who it is.

Tokens are issued by the web app and stored there hashed (SHA-256 of the token, never the token
itself). The referee asks a :class:`TokenStore` to turn a presented token into a
:class:`BotIdentity`; the web app's database-backed store plugs in through the same protocol.
This module holds the protocol, the hashing helpers and three stores: :class:`MemoryTokenStore`
(tests), :class:`JsonFileTokenStore` (``brawl referee --tokens FILE``, local development) and
:class:`WebTokenStore`, the ladder referee's: it asks the web tier's internal API
(``webapp.internal``) over HTTP, so a referee needs no database credentials.

It also holds the *service credential* of the referee's internal API (``RefereeService``): one
shared secret that the workers and the web tier present as ``authorization: Bearer <secret>``.
:func:`common.credential.internal_token` finds it: ``BRAWL_INTERNAL_TOKEN`` from the environment; in production
(``BRAWL_ENV=production``) a missing one fails at start; elsewhere it is generated once and kept in
a 0600 file under the var dir (``$BRAWL_VAR_DIR/internal-token``), so every process of ``brawl
run`` finds the same secret without configuration.

It is not an authorisation system: the identity only says which games a bot may play.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from referee.core import ids
from referee.core.ids import BotId

TOKEN_PREFIX = "brawl_"
"""Every issued token starts with this, so a leaked token is recognisable by secret scanners."""


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """Who a token belongs to."""

    bot_id: BotId
    """The bot's id, unique across the service."""
    name: str
    """The bot's display name."""
    version_id: str = ""
    """The bot version the token was issued for; empty when tokens are per bot."""
    owner: str = ""
    """The owning user's name or id."""
    games: frozenset[str] = field(default_factory=frozenset)
    """The games this bot may play; empty means every game."""

    def may_play(self, game: str) -> bool:
        """Whether the bot may play ``game``."""
        return not self.games or game in self.games


class TokenStore(Protocol):
    """Turns a presented token into an identity."""

    async def authenticate(self, token: str) -> BotIdentity | None:
        """Returns the identity of ``token``, or ``None`` when it is unknown or revoked."""
        ...


def generate_token() -> str:
    """Returns a fresh random token (256 bits from :mod:`secrets`)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """Returns the hex SHA-256 of ``token``: what a store keeps."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Whether ``token`` hashes to ``stored_hash``, compared in constant time."""
    return hmac.compare_digest(hash_token(token), stored_hash)


class MemoryTokenStore:
    """Tokens held in memory, keyed by hash; for tests and in-process runners."""

    def __init__(self) -> None:
        self._by_hash: dict[str, BotIdentity] = {}

    def issue(self, identity: BotIdentity) -> str:
        """Issues a new token for ``identity`` and returns it (only its hash is kept)."""
        token = generate_token()
        self._by_hash[hash_token(token)] = identity
        return token

    def add_hash(self, token_hash: str, identity: BotIdentity) -> None:
        """Registers an already-hashed token."""
        self._by_hash[token_hash] = identity

    def revoke(self, token: str) -> None:
        """Revokes ``token``; unknown tokens are ignored."""
        self._by_hash.pop(hash_token(token), None)

    async def authenticate(self, token: str) -> BotIdentity | None:
        """Returns the identity of ``token``, or ``None``."""
        # A dict lookup by hash is not constant-time in the token, but the hash of an unknown
        # token reveals nothing about stored ones, which is what matters.
        return self._by_hash.get(hash_token(token))


def _identity_from_json(raw: Mapping[str, Any]) -> BotIdentity:
    return BotIdentity(
        bot_id=ids.bot_id(str(raw["bot_id"])),  # the one id rule: a seat can name every bot that logs in
        name=str(raw.get("name", raw["bot_id"])),
        version_id=str(raw.get("version_id", "")),
        owner=str(raw.get("owner", "")),
        games=frozenset(str(g) for g in raw.get("games", [])),
    )


class JsonFileTokenStore:
    """Tokens in a JSON file, re-read when the file changes; for local development.

    The file is ``{"tokens": [{"sha256": "<hex>", "bot_id": "b1", "name": "Alice",
    "version_id": "", "owner": "", "games": ["scrumbrawl"]}, ...]}``. Write entries with
    :meth:`add`, which stores only the hash.

    Args:
        path: The file; a missing file means no tokens.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._mtime: float | None = None
        self._entries: list[tuple[str, BotIdentity]] = []

    def _reload(self) -> None:
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            self._entries, self._mtime = [], None
            return
        if mtime == self._mtime:
            return
        data = json.loads(self.path.read_text())
        self._entries = [(str(e["sha256"]), _identity_from_json(e)) for e in data.get("tokens", [])]
        self._mtime = mtime

    async def authenticate(self, token: str) -> BotIdentity | None:
        """Returns the identity of ``token``, or ``None``.

        Raises:
            ValueError: the file is not valid JSON of the documented shape.
        """
        self._reload()
        found: BotIdentity | None = None
        for stored, identity in self._entries:
            # Compare against every entry so the time taken does not depend on where it matches.
            if token_matches(token, stored):
                found = identity
        return found

    def add(self, identity: BotIdentity, token: str | None = None) -> str:
        """Adds a token for ``identity`` to the file (creating it) and returns the token."""
        token = token or generate_token()
        data: dict[str, Any] = json.loads(self.path.read_text()) if self.path.exists() else {"tokens": []}
        data["tokens"].append(
            {
                "sha256": hash_token(token),
                "bot_id": identity.bot_id,
                "name": identity.name,
                "version_id": identity.version_id,
                "owner": identity.owner,
                "games": sorted(identity.games),
            }
        )
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(json.dumps(data, indent=2))
        tmp.replace(self.path)
        self._mtime = None
        return token


class TokenServiceError(RuntimeError):
    """The web tier did not answer a token check (down, slow, or an answer of the wrong shape).

    Not a verdict: the referee refuses the connecting bot with ``UNAVAILABLE`` (retry later) and
    keeps the sessions it is re-checking.
    """


TOKEN_CHECK_PATH = "/internal/v1/bot-token"
"""The web tier's token check (``webapp.internal``), under its internal base URL."""


class WebTokenStore:
    """Tokens checked by the web tier's internal API (``POST /internal/v1/bot-token``).

    Each call presents the internal service credential; the web tier finds the token's row,
    records ``last_used_at`` and answers with the identity. Answers (valid or not) are cached by
    the token's hash for ``ttl`` seconds, so a bot that reconnects in a burst costs one call;
    :meth:`recheck` (the hub's 10 s re-check of live sessions) always asks, so a revoked token
    is noticed at the next re-check whatever the cache holds.

    Args:
        base_url: The web tier's internal URL (``BRAWL_WEB_INTERNAL_URL``), e.g. ``http://web:8000``.
        secret: The internal service credential (:func:`common.credential.internal_token`).
        timeout: Seconds one call may take before it counts as the web tier being down.
        ttl: Seconds an answer is reused.
    """

    def __init__(self, base_url: str, secret: str, *, timeout: float = 3.0, ttl: float = 2.0) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"the web tier's internal URL must be http:// or https://, not {base_url!r}")
        self.url = base_url.rstrip("/") + TOKEN_CHECK_PATH
        self._secret = secret
        self.timeout = timeout
        self.ttl = ttl
        self._cache: dict[str, tuple[float, BotIdentity | None]] = {}

    def _ask(self, token: str) -> BotIdentity | None:
        request = urllib.request.Request(
            self.url,
            data=json.dumps({"token": token}).encode(),
            headers={"Authorization": f"Bearer {self._secret}", "Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                body = json.loads(resp.read(65536))
        except urllib.error.HTTPError as exc:
            raise TokenServiceError(f"the web tier answered {exc.code} to the token check at {self.url}") from exc
        except (OSError, ValueError) as exc:
            raise TokenServiceError(f"no answer from the web tier's token check at {self.url}: {exc}") from exc
        if not isinstance(body, dict) or not isinstance(body.get("valid"), bool):
            raise TokenServiceError(f"the token check at {self.url} answered an unexpected body")
        if not body["valid"] or body.get("revoked"):
            return None
        try:
            return _identity_from_json(body)
        except (KeyError, TypeError) as exc:
            raise TokenServiceError(f"the token check at {self.url} answered an identity without {exc}") from exc

    async def _check(self, token: str, *, cached: bool) -> BotIdentity | None:
        if not token:
            return None
        key = hash_token(token)
        now = time.monotonic()
        if cached:
            hit = self._cache.get(key)
            if hit is not None and now - hit[0] < self.ttl:
                return hit[1]
        identity = await asyncio.to_thread(self._ask, token)
        if len(self._cache) > 4096:  # forget expired answers rather than grow with every bad token
            self._cache = {k: v for k, v in self._cache.items() if now - v[0] < self.ttl}
        self._cache[key] = (now, identity)
        return identity

    async def authenticate(self, token: str) -> BotIdentity | None:
        """Returns the identity of ``token``, or ``None``; a fresh cached answer is reused.

        Raises:
            TokenServiceError: the web tier did not answer, or not in the documented shape.
        """
        return await self._check(token, cached=True)

    async def recheck(self, token: str) -> BotIdentity | None:
        """Like :meth:`authenticate`, but always asks the web tier (for re-checks of live sessions).

        Raises:
            TokenServiceError: the web tier did not answer, or not in the documented shape.
        """
        return await self._check(token, cached=False)
