"""Round robin by FIDE Berger tables: everyone meets everyone, once per cycle.

Entrants are numbered by seed. With an odd number a dummy takes the highest number and its
opponent has the round off (no points: in a round robin the bye is a rest, not a win). The table
generator reproduces the published FIDE tables, first seat included. A second cycle repeats the
first with the seats reversed. Rounds are published one at a time: round r + 1 appears once round
r is decided, so standings after each round are meaningful; a withdrawn entrant forfeits their
remaining pairings.

Standings: points (1 win, 0.5 draw), then Sonneborn-Berger (the classic round-robin tie-break),
then pairings won, then seed.
"""

from __future__ import annotations

from ladder.ids import EntrantId, PairingKey
from ladder.tournaments import series
from ladder.tournaments.bracket import reports_by_pairing
from ladder.tournaments.common import Bye, EventState, Pairing, PairingView, Schedule, Standing
from ladder.tournaments.tiebreaks import Record, compute, tally

__all__ = ["berger_rounds", "schedule", "standings"]

TIEBREAKS = ("SB",)
"""Tie-breaks applied after points, before pairings won and seed."""


def berger_rounds(players: int) -> list[list[tuple[int, int]]]:
    """Returns the Berger table for ``players``: per round, ``(first seat, second seat)`` numbers.

    For an odd count the returned table is that of ``players + 1`` and the highest number is the
    bye. Generator (checked against the FIDE 4-, 6-, 8- and 10-player tables): with n even and
    m = n - 1, round r (0-based) has p = (r·n/2 mod m) + 1; n meets p, n second on even rounds and
    first on odd ones; then for k = 1 .. n/2 - 1, ((p - 1 + k) mod m) + 1 is first against
    ((p - 1 - k) mod m) + 1.

    >>> berger_rounds(4)
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    """
    n = players + players % 2
    m = n - 1
    table = []
    for r in range(m):
        p = (r * n // 2) % m + 1
        games = [(p, n) if r % 2 == 0 else (n, p)]
        for k in range(1, n // 2):
            games.append(((p - 1 + k) % m + 1, (p - 1 - k) % m + 1))
        table.append(games)
    return table


def _all_rounds(state: EventState) -> list[list[tuple[EntrantId | None, EntrantId | None]]]:
    ids = state.by_seed
    table = berger_rounds(len(ids))

    def who(number: int) -> EntrantId | None:
        return ids[number - 1] if number <= len(ids) else None

    rounds = []
    for cycle in range(state.config.cycles):
        for games in table:
            pairs = [(who(a), who(b)) if cycle % 2 == 0 else (who(b), who(a)) for a, b in games]
            rounds.append(pairs)
    return rounds


def schedule(state: EventState) -> Schedule:
    """Returns the pairings published so far (up to the first undecided round)."""
    grouped = reports_by_pairing(state)
    withdrawn = list(state.withdrawn)
    views: list[PairingView] = []
    byes: list[Bye] = []
    rounds = _all_rounds(state)
    for number, pairs in enumerate(rounds, start=1):
        open_round = False
        board = 0
        for a, b in pairs:
            if a is None or b is None:
                sitter = a if b is None else b
                if sitter is not None:
                    byes.append(Bye(number, sitter, 0.0))
                continue
            board += 1
            key = PairingKey(f"R{number}-{board}")
            reports = grouped.get(key, [])
            pairing = Pairing(
                key, number, (a, b), state.config.best_of, "main", sum(1 for r in reports if not r.forfeited)
            )
            outcome = series.resolve(pairing, reports, withdrawn)
            views.append(PairingView(pairing, outcome))
            open_round = open_round or outcome is None
        if open_round:
            return Schedule(tuple(views), tuple(byes), False)
    return Schedule(tuple(views), tuple(byes), True)


def standings(state: EventState) -> tuple[Standing, ...]:
    """Returns the standings: points, Sonneborn-Berger, pairings won, seed."""
    plan = schedule(state)
    ids = state.by_seed
    records = tally(plan.pairings, (), ids)
    return rank_lines(ids, records, TIEBREAKS)


def rank_lines(ids: list[EntrantId], records: dict[EntrantId, Record], names: tuple[str, ...]) -> tuple[Standing, ...]:
    """Orders entrants by points, the named tie-breaks, pairings won, then seed; full ties share a place."""
    keys = {e: (records[e].points, *(v for _, v in compute(names, e, records)), records[e].wins) for e in ids}
    order = sorted(ids, key=lambda e: tuple(-x for x in keys[e]))
    return tuple(
        Standing(
            e,
            1 + sum(1 for o in ids if keys[o] > keys[e]),
            *records[e].summary(),
            tiebreaks=compute(names, e, records),
        )
        for e in order
    )
