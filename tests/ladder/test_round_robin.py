"""Round robin: FIDE Berger tables, byes, double round robin, standings with Sonneborn-Berger.

Partitions: even and odd fields, one and two cycles, decisive and drawn results, withdrawals.
"""

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladder.ids import MatchId
from ladder.tournaments import Format, Report, next_pairings, record_result, schedule, standings, withdraw
from ladder.tournaments.round_robin import berger_rounds
from tests.ladder.tournament_helpers import better_seed_wins, event, play_out, seed_number

# FIDE Handbook C.05 Annex 1, as quoted in ratings-brackets.md 4.3 (first seat listed first).
BERGER = {
    4: "1-4 2-3 / 4-3 1-2 / 2-4 3-1",
    6: "1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5 / 6-5 1-4 2-3 / 3-6 4-2 5-1",
    8: (
        "1-8 2-7 3-6 4-5 / 8-5 6-4 7-3 1-2 / 2-8 3-1 4-7 5-6 / 8-6 7-5 1-4 2-3 / "
        "3-8 4-2 5-1 6-7 / 8-7 1-6 2-5 3-4 / 4-8 5-3 6-2 7-1"
    ),
}


def parse(table: str) -> list[list[tuple[int, int]]]:
    return [[tuple(map(int, game.split("-"))) for game in rnd.split()] for rnd in table.split(" / ")]  # type: ignore[misc]


@pytest.mark.parametrize("n", [4, 6, 8])
def test_berger_tables_match_fide(n: int) -> None:
    assert berger_rounds(n) == parse(BERGER[n])
    assert berger_rounds(n - 1) == parse(BERGER[n])


@given(st.integers(2, 24))
def test_everyone_meets_everyone_once(n: int) -> None:
    games = [frozenset(g) for rnd in berger_rounds(n) for g in rnd if max(g) <= n]
    assert sorted(map(sorted, games)) == sorted(map(sorted, map(frozenset, combinations(range(1, n + 1), 2))))
    for rnd in berger_rounds(n):
        seats = [p for g in rnd for p in g]
        assert len(seats) == len(set(seats))


def test_odd_field_rests_one_per_round_and_rounds_publish_in_turn() -> None:
    state = event(Format.ROUND_ROBIN, 5)
    first = next_pairings(state)
    assert [tuple(seed_number(e) for e in p.participants) for p in first] == [(2, 5), (3, 4)]
    assert schedule(state).byes[0].entrant == "p1"
    state = play_out(state, better_seed_wins)
    plan = schedule(state)
    assert len(plan.pairings) == 10 and len(plan.byes) == 5
    assert sorted(b.entrant for b in plan.byes) == ["p1", "p2", "p3", "p4", "p5"]
    assert [s.points for s in standings(state)] == [4, 3, 2, 1, 0]


def test_double_round_robin_reverses_seats() -> None:
    state = play_out(event(Format.ROUND_ROBIN, 4, cycles=2), better_seed_wins)
    views = schedule(state).pairings
    assert len(views) == 12
    first_cycle = [v.pairing.participants for v in views[:6]]
    second_cycle = [v.pairing.participants for v in views[6:]]
    assert second_cycle == [(b, a) for a, b in first_cycle]


def test_sonneborn_berger_breaks_a_points_tie() -> None:
    # Four players: p1 beats p2 and p3, loses to p4; p2 beats p3 and p4; p3 beats p4.
    # Points: p1 2, p2 2, p3 1, p4 1. SB(p1) = p2 2 + p3 1 = 3; SB(p2) = p3 1 + p4 1 = 2;
    # SB(p3) = p4 1 = 1; SB(p4) = p1 2 = 2.
    beats = {("p1", "p2"), ("p1", "p3"), ("p4", "p1"), ("p2", "p3"), ("p2", "p4"), ("p3", "p4")}

    def decide(pairing, game):  # type: ignore[no-untyped-def]
        a, b = pairing.participants
        return (1, 2) if (a, b) in beats else (2, 1)

    table = standings(play_out(event(Format.ROUND_ROBIN, 4), decide))
    assert [(s.entrant, s.rank, s.points, dict(s.tiebreaks)["SB"]) for s in table] == [
        ("p1", 1, 2.0, 3.0),
        ("p2", 2, 2.0, 2.0),
        ("p4", 3, 1.0, 2.0),
        ("p3", 4, 1.0, 1.0),
    ]


def test_withdrawal_forfeits_remaining_games() -> None:
    state = event(Format.ROUND_ROBIN, 4)
    state = withdraw(state, next_pairings(state)[0].participants[0])
    state = play_out(state, better_seed_wins)
    table = {s.entrant: s for s in standings(state)}
    assert table["p1"].points == 0 and table["p1"].played == 0 and table["p1"].losses == 3
    assert all(table[p].points >= 1 for p in ("p2", "p3"))


def test_drawn_series_in_round_robin() -> None:
    state = event(Format.ROUND_ROBIN, 2, best_of=2)
    (p,) = next_pairings(state)
    state = record_result(state, Report(p.key, MatchId("a"), (1, 2)))
    state = record_result(state, Report(p.key, MatchId("b"), (2, 1)))
    assert [s.points for s in standings(state)] == [0.5, 0.5]
    assert schedule(state).finished
