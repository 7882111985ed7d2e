"""Flags pairs of one author's bots whose results against each other look like rating farming.

Two bots of one author can feed each other: one throws its games to the other, whose rating then
climbs on results nobody else gave it. The ladder already keeps one author's bots apart at pods and
2v2 tables (``matchmaking``); in duels they may still meet, so the results are watched instead.

The rule (docs/ladder.md, "Rating farming"): for every pair of bots of one author, each meeting is
scored pairwise from the table's ranks (1 for the better rank, 0.5 for equal ranks, 0 for the worse)
and compared with the score the Elo ratings held before that match expected. A pair is flagged when

* they met at least ``min_meetings`` times,
* one side took at least ``min_share`` of the points, and
* that side's points exceed what the ratings expected by at least ``min_z`` standard deviations
  (``z = (points - n p) / sqrt(n p (1 - p))``, the binomial spread), where ``p`` is the expected
  score from the two bots' Elo ratings when they *first* met among the tables given (in the order
  given, oldest first).

The last condition keeps a genuinely stronger bot that wins as its rating predicts from being
flagged: only results the ratings do not explain are. The expectation is held at the first meeting
because the pair's own results move their ratings: after ten straight wins between equals the Elo
gap alone would "expect" most of them, and the results would explain themselves away. A flag is a
prompt for an organizer to look, not a verdict; nothing is changed by it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ladder.elo import expected_score
from ladder.errors import InvalidResultError, require_number


@dataclass(frozen=True)
class FarmingRule:
    """The thresholds of a flag."""

    min_meetings: int = 10
    """Meetings a pair needs before it can be flagged."""
    min_share: float = 0.8
    """Share of the pair's points the winning side must have taken."""
    min_z: float = 3.0
    """How many standard deviations above the expected points the winning side must be."""

    def __post_init__(self) -> None:
        if isinstance(self.min_meetings, bool) or not isinstance(self.min_meetings, int) or self.min_meetings < 1:
            raise InvalidResultError(
                f"FarmingRule.min_meetings must be an integer of at least 1, got {self.min_meetings!r}"
            )
        require_number("FarmingRule.min_share", self.min_share, minimum=0.5)
        if self.min_share > 1.0:
            raise InvalidResultError(f"FarmingRule.min_share must be at most 1, got {self.min_share!r}")
        require_number("FarmingRule.min_z", self.min_z, minimum=0.0)


@dataclass(frozen=True)
class Seat:
    """One bot's place at a rated table, as the flagging needs it."""

    bot: str
    """The bot's id (its versions count together)."""
    author: str
    """The bot's author; the house's bots are nobody's and are never paired."""
    rank: int
    """Final rank, 1 = best; equal ranks are a tie."""
    elo_before: float
    """The version's Elo before the match."""


@dataclass(frozen=True)
class FarmingFlag:
    """A pair whose results look one-sided beyond what their ratings explain."""

    author: str
    winner: str
    """The bot that took the points."""
    loser: str
    meetings: int
    points: float
    """The winner's points over the meetings."""
    expected: float
    """The points the ratings before each match expected the winner to take."""
    z: float
    """``(points - expected) / sqrt(sum p (1 - p))``."""

    @property
    def share(self) -> float:
        """The winner's share of the points."""
        return self.points / self.meetings


@dataclass
class _Tally:
    p: float
    """The first-named bot's expected score at the pair's first meeting."""
    meetings: int = 0
    points: float = 0.0


def _pair_score(a: Seat, b: Seat) -> float:
    if a.rank == b.rank:
        return 0.5
    return 1.0 if a.rank < b.rank else 0.0


def flag_pairs(tables: Iterable[Sequence[Seat]], rule: FarmingRule = FarmingRule()) -> list[FarmingFlag]:
    """Returns the flagged pairs over ``tables`` (each a rated match's seats, oldest first), worst first.

    Raises:
        InvalidResultError: naming the value, if a rank is not a positive integer or an Elo not finite.
    """
    tallies: dict[tuple[str, str, str], _Tally] = {}
    for seats in tables:
        for seat in seats:
            if isinstance(seat.rank, bool) or not isinstance(seat.rank, int) or seat.rank < 1:
                raise InvalidResultError(f"rank of {seat.bot!r} must be a positive integer, got {seat.rank!r}")
            require_number(f"elo before of {seat.bot!r}", seat.elo_before)
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                if not a.author or a.author != b.author or a.bot == b.bot:
                    continue
                first, second = (a, b) if a.bot < b.bot else (b, a)
                key = (first.author, first.bot, second.bot)
                tally = tallies.get(key)
                if tally is None:
                    tally = tallies[key] = _Tally(expected_score(first.elo_before, second.elo_before))
                tally.meetings += 1
                tally.points += _pair_score(first, second)
    flags = []
    for (author, first_bot, second_bot), tally in tallies.items():
        if tally.meetings < rule.min_meetings:
            continue
        n, p = tally.meetings, tally.p
        if tally.points * 2 >= n:
            winner, loser, points, expected = first_bot, second_bot, tally.points, n * p
        else:
            winner, loser, points, expected = second_bot, first_bot, n - tally.points, n * (1.0 - p)
        if points < rule.min_share * n:
            continue
        spread = math.sqrt(n * p * (1.0 - p))
        # p is never 0 or 1 from two finite ratings' logistic, save at the floats' edge.
        z = (math.inf if points > expected else 0.0) if spread == 0.0 else (points - expected) / spread
        if z >= rule.min_z:
            flags.append(FarmingFlag(author, winner, loser, tally.meetings, points, expected, z))
    flags.sort(key=lambda f: (-f.z, f.author, f.winner, f.loser))
    return flags
