"""``brawl ratings verify`` and ``brawl ratings recompute``: the stored ratings against ``ladder.history``.

``verify`` recomputes every rating of a game from its rated matches in match order with
``ladder.history.replay`` and compares the stored ``Rating`` and ``RatingHistory`` rows with it
exactly (same floats); it exits 1 naming the first difference. ``recompute`` rewrites the stored
rows from that recomputation in one transaction. Both run against the database named by
``DATABASE_URL``. This module parses arguments and prints; the work is in ``rankings.services``.
"""

from __future__ import annotations

import argparse
import os
import sys


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl ratings``."""
    ratings = subparsers.add_parser("ratings", help="check or rebuild the stored ratings from the rated matches")
    sub = ratings.add_subparsers(dest="ratings_command", metavar="ACTION", required=True)
    v = sub.add_parser("verify", help="recompute from the rated matches and compare exactly; exit 1 on a difference")
    v.add_argument("--game", help="game name (default: every game with ratings or rated matches)")
    v.set_defaults(func=cmd_verify)
    r = sub.add_parser("recompute", help="rewrite the stored ratings and history from the rated matches")
    r.add_argument("--game", help="game name (default: every game with ratings or rated matches)")
    r.set_defaults(func=cmd_recompute)


def _games(game: str | None) -> list[str]:
    """The games to check: the one asked for, or every game with rows."""
    if game:
        return [game]
    from webapp.matches.models import Match
    from webapp.rankings.models import Rating

    names = set(Rating.objects.values_list("game", flat=True).distinct())
    names |= set(Match.objects.filter(rated=True).values_list("game", flat=True).distinct())
    return sorted(names)


def cmd_verify(args: argparse.Namespace) -> int:
    """Prints one line per game; exits 1 at the first game whose stored ratings differ."""
    _setup()
    from webapp.api import DomainError
    from webapp.rankings.audit import first_difference

    for game in _games(args.game):
        try:
            difference, recomputed = first_difference(game)
        except DomainError as exc:
            print(f"error: {game}: {exc.detail}", file=sys.stderr)
            return 1
        if difference is not None:
            print(f"error: {game}: stored ratings differ from the recomputation: {difference}", file=sys.stderr)
            return 1
        print(
            f"{game}: ok, {len(recomputed.results)} rated matches, {len(recomputed.replayed.entries)} history rows, "
            f"{len(recomputed.replayed.ratings)} rated versions reproduce exactly"
        )
    return 0


def cmd_recompute(args: argparse.Namespace) -> int:
    """Rewrites each game's ratings; prints what changed."""
    _setup()
    from webapp.api import DomainError
    from webapp.rankings.services import do_recompute_game

    for game in _games(args.game):
        try:
            report = do_recompute_game(game)
        except DomainError as exc:
            print(f"error: {game}: {exc.detail}; nothing was changed", file=sys.stderr)
            return 1
        before = "already matched" if report.was_different is None else f"differed first at: {report.was_different}"
        print(
            f"{game}: rewrote {report.history_rows} history rows and {report.versions} ratings "
            f"from {report.matches} rated matches (the store {before})"
        )
    return 0
