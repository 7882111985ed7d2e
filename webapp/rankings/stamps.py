"""The stamps and scopes of the cached leaderboard and bot pieces (``webapp.cache.read_through``).

A stamp is the state a piece was computed from, as counters that only go up; a scope is what one
result changes (a game's leaderboard, one bot's page), named in the stale markers a refresh sets.
A module of its own so the API (``webapp.rankings.views``), the pages' read models
(``webapp.rankings.views_pages``, which reads the API's leaderboard query) and the refresh after a
result (``webapp.pages.refresh``) share them without importing each other both ways.
"""

from __future__ import annotations

from webapp.bots.models import Bot, BotStats
from webapp.cache import Stamp, bots_generation
from webapp.rankings.models import RatingHistory


def leaderboard_stamp(game: str | None = None) -> Stamp:
    """The state of ``game``'s leaderboard (all, without a game): its newest rating-history id, the bots generation.

    One read of the ``(game, id)`` index: a rated result of one game leaves the other's cached.
    """
    history = RatingHistory.objects.all() if not game else RatingHistory.objects.filter(game=game)
    top = history.order_by("-id").values_list("id", flat=True).first() or 0
    return (top, bots_generation())


def profile_stamp(bot: Bot, stats: BotStats | None) -> Stamp:
    """The state of ``bot``'s page: its ``BotStats.revision`` (every result of the bot raises it), its latest
    version and the bots generation."""
    revision = stats.revision if stats is not None else 0
    return (revision, bot.latest_version_id or 0, bots_generation())


def game_scope(game: str) -> str:
    """The scope of ``game``'s leaderboard pieces (its pages and the ratings API of that game)."""
    return f"game:{game}"


def bot_scope(bot_id: int) -> str:
    """The scope of bot ``bot_id``'s page pieces."""
    return f"bot:{bot_id}"
