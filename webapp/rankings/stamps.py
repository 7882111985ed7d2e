"""The leaderboard's stamp: what its cached answers (the ratings API, the leaderboard pages) are keyed on.

A module of its own so the API (``webapp.rankings.views``) and the pages' read models
(``webapp.rankings.views_pages``, which reads the API's leaderboard query) both use it without
importing each other both ways.
"""

from __future__ import annotations

from webapp.cache import bots_generation
from webapp.rankings.models import RatingHistory


def leaderboard_stamp(game: str | None = None) -> str:
    """The state of ``game``'s leaderboard (all, without a game): its newest rating-history id, the bots generation.

    One read of the ``(game, id)`` index: a rated result of one game leaves the other's cached.
    """
    history = RatingHistory.objects.all() if not game else RatingHistory.objects.filter(game=game)
    top = history.order_by("-id").values_list("id", flat=True).first() or 0
    return f"{top}:{bots_generation()}"
