"""Swiss: round-1 layout, byes, a hand-worked event with tie-breaks, and properties.

Partitions: even and odd fields, decisive and drawn results, byes, forfeits, withdrawals, many rounds
(early end when no rematch-free pairing exists).
"""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.ids import EntrantId, MatchId
from ladder.tournaments import (
    Format,
    Report,
    is_finished,
    next_pairings,
    record_result,
    schedule,
    standings,
    withdraw,
)
from ladder.tournaments.swiss import pair_round
from tests.ladder.tournament_helpers import event, players, random_decider


def seats(state: object) -> list[str]:
    return ["-".join(e[1:] for e in p.participants) for p in next_pairings(state)]  # type: ignore[arg-type]


def test_round_one_is_top_half_against_bottom_half_with_alternating_first_seat() -> None:
    # ratings-brackets.md 4.4: eight players, first seat drawn for player 1: 1-5, 6-2, 3-7, 8-4.
    assert seats(event(Format.SWISS, 8)) == ["1-5", "6-2", "3-7", "8-4"]


def test_odd_field_gives_the_bye_to_the_lowest() -> None:
    state = event(Format.SWISS, 9)
    assert seats(state) == ["1-5", "6-2", "3-7", "8-4"]
    assert [(b.entrant, b.points) for b in schedule(state).byes] == [("p9", 1.0)]


def play_round(state, results: dict[str, tuple[int, int]], tag: str):  # type: ignore[no-untyped-def]
    """Records results keyed by "a-b" in seat order: (ranks of a, ranks of b)."""
    for p in next_pairings(state):
        label = "-".join(e[1:] for e in p.participants)
        state = record_result(state, Report(p.key, MatchId(f"{tag}:{label}"), results[label]))
    return state


WIN, DRAW, LOSS = (1, 2), (1, 1), (2, 1)


def test_worked_six_player_event_with_tiebreaks() -> None:
    # Hand-worked (docs/ladder.md, Swiss): six players, three rounds.
    state = event(Format.SWISS, 6, rounds=3)
    assert seats(state) == ["1-4", "5-2", "3-6"]
    state = play_round(state, {"1-4": WIN, "5-2": DRAW, "3-6": LOSS}, "r1")
    # Standings p1 1, p6 1, p2 .5, p5 .5, p3 0, p4 0. p1 meets p6; p2 cannot meet p5 again, so p2-p3, p5-p4.
    # First seat: p6, p2 and p4 have not had it yet.
    assert seats(state) == ["6-1", "2-3", "4-5"]
    state = play_round(state, {"6-1": LOSS, "2-3": LOSS, "4-5": DRAW}, "r2")
    # p1 2; p3, p5, p6 1; p2, p4 .5. p1 takes p3 (p6 already met), p5-p6, p2-p4.
    assert seats(state) == ["1-3", "5-6", "2-4"]
    state = play_round(state, {"1-3": DRAW, "5-6": LOSS, "2-4": LOSS}, "r3")
    assert is_finished(state)
    # Final: p1 2.5, p6 2, p3 1.5, p4 1.5, p5 1, p2 .5.
    # BH-C1 / BH / SB: p1 3.5/5/4.25, p6 4/5/2.5, p3 4.5/5/1.75, p4 3.5/4/1, p5 3.5/4/1, p2 3/4/.5.
    table = [(s.entrant, s.rank, s.points, *(v for _, v in s.tiebreaks)) for s in standings(state)]
    assert table == [
        ("p1", 1, 2.5, 3.5, 5.0, 4.25),
        ("p6", 2, 2.0, 4.0, 5.0, 2.5),
        ("p3", 3, 1.5, 4.5, 5.0, 1.75),
        ("p4", 4, 1.5, 3.5, 4.0, 1.0),
        ("p5", 5, 1.0, 3.5, 4.0, 1.0),
        ("p2", 6, 0.5, 3.0, 4.0, 0.5),
    ]


