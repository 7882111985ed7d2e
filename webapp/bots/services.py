"""The only write path for bots, versions and tokens.

Functions are named ``do_<verb>_<noun>``; views and commands call them and never save bot rows
themselves. Tokens are generated with :mod:`secrets`, stored as SHA-256 hashes, and returned in
plain text once, from :func:`do_issue_token`.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from referee.core.registry import game_names
from webapp.api import DomainError, InvalidInput
from webapp.bots.models import DESCRIPTION_MAX_CHARS, NOTES_MAX_CHARS, Bot, BotToken, BotVersion
from webapp.bots.signals import version_created
from webapp.cache import bump_bots_generation

TOKEN_PREFIX = "brawl_"
"""Every bot token starts with this, so a leaked one is easy to recognise and scan for."""
DISPLAY_PREFIX_LENGTH = 12
"""Characters of a token kept in clear for display."""


class UnknownGame(DomainError):
    """The game is not in the registry."""

    status_code = 400
    default_code = "unknown_game"


class NameTaken(DomainError):
    """Another bot of the game already has that name."""

    default_code = "name_taken"


@dataclass(frozen=True)
class IssuedToken:
    """A newly issued token: the only moment its plain text exists."""

    token: str
    """The plain token; show it once and forget it."""
    record: BotToken
    """The stored row (hash and prefix)."""


def hash_token(token: str) -> str:
    """Returns the hex SHA-256 of ``token``, as stored in ``BotToken.token_hash``."""
    return hashlib.sha256(token.encode()).hexdigest()


def generate_token() -> str:
    """Returns a new random bot token (256 bits of entropy)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def check_game(game: str) -> None:
    """Checks that ``game`` is a registered game.

    Raises:
        UnknownGame: it is not; the message lists the known games.
    """
    if game not in game_names():
        raise UnknownGame(f"unknown game {game!r}; known games: {', '.join(game_names())}")


NAME_MAX_CHARS = 64
"""Longest bot name (the column's length)."""


NAME_MIN_CHARS = 1
"""Shortest bot name (one character is a name in several scripts: "龍")."""
NAME_PUNCTUATION = "_.-"
"""The only characters besides letters and digits a bot name may hold (never first)."""
NAME_RULE = (
    f"a bot name is {NAME_MIN_CHARS} to {NAME_MAX_CHARS} letters (of any script, with their accents), digits"
    f" and {' '.join(NAME_PUNCTUATION)}, starting with a letter or digit"
)
"""The rule in words, as every refusal states it."""


def bot_name_problem(name: str) -> str | None:
    """Returns why ``name`` cannot be a bot name, in words, or ``None`` when it can.

    Letters and digits of every script are allowed (categories L*, N*, and the combining marks M*
    that carry accents), so "Ülkü", "棋士" and "Зверь" are names; spaces, symbols, emoji and control
    or invisible characters are not, because they make names that look alike or cannot be typed.
    Callers normalise the name to NFC first, so an accent typed either way is the same name.
    """
    if not NAME_MIN_CHARS <= len(name) <= NAME_MAX_CHARS:
        return f"{NAME_RULE}; this one is {len(name)} characters long"
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        ok = cat[0] in "LN" or (cat[0] == "M" and i > 0) or (ch in NAME_PUNCTUATION and i > 0)
        if not ok:
            label = unicodedata.name(ch, "unnamed character")
            where = "first " if i == 0 else ""
            return f"{NAME_RULE}; the {where}character {ch!r} (U+{ord(ch):04X} {label}) is not allowed"
    return None


def check_bot_name(name: str) -> None:
    """Refuses a name :func:`bot_name_problem` finds a problem with.

    Raises:
        InvalidInput: the name breaks the rule (a 400 with code ``invalid_input`` and the reason).
    """
    problem = bot_name_problem(name)
    if problem is not None:
        raise InvalidInput(problem)


def check_text(field: str, value: str, limit: int) -> None:
    """Refuses text longer than ``limit`` characters before anything is written.

    Raises:
        InvalidInput: ``value`` is too long (a 400 with code ``invalid_input``).
    """
    if len(value) > limit:
        raise InvalidInput(f"{field} is {len(value)} characters; at most {limit} are allowed")


