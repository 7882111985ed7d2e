"""Double elimination: structure counts, drop-in order, grand final and reset, play-out properties.

Partitions: 2 to 40 entrants (byes), grand final with reset / single / none, best-of-1 and best-of-3,
forfeits and withdrawals, random results.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.ids import EntrantId, MatchId
from ladder.tournaments import (
    Format,
    GrandFinal,
    Pairing,
    Report,
    next_pairings,
    record_result,
    schedule,
    standings,
    withdraw,
)
from ladder.tournaments.double_elim import build
from tests.ladder.tournament_helpers import better_seed_wins, event, play_out, random_decider, seed_number


def test_structure_for_eight_and_sixteen() -> None:
    # ratings-brackets.md 4.2: with P = 2^k the winners bracket has P - 1 matches, the losers bracket
    # 2(k - 1) rounds and P - 2 matches, rounds 2i - 1 and 2i with P / 2^(i + 1) matches each.
    nodes = build(16, GrandFinal.SINGLE)
    losers = [n for n in nodes if n.bracket == "losers"]
    assert len([n for n in nodes if n.bracket == "winners"]) == 15
    assert len(losers) == 14
    assert [sum(1 for n in losers if n.round == r) for r in range(1, 7)] == [4, 4, 2, 2, 1, 1]


def test_sixteen_with_single_grand_final_plays_thirty_matches() -> None:
    # brackets-manager's test suite: 16 teams, simple grand final: 4 + 6 + 1 rounds, 30 matches.
    state = play_out(event(Format.DOUBLE_ELIMINATION, 16, grand_final=GrandFinal.SINGLE), better_seed_wins)
    assert len(schedule(state).pairings) == 30
    assert standings(state)[0].entrant == "p1"


def lb_champion_wins_grand_finals(pairing: Pairing, game: int) -> tuple[int, ...]:
    if pairing.bracket == "final":
        return (2, 1) if pairing.key == "GF1" else (1, 2)
    return better_seed_wins(pairing, game)


def test_eight_with_reset_plays_fifteen_matches() -> None:
    # brackets-manager: 8 teams with a double grand final (3 + 4 + 2 rounds) is 15 matches = 2N - 1.
    state = play_out(event(Format.DOUBLE_ELIMINATION, 8), lb_champion_wins_grand_finals)
    plan = schedule(state)
    assert plan.finished
    assert len(plan.pairings) == 15
    assert [v.pairing.key for v in plan.pairings][-2:] == ["GF1", "GF2"]
    table = standings(state)
    # p1 won the winners bracket and both GF games went to the seat-2 entrant: GF1 to p2, GF2 to p1.
    assert (table[0].entrant, table[1].entrant) == ("p1", "p2")


def test_no_reset_when_the_winners_champion_wins() -> None:
    state = play_out(event(Format.DOUBLE_ELIMINATION, 8), better_seed_wins)
    assert len(schedule(state).pairings) == 14
    assert [s.entrant for s in standings(state)][:3] == ["p1", "p2", "p3"]


def test_drop_in_order_avoids_an_immediate_rematch() -> None:
    state = play_out(event(Format.DOUBLE_ELIMINATION, 8), better_seed_wins)
    pairs = {v.pairing.key: {seed_number(e) for e in v.pairing.participants} for v in schedule(state).pairings}
    # Losers round 1: 8-5 and 7-6 -> 5 and 6 survive; winners round 2 losers 4 (vs 1) and 3 (vs 2) drop in reversed.
    assert pairs["L1-1"] == {5, 8} and pairs["L1-2"] == {6, 7}
    assert pairs["L2-1"] == {5, 3} and pairs["L2-2"] == {6, 4}


def test_no_grand_final() -> None:
    state = play_out(event(Format.DOUBLE_ELIMINATION, 4, grand_final=GrandFinal.NONE), better_seed_wins)
    table = standings(state)
    assert [(s.entrant, s.status) for s in table[:2]] == [("p1", "champion"), ("p2", "losers bracket champion")]


@pytest.mark.parametrize("n", [2, 3, 5])
def test_small_fields(n: int) -> None:
    state = play_out(event(Format.DOUBLE_ELIMINATION, n), better_seed_wins)
    assert schedule(state).finished
    assert standings(state)[0].entrant == "p1"
    assert len(schedule(state).pairings) == 2 * n - 2


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 40),
    st.sampled_from([1, 3]),
    st.sampled_from(list(GrandFinal)),
    st.integers(0, 2**32),
    st.booleans(),
)
def test_always_terminates_with_one_champion(
    n: int, best_of: int, grand_final: GrandFinal, seed: int, chaos: bool
) -> None:
    rng = random.Random(seed)
    state = event(Format.DOUBLE_ELIMINATION, n, best_of=best_of, grand_final=grand_final)
    decide = random_decider(rng, draw_chance=0.1)
    seen_decided: set[str] = set()
    forfeits = 0
    for _ in range(10_000):
        pending = next_pairings(state)
        if not pending:
            break
        assert not {p.key for p in pending} & seen_decided
        for p in pending:
            if chaos and rng.random() < 0.05:
                # A single forfeit (never both sides, which would leave nobody to advance).
                loser = p.participants[rng.randrange(2)]
                ranks = tuple(2 if e == loser else 1 for e in p.participants)
                state = record_result(state, Report(p.key, MatchId(f"{p.key}/ff"), ranks, (loser,)))
                forfeits += 1
            elif chaos and rng.random() < 0.02 and not state.withdrawals:
                # One withdrawal at most, so no pairing ever loses both sides.
                state = withdraw(state, p.participants[rng.randrange(2)])
            else:
                report = Report(p.key, MatchId(f"{p.key}/{p.games_played}"), decide(p, p.games_played))
                state = record_result(state, report)
                assert record_result(state, report) == state
        seen_decided |= {v.pairing.key for v in schedule(state).pairings if v.outcome is not None}
    plan = schedule(state)
    assert plan.finished
    keys = [v.pairing.key for v in plan.pairings]
    assert len(keys) == len(set(keys))
    if not chaos:
        games = 2 * n - 2 + ("GF2" in keys) - (grand_final is GrandFinal.NONE)
        assert len(keys) == games
    table = standings(state)
    assert [s.rank for s in table].count(1) == 1
    assert table[0].status == "champion"
    assert sorted(s.entrant for s in table) == sorted(EntrantId(f"p{i}") for i in range(1, n + 1))
