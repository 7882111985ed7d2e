"""Distinct id types, so a seat index never passes for a bot id or a match id, and the one rule of a valid id.

A match id, a request id or a bot id ends up in file names (``<dir>/<match_id>.json.gz``), URL
paths (``/api/v1/matches/<id>/replay/``), Redis keys (``brawl:journal:<match_id>:start``,
``brawl:presence:<bot_id>:<referee>``) and log lines. :func:`id_problem` is the one definition of
what such an id may be, so that an id accepted at any door (the referee's ``StartMatch``, the
``brawl referee`` commands, :meth:`referee.server.hub.Referee.start_match`) is usable by every
place that stores it; nothing downstream checks again with a rule of its own.

The rule: 1 to :data:`ID_MAX` ASCII characters; the first a letter, digit or ``_`` (so no hidden
file, no option-looking ``-x`` and no ``.`` or ``..`` path step); the others letters, digits and
``_ . -``, plus ``:`` in match and request ids; never ``..``. A bot id has no ``:`` because it is
one ``:``-separated segment of a Redis key that is looked up by pattern.

This module is not a parser of anything else: display names (any printable text) and the web
app's integer primary keys have their own checks.
"""

import enum
import re
from typing import NewType

Seat = NewType("Seat", int)
"""A seat at the table: 0 for the first player, 1 for the second, and so on."""

MatchId = NewType("MatchId", str)
"""A match's id, unique across the whole service."""

BotId = NewType("BotId", str)
"""A bot's id, unique across the whole service."""

GameName = NewType("GameName", str)
"""A game's registry name, such as ``"scrumbrawl"``."""

ID_MAX = 64
"""Longest id, in characters (the web app's ``request_id`` column is 64 wide)."""


class IdKind(enum.Enum):
    """The kinds of id :func:`id_problem` knows, each with the characters allowed after the first."""

    MATCH = "match id"
    REQUEST = "request id"
    BOT = "bot id"

    @property
    def allowed(self) -> str:
        """The allowed characters after the first, as a regular-expression class body."""
        return "A-Za-z0-9_.-" if self is IdKind.BOT else "A-Za-z0-9_.:-"

    @property
    def rule(self) -> str:
        """The rule in words, for error messages and docs."""
        chars = "_ . -" if self is IdKind.BOT else "_ . : -"
        return f"1 to {ID_MAX} ASCII letters, digits and {chars}, starting with a letter, digit or _, without '..'"


_PATTERNS = {kind: re.compile(rf"[A-Za-z0-9_][{kind.allowed}]{{0,{ID_MAX - 1}}}") for kind in IdKind}


class InvalidIdError(ValueError):
    """An id breaks :func:`id_problem`'s rule; the message names the field, shows the value and says why."""


def id_problem(kind: IdKind, value: str) -> str | None:
    """Returns why ``value`` is not a valid id of ``kind`` (a phrase such as ``"contains '..'"``), or ``None``."""
    if not value:
        return "is empty"
    if len(value) > ID_MAX:
        return f"has {len(value)} characters; a {kind.value} has at most {ID_MAX}"
    if not _PATTERNS[kind].fullmatch(value):
        return f"is not {kind.rule}"
    if ".." in value:
        return f"contains '..' ({kind.rule})"
    return None


def check_id(kind: IdKind, value: str, field: str = "") -> str:
    """Returns ``value`` when it is a valid id of ``kind``.

    Args:
        kind: The kind of id.
        value: The id.
        field: How the error names it (``"match_id"``, ``"--bot-id"``); the kind's name by default.

    Raises:
        InvalidIdError: it is not valid; the message is ``<field> <value> <reason>``.
    """
    problem = id_problem(kind, value)
    if problem is not None:
        shown = repr(value[:80]) + ("..." if len(value) > 80 else "")
        raise InvalidIdError(f"{field or kind.value} {shown} {problem}")
    return value


def match_id(value: str) -> MatchId:
    """Returns ``value`` as a :data:`MatchId` once checked.

    Raises:
        InvalidIdError: it is not a valid match id.
    """
    return MatchId(check_id(IdKind.MATCH, value))


def bot_id(value: str) -> BotId:
    """Returns ``value`` as a :data:`BotId` once checked.

    Raises:
        InvalidIdError: it is not a valid bot id.
    """
    return BotId(check_id(IdKind.BOT, value))