@transaction.atomic
def do_create_bot(
    owner: User, game: str, name: str, description: str = "", *, is_house: bool = False
) -> tuple[Bot, IssuedToken]:
    """Registers a bot with its first version and its first token.

    Returns:
        The bot and its token (shown once).

    Raises:
        UnknownGame: ``game`` is not registered.
        NameTaken: the game already has a bot called ``name``.
        InvalidInput: ``name`` breaks :data:`NAME_RULE` (it is normalised to NFC first).
    """
    check_game(game)
    name = unicodedata.normalize("NFC", name)
    check_bot_name(name)
    check_text("description", description, DESCRIPTION_MAX_CHARS)
    if Bot.objects.filter(game=game, name__iexact=name).exists():
        raise NameTaken(f"a {game} bot called {name!r} already exists")
    bot = Bot.objects.create(owner=owner, game=game, name=name, description=description, is_house=is_house)
    do_create_version(bot, notes="first version")
    return bot, do_issue_token(bot)


@transaction.atomic
def do_update_bot(
    bot: Bot, *, description: str | None = None, active: bool | None = None, plays_people: bool | None = None
) -> Bot:
    """Changes a bot's description, active flag or whether it plays people (``Bot.plays_people``)."""
    fields = []
    if plays_people is not None:
        if bot.is_person:
            raise InvalidInput("a person's seat is not a bot that can be offered to people")
        bot.plays_people = plays_people
        fields.append("plays_people")
    if description is not None:
        check_text("description", description, DESCRIPTION_MAX_CHARS)
        bot.description = description
        fields.append("description")
    if active is not None:
        bot.active = active
        fields.append("active")
    if fields:
        bot.save(update_fields=fields)
        bump_bots_generation()  # leaderboards list active bots only
    return bot


def person_bot_name(user: User) -> str:
    """The bot name of ``user``'s seat identity: ``@`` and the user name, which no bot name may start with."""
    name = f"@{user.username}"
    return name if len(name) <= NAME_MAX_CHARS else f"@{user.username[: NAME_MAX_CHARS - 12]}#{user.pk}"


@transaction.atomic
def do_person_bot(user: User, game: str) -> Bot:
    """Returns ``user``'s seat identity in ``game`` (``Bot.is_person``), creating it with its version once.

    It is never active: no matchmaking, no default leaderboard; people's tables seat it.

    Raises:
        UnknownGame: ``game`` is not registered.
    """
    check_game(game)
    bot = Bot.objects.select_for_update().filter(owner=user, game=game, is_person=True).first()
    if bot is None:
        bot = Bot.objects.create(owner=user, game=game, name=person_bot_name(user), is_person=True, active=False)
        do_create_version(bot, notes="a person's seat")
    return bot


@transaction.atomic
def do_create_version(bot: Bot, notes: str = "") -> BotVersion:
    """Adds the next version of ``bot`` and makes it the latest.

    Raises:
        InvalidInput: the notes are longer than :data:`NOTES_MAX_CHARS`.
    """
    check_text("notes", notes, NOTES_MAX_CHARS)
    # Lock the bot row so that two concurrent uploads get consecutive numbers.
    Bot.objects.select_for_update().filter(pk=bot.pk).first()
    number = (BotVersion.objects.filter(bot=bot).aggregate(n=Max("number"))["n"] or 0) + 1
    version = BotVersion.objects.create(bot=bot, number=number, notes=notes)
    bot.latest_version = version
    bot.save(update_fields=["latest_version"])
    version_created.send(sender=BotVersion, version=version, game=bot.game)  # rankings adds its rating row
    bump_bots_generation()  # leaderboards and bot pages show the latest version
    return version


@transaction.atomic
def do_issue_token(bot: Bot, *, revoke_others: bool = False) -> IssuedToken:
    """Issues a new token for ``bot``; with ``revoke_others`` this is a rotation.

    Returns:
        The plain token (shown once) and its stored row.
    """
    if revoke_others:
        BotToken.objects.filter(bot=bot, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token = generate_token()
    record = BotToken.objects.create(bot=bot, token_hash=hash_token(token), prefix=token[:DISPLAY_PREFIX_LENGTH])
    return IssuedToken(token=token, record=record)


def do_revoke_token(token: BotToken) -> BotToken:
    """Revokes ``token``; revoking twice keeps the first time."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def do_revoke_all_tokens(bot: Bot) -> int:
    """Revokes every valid token of ``bot`` and returns how many were revoked."""
    return BotToken.objects.filter(bot=bot, revoked_at__isnull=True).update(revoked_at=timezone.now())


def do_touch_token(token_id: int) -> None:
    """Records that the referee accepted token ``token_id`` just now."""
    BotToken.objects.filter(pk=token_id).update(last_used_at=timezone.now())
