"""Distinct id types for the ladder, so a bot version id never passes for a match id.

The match, bot and game ids have the same meaning as the referee's (``referee.core.ids``), but are
declared here so that ``ladder`` depends on no other package of the project (an import contract in
``pyproject.toml`` holds it to that); at run time every id is a ``str``, so values pass between the two
unchanged. This module holds types only.
"""

from typing import NewType

__all__ = ["BotId", "BotVersionId", "EntrantId", "EventId", "GameName", "MatchId", "PairingKey"]

MatchId = NewType("MatchId", str)
"""A match's id, unique across the whole service."""

BotId = NewType("BotId", str)
"""A bot's id, unique across the whole service."""

GameName = NewType("GameName", str)
"""A game's registry name."""

BotVersionId = NewType("BotVersionId", str)
"""One submitted version of a bot; every version is rated on its own."""

EventId = NewType("EventId", str)
"""A tournament's id."""

EntrantId = NewType("EntrantId", str)
"""A tournament entrant, usually the string of a :data:`BotVersionId` frozen at registration."""

PairingKey = NewType("PairingKey", str)
"""A pairing's stable id inside one event, such as ``"W2-1"`` or ``"R3-4"``; readable on purpose."""
