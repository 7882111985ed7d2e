"""Distinct id types, so a seat index never passes for a bot id or a match id."""

from typing import NewType

Seat = NewType("Seat", int)
"""A seat at the table: 0 for the first player, 1 for the second, and so on."""

MatchId = NewType("MatchId", str)
"""A match's id, unique across the whole service."""

BotId = NewType("BotId", str)
"""A bot's id, unique across the whole service."""

GameName = NewType("GameName", str)
"""A game's registry name, such as ``"scrumbrawl"``."""
