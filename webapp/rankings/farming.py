"""The ladder's rating-farming flags over the recorded results (``ladder.farming``), for organizers.

Reads the rated matches in which two bots of one author sat together (the house's bots excluded),
newest first and at most :data:`RECENT_MATCHES` of them, with each seat's rank and Elo before the
match from the rating history, and hands them to :func:`ladder.farming.flag_pairs`. Shown in the
organizer console (``webapp.tournaments.console``); nothing is changed by a flag.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count

from ladder.farming import FarmingFlag, FarmingRule, Seat, flag_pairs
from webapp.matches.models import MatchSeat
from webapp.rankings.models import RatingHistory

RECENT_MATCHES = 5000
"""How many of the newest same-author matches are read."""

RULE = FarmingRule()
"""The thresholds applied (docs/ladder.md, "Rating farming")."""


def same_author_matches(game: str | None = None, limit: int = RECENT_MATCHES) -> list[int]:
    """Ids of the newest rated matches where two seats held bots of one (non-house) author."""
    seats = MatchSeat.objects.filter(match__rated=True, bot_version__bot__is_house=False)
    if game is not None:
        seats = seats.filter(match__game=game)
    rows = (
        seats.values("match_id", "bot_version__bot__owner_id")
        .annotate(n=Count("id"))
        .filter(n__gte=2)
        .order_by("-match_id")
        .values_list("match_id", flat=True)
    )
    return sorted(set(rows[: limit * 2]), reverse=True)[:limit]


def farming_flags(game: str | None = None, rule: FarmingRule = RULE) -> list[dict[str, Any]]:
    """The flagged pairs, worst first, with the bots' and author's names for display."""
    match_ids = same_author_matches(game)
    rows = RatingHistory.objects.filter(match_id__in=match_ids).values(
        "match_id",
        "game",
        "rank",
        "elo_before",
        "bot_version__bot_id",
        "bot_version__bot__name",
        "bot_version__bot__owner__username",
        "bot_version__bot__is_house",
    )
    tables: dict[int, list[Seat]] = defaultdict(list)
    names: dict[str, str] = {}
    games: dict[str, str] = {}
    for row in rows:
        bot = str(row["bot_version__bot_id"])
        names[bot] = row["bot_version__bot__name"]
        games[bot] = row["game"]
        author = "" if row["bot_version__bot__is_house"] else row["bot_version__bot__owner__username"]
        tables[row["match_id"]].append(Seat(bot, author, row["rank"], row["elo_before"]))
    flags: list[FarmingFlag] = flag_pairs(tables.values(), rule)
    return [
        {
            "author": f.author,
            "game": games[f.winner],
            "winner_id": int(f.winner),
            "winner": names[f.winner],
            "loser_id": int(f.loser),
            "loser": names[f.loser],
            "meetings": f.meetings,
            "points": f.points,
            "expected": round(f.expected, 1),
            "share": round(100 * f.share),
            "z": round(f.z, 1),
        }
        for f in flags
    ]