def test_bye_counts_as_a_virtual_opponent_with_own_score() -> None:
    # Three players, two rounds. R1: 1-2 (p3 bye), p1 wins. R2: p1 (1) and p3 (1) meet, p2 gets the bye.
    state = event(Format.SWISS, 3, rounds=2)
    assert seats(state) == ["1-2"]
    state = play_round(state, {"1-2": WIN}, "r1")
    # Round 2 is published at once: p1 and p3 have 1 point, p2 (no bye yet) sits out.
    assert [b.entrant for b in schedule(state).byes] == ["p3", "p2"]
    assert seats(state) == ["3-1"]
    state = play_round(state, {"3-1": WIN}, "r2")
    # p1 1, p2 1 (bye), p3 2. BH(p3) = own 2 (bye) + p1 1 = 3; cut 1 drops p1: 2. SB(p3) = 2 * 1 + 1 * 1 = 3.
    table = {s.entrant: dict(s.tiebreaks) for s in standings(state)}
    assert table["p3"] == {"BH-C1": 2.0, "BH": 3.0, "SB": 3.0}
    assert table["p2"] == {"BH-C1": 1.0, "BH": 2.0, "SB": 1.0}


def test_no_bye_twice_and_forfeit_win_counts_as_a_bye() -> None:
    order = [EntrantId(x) for x in ("a", "b", "c")]
    points = dict.fromkeys(order, 0.0)
    assert pair_round(order, points, set(), {EntrantId("c")}) == ([(EntrantId("a"), EntrantId("c"))], EntrantId("b"))
    assert pair_round(order, points, set(), set(order)) is None


def test_event_ends_early_when_no_rematch_free_pairing_exists() -> None:
    state = event(Format.SWISS, 4, rounds=5)
    rng = random.Random(3)
    decide = random_decider(rng)
    while pending := next_pairings(state):
        for p in pending:
            state = record_result(state, Report(p.key, MatchId(f"{p.key}"), decide(p, 0)))
    plan = schedule(state)
    assert plan.finished and len({v.pairing.round for v in plan.pairings}) == 3
    assert "no rematch-free pairing" in plan.note


def test_withdrawn_players_are_not_paired_again() -> None:
    state = event(Format.SWISS, 6, rounds=3)
    state = withdraw(state, EntrantId("p1"))
    # p1's pending round-1 pairing becomes a forfeit win for p4 at once.
    assert seats(state) == ["5-2", "3-6"]
    state = play_round(state, {"5-2": DRAW, "3-6": LOSS}, "r1")
    table = {s.entrant: s for s in standings(state)}
    assert table["p4"].played == 0 and table["p4"].wins == 1
    assert table["p1"].points == 0 and table["p4"].points == 1
    assert all("p1" not in p.participants for p in next_pairings(state))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 17), st.integers(1, 8), st.integers(0, 2**32), st.booleans())
def test_no_rematches_and_at_most_one_bye_each(n: int, rounds: int, seed: int, chaos: bool) -> None:
    rng = random.Random(seed)
    state = event(Format.SWISS, n, rounds=min(rounds, n - 1 + n % 2))
    decide = random_decider(rng, draw_chance=0.2)
    for _ in range(1000):
        pending = next_pairings(state)
        if not pending:
            break
        for p in pending:
            if chaos and rng.random() < 0.05:
                loser = p.participants[1]
                state = record_result(state, Report(p.key, MatchId(f"{p.key}/ff"), (1, 2), (loser,)))
            elif chaos and rng.random() < 0.03:
                state = withdraw(state, p.participants[0])
            else:
                report = Report(p.key, MatchId(f"{p.key}/{p.games_played}"), decide(p, 0))
                state = record_result(state, report)
                assert record_result(state, report) == state
    plan = schedule(state)
    assert plan.finished
    met = [frozenset(v.pairing.participants) for v in plan.pairings]
    assert len(met) == len(set(met)), "a pair met twice"
    byes = [b.entrant for b in plan.byes]
    assert len(byes) == len(set(byes)), "a player had two byes"
    for number in {v.pairing.round for v in plan.pairings}:
        seated = [e for v in plan.pairings if v.pairing.round == number for e in v.pairing.participants]
        seated += [b.entrant for b in plan.byes if b.round == number]
        assert len(seated) == len(set(seated))
    if not chaos and n % 2 == 0 and rounds <= n // 2:
        # Below n/2 rounds a rematch-free pairing always exists (Dirac): the event runs to the end.
        assert len({v.pairing.round for v in plan.pairings}) == rounds
    assert sorted(s.entrant for s in standings(state)) == sorted(players(n))
