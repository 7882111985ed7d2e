"""Elo, the ladder's published rating: expected score, K schedule, and one game's rating changes.

Ratings are updated game by game, in match order ("sequential" Elo), never in FIDE-style rating
periods, because a bot ladder has no natural period and the history must be replayable one game at
a time. The logistic formula is used, not FIDE's rounded table, and there is no 400-point cap:
both are chess-federation conventions that do not help a bot ladder. Values are floats at full
precision; round only for display.

Free-for-all games (ScrumBrawl, 3-4 players) are decomposed into pairwise games: against every
other player a participant scores 1 if ranked ahead, 0.5 if tied, 0 if behind, and K is divided by
``N - 1`` so one free-for-all game weighs about as much as one 1v1 game. Team games (2v2) use the
mean rating of each team; every member receives the team's change scaled by their own K.

This module does not know about versions, history or storage: see :mod:`ladder.history`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ladder.errors import InvalidResultError, require_number
from ladder.results import pairwise_score

DEFAULT_RATING = 1500.0
"""The rating of a brand-new bot (its first version, with no parent to inherit from)."""

SCALE = 400.0
"""The logistic scale: a 400-point edge means 10:1 odds."""


def expected_score(rating: float, opponent: float, scale: float = SCALE) -> float:
    """Returns the expected score of ``rating`` against ``opponent`` (0..1).

    >>> round(expected_score(1700, 1500), 4)
    0.7597

    Raises:
        InvalidResultError: naming the value, if a rating is not finite or the scale not a
            finite number above 0 (a NaN would otherwise come back as a NaN "chance").
    """
    require_number("rating", rating)
    require_number("opponent rating", opponent)
    require_number("scale", scale, minimum=0.0, exclusive=True)
    exponent = (opponent - rating) / scale
    if exponent > 300.0:
        # 10**exponent would overflow (an OverflowError, not a float); the score is 0 to double precision.
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def updated_rating(rating: float, opponent: float, score: float, k: float, scale: float = SCALE) -> float:
    """Returns the rating after one 1v1 game with ``score`` (1 win, 0.5 draw, 0 loss).

    Raises:
        InvalidResultError: naming the value, if a number is not finite or out of range.
    """
    _check_inputs([rating, opponent], [k], scale)
    if not 0.0 <= score <= 1.0:
        raise InvalidResultError(f"score must lie in 0..1, got {score!r}")
    return rating + k * (score - expected_score(rating, opponent, scale))


def _check_inputs(ratings: Sequence[float], ks: Sequence[float], scale: float) -> None:
    for rating in ratings:
        require_number("rating", rating)
    for k in ks:
        require_number("K", k, minimum=0.0)
    require_number("scale", scale, minimum=0.0, exclusive=True)


@dataclass(frozen=True, slots=True)
class KSchedule:
    """How fast a rating moves: a larger K while provisional, a smaller one once established.

    The defaults follow FIDE's shape (40 while new, then 20) with a shorter provisional phase,
    because bots play hundreds of games and a new version needs to find its level quickly.

    Raises:
        InvalidResultError: naming the value, if a K is negative or not a finite number, or the
            provisional game count is below zero.
    """

    provisional_games: int = 20
    """Rated games a version plays with ``provisional_k`` before switching to ``established_k``."""
    provisional_k: float = 40.0
    """K for a version's first ``provisional_games`` games."""
    established_k: float = 20.0
    """K afterwards."""

    def __post_init__(self) -> None:
        require_number("KSchedule.provisional_k", self.provisional_k, minimum=0.0)
        require_number("KSchedule.established_k", self.established_k, minimum=0.0)
        if not isinstance(self.provisional_games, int) or self.provisional_games < 0:
            raise InvalidResultError(
                f"KSchedule.provisional_games must be a whole number, not negative, got {self.provisional_games!r}"
            )

    def k(self, games_played: int) -> float:
        """Returns K for a version that has already played ``games_played`` rated games."""
        return self.provisional_k if games_played < self.provisional_games else self.established_k

    def is_provisional(self, games_played: int) -> bool:
        """Whether a version with ``games_played`` rated games is still provisional."""
        return games_played < self.provisional_games


def rating_changes(
    ratings: Sequence[float],
    ranks: Sequence[int],
    ks: Sequence[float],
    teams: Sequence[int] = (),
    scale: float = SCALE,
) -> tuple[float, ...]:
    """Returns each participant's rating change for one game.

    Args:
        ratings: rating per seat before the game.
        ranks: rank per seat, 1 best, equal ranks tie.
        ks: K per seat (from each version's :class:`KSchedule`).
        teams: team index per seat for a two-team game, or empty for 1v1 and free-for-all.
        scale: the logistic scale.

    Returns:
        The change per seat. With equal K (and equal team sizes) the changes sum to zero.

    Raises:
        InvalidResultError: if the sequences differ in length, fewer than two seats are given, or a
            rating, K or the scale is not a finite number in range (the message names it).
    """
    n = len(ratings)
    if n < 2 or len(ranks) != n or len(ks) != n or (teams and len(teams) != n):
        raise InvalidResultError(f"mismatched game: ratings {ratings!r}, ranks {ranks!r}, ks {ks!r}, teams {teams!r}")
    _check_inputs(ratings, ks, scale)
    if teams:
        return _team_changes(ratings, ranks, ks, teams, scale)
    changes = []
    for i in range(n):
        surprise = 0.0
        for j in range(n):
            if i != j:
                surprise += pairwise_score(ranks[i], ranks[j]) - expected_score(ratings[i], ratings[j], scale)
        changes.append(ks[i] / (n - 1) * surprise)
    return tuple(changes)


def _team_changes(
    ratings: Sequence[float], ranks: Sequence[int], ks: Sequence[float], teams: Sequence[int], scale: float
) -> tuple[float, ...]:
    """Team Elo: team rating is the members' mean; each member moves by K times the team's surprise."""
    labels = sorted(set(teams))
    if len(labels) != 2:
        raise InvalidResultError(f"team games need exactly two teams, got {teams!r}")
    mean: dict[int, float] = {}
    rank: dict[int, int] = {}
    for label in labels:
        members = [i for i, t in enumerate(teams) if t == label]
        mean[label] = sum(ratings[i] for i in members) / len(members)
        rank[label] = min(ranks[i] for i in members)
    a, b = labels
    surprise = {
        a: pairwise_score(rank[a], rank[b]) - expected_score(mean[a], mean[b], scale),
        b: pairwise_score(rank[b], rank[a]) - expected_score(mean[b], mean[a], scale),
    }
    return tuple(ks[i] * surprise[teams[i]] for i in range(len(ratings)))
