"""Distinct id types for the ladder, so a bot version id never passes for a match id.

The match, bot and game ids are the referee's own (:mod:`referee.core.ids`), re-exported here so
ladder code has one import for every id it handles. This module holds types only.
"""

from typing import NewType

from referee.core.ids import BotId, GameName, MatchId

__all__ = ["BotId", "BotVersionId", "EntrantId", "EventId", "GameName", "MatchId", "PairingKey"]

BotVersionId = NewType("BotVersionId", str)
"""One submitted version of a bot; every version is rated on its own."""

EventId = NewType("EventId", str)
"""A tournament's id."""

EntrantId = NewType("EntrantId", str)
"""A tournament entrant, usually the string of a :data:`BotVersionId` frozen at registration."""

PairingKey = NewType("PairingKey", str)
"""A pairing's stable id inside one event, such as ``"W2-1"`` or ``"R3-4"``; readable on purpose."""
