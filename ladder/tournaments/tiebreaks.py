"""Tie-breaks for round-based formats: Buchholz, Buchholz cut 1, Sonneborn-Berger; plus the tally.

Definitions (FIDE C.07, as summarised in docs/research): Buchholz (BH) is the sum of the final
scores of a player's opponents; BH cut 1 (BH-C1) drops the lowest of those; Sonneborn-Berger (SB)
sums the final scores of the opponents beaten plus half of those drawn.

Unplayed rounds (a bye, a forfeit won or lost) count as a game against a virtual opponent whose
score equals the player's own final score, with the points the player actually received; this is
the 2023 FIDE treatment for a player's own unplayed rounds, applied to BH and SB alike. The cut
in BH-C1 removes the lowest contribution whatever its kind (FIDE cuts voluntarily unplayed rounds
first; the ladder has no voluntary byes, so the two agree).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ladder.ids import EntrantId
from ladder.tournaments.common import Bye, PairingView


@dataclass(frozen=True, slots=True)
class Encounter:
    """One round of one entrant, from their side."""

    round: int
    """The round."""
    opponent: EntrantId | None
    """The opponent met over the board, or ``None`` for a bye or a forfeit."""
    points: float
    """Points the entrant got."""
    result: float
    """1 win, 0.5 draw, 0 loss (a bye counts as a win)."""


@dataclass(slots=True)
class Record:
    """An entrant's encounters and counts."""

    encounters: list[Encounter] = field(default_factory=list)
    """Every round with a result, in order."""
    played: int = 0
    """Pairings played over the board."""
    wins: int = 0
    """Pairings won (forfeit wins and byes included)."""
    draws: int = 0
    """Pairings drawn."""
    losses: int = 0
    """Pairings lost (forfeits included)."""

    @property
    def points(self) -> float:
        """Total event points."""
        return sum(e.points for e in self.encounters)

    def summary(self) -> tuple[float, int, int, int, int]:
        """``(points, played, wins, draws, losses)`` for a :class:`Standing`."""
        return (self.points, self.played, self.wins, self.draws, self.losses)


def tally(
    views: Iterable[PairingView], byes: Iterable[Bye], entrants: Iterable[EntrantId] = ()
) -> dict[EntrantId, Record]:
    """Collects every entrant's encounters from decided two-entrant pairings and byes."""
    records: dict[EntrantId, Record] = {e: Record() for e in entrants}
    for view in views:
        outcome = view.outcome
        for e in view.pairing.participants:
            records.setdefault(e, Record())
        if outcome is None:
            continue
        ids = view.pairing.participants
        over_board = not outcome.forfeited
        for i, e in enumerate(ids):
            others = [j for j in range(len(ids)) if j != i]
            best_other = min(outcome.ranks[j] for j in others)
            result = 1.0 if outcome.ranks[i] < best_other else 0.5 if outcome.ranks[i] == best_other else 0.0
            if e in outcome.forfeited:
                result = 0.0
            opponent = ids[others[0]] if over_board and len(ids) == 2 else None
            rec = records[e]
            rec.encounters.append(Encounter(view.pairing.round, opponent, outcome.points[i], result))
            rec.played += over_board
            rec.wins += result == 1.0
            rec.draws += result == 0.5
            rec.losses += result == 0.0
    for bye in byes:
        rec = records.setdefault(bye.entrant, Record())
        rec.encounters.append(Encounter(bye.round, None, bye.points, 1.0))
        rec.wins += 1
    return records


def _contributions(entrant: EntrantId, records: Mapping[EntrantId, Record]) -> list[tuple[float, Encounter]]:
    own = records[entrant].points
    return [(own if e.opponent is None else records[e.opponent].points, e) for e in records[entrant].encounters]


def buchholz(entrant: EntrantId, records: Mapping[EntrantId, Record], cut: int = 0) -> float:
    """Buchholz: the sum of opponents' final scores, dropping the ``cut`` lowest (1 for BH-C1)."""
    values = sorted(score for score, _ in _contributions(entrant, records))
    return float(sum(values[cut:]))


def sonneborn_berger(entrant: EntrantId, records: Mapping[EntrantId, Record]) -> float:
    """Sonneborn-Berger: opponents' final scores weighted by the result against them (1, 0.5, 0)."""
    return float(sum(score * e.result for score, e in _contributions(entrant, records)))


TIEBREAKS = {
    "BH-C1": lambda e, r: buchholz(e, r, cut=1),
    "BH": lambda e, r: buchholz(e, r),
    "SB": sonneborn_berger,
}
"""Tie-break functions by their FIDE short names."""


def compute(
    names: Iterable[str], entrant: EntrantId, records: Mapping[EntrantId, Record]
) -> tuple[tuple[str, float], ...]:
    """Returns ``(name, value)`` for each named tie-break, in order."""
    return tuple((name, TIEBREAKS[name](entrant, records)) for name in names)
