"""Best-of-N series and forfeits: how the reports of one pairing become its outcome.

A two-entrant pairing is a series: the first to win more than half of ``best_of`` games takes it.
A drawn game counts for neither side, so a series can run out of games level: formats that allow
draws (round robin, Swiss) score it as a drawn pairing; elimination formats keep playing single
deciding games until one side leads. A pod (three or more entrants) plays exactly one game and its
ranks are the outcome. A report with forfeiters decides the pairing at once, and so does the
withdrawal of a participant while a two-entrant pairing is undecided: the participant who left
first forfeits, so a later withdrawal of the other side never rewrites the result (a pod is still
played by the others, and the report lists the absentee as a forfeiter).
"""

from __future__ import annotations

from collections.abc import Sequence

from ladder.ids import EntrantId
from ladder.tournaments.common import Pairing, Report, SeriesOutcome, pod_points, two_player_points


def resolve(
    pairing: Pairing,
    reports: Sequence[Report],
    withdrawn: Sequence[EntrantId] = (),
    allow_draw: bool = True,
) -> SeriesOutcome | None:
    """Returns the pairing's outcome, or ``None`` while more games are needed.

    Args:
        pairing: the pairing.
        reports: its reports in arrival order (already validated against the pairing).
        withdrawn: entrants who left the event, in the order they left.
        allow_draw: whether a level series may end drawn (otherwise deciding games follow).
    """
    ids = pairing.participants
    forfeit = next((r for r in reports if r.forfeited), None)
    if forfeit is not None:
        return _outcome(ids, forfeit.ranks, forfeit.forfeited, wins=_wins(ids, reports))
    games = [r for r in reports if not r.forfeited]
    if len(ids) > 2:
        # A pod with a withdrawn player is still played by the others; the worker reports the
        # absentee as a forfeiter, so the remaining players' places come from a real game.
        return _outcome(ids, games[0].ranks, ()) if games else None
    wins = _wins(ids, games)
    need = pairing.best_of // 2 + 1
    if max(wins) >= need or (len(games) >= pairing.best_of and (wins[0] != wins[1] or allow_draw)):
        ranks = (1, 2) if wins[0] > wins[1] else (2, 1) if wins[1] > wins[0] else (1, 1)
        return _outcome(ids, ranks, (), wins)
    return _withdrawal(ids, withdrawn, wins)


def _wins(ids: Sequence[EntrantId], reports: Sequence[Report]) -> tuple[int, ...]:
    wins = [0] * len(ids)
    for report in reports:
        if report.forfeited or len(ids) != 2:
            continue
        if report.ranks[0] < report.ranks[1]:
            wins[0] += 1
        elif report.ranks[1] < report.ranks[0]:
            wins[1] += 1
    return tuple(wins)


def _withdrawal(
    ids: Sequence[EntrantId], withdrawn: Sequence[EntrantId], wins: tuple[int, ...] = ()
) -> SeriesOutcome | None:
    # Only the participant who left first forfeits: the pairing was decided at that moment, and a
    # later withdrawal of the other side must not rewrite it (the winner may already have played on).
    first = next((e for e in withdrawn if e in ids), None)
    if first is None:
        return None
    ranks = tuple(2 if e == first else 1 for e in ids)
    return _outcome(ids, ranks, (first,), wins)


def _outcome(
    ids: Sequence[EntrantId], ranks: Sequence[int], forfeited: Sequence[EntrantId], wins: tuple[int, ...] = ()
) -> SeriesOutcome:
    points = two_player_points(ranks, forfeited, ids) if len(ids) == 2 else pod_points(ranks, forfeited, ids)
    return SeriesOutcome(tuple(ranks), points, tuple(forfeited), wins)
