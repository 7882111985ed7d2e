"""What the bots app announces, so that the apps above it react without the bots app knowing them.

Receivers run synchronously, inside the transaction of the change, so it happens entirely or not
at all (see ``webapp.matches.signals`` for the same pattern at a match's end).
"""

from __future__ import annotations

from django.dispatch import Signal

version_created = Signal()
"""Sent once when a bot gets a new version: ``version`` (the ``BotVersion`` row, saved) and ``game``
(the bot's game). Rankings gives it a placeholder rating row for the leaderboard."""
