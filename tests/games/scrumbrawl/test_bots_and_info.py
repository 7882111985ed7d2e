"""House bots, hidden information, determinism and a long soak (slow)."""

from __future__ import annotations

import time

import pytest

from referee.core.bots import RandomPolicy
from referee.core.chance import SeededChance
from referee.core.conformance import check_no_leak, check_replay_roundtrip, random_playout
from referee.core.ids import Seat
from referee.games.scrumbrawl import ScrumBrawl
from referee.games.scrumbrawl.bots import HOUSE_BOTS, HeuristicPolicy
from tests.games.scrumbrawl.test_conformance import ChipsNeverDecrease

GAME = ScrumBrawl()


def _duel(seed: int) -> bool:
    """Plays heuristic against random (seats alternate); returns whether the heuristic ranked alone first."""
    match = GAME.new_match(GAME.parse_config({}, 2), 2, SeededChance(seed))
    h = seed % 2
    bots = {h: HeuristicPolicy(seed), 1 - h: RandomPolicy(seed)}
    while (decision := match.to_move()) is not None:
        choice = bots[decision.seat].choose(decision, match.observe(decision.seat), match.legal_options())
        match.apply(choice)
    outcome = match.outcome()
    assert outcome is not None
    return outcome.ranks[h] == 1 and outcome.ranks[1 - h] == 2


def test_house_bots_are_exported() -> None:
    """The registry of house bots names random and heuristic."""
    assert set(HOUSE_BOTS) == {"random", "heuristic"} and HOUSE_BOTS["random"] is RandomPolicy


def test_heuristic_beats_random_in_at_least_80_percent_of_50_games() -> None:
    """The default suite's sample of the test below (seeds 0..49)."""
    wins = sum(_duel(seed) for seed in range(50))
    assert wins >= 40, f"heuristic won {wins} of 50"


@pytest.mark.slow
def test_heuristic_beats_random_in_at_least_80_percent_of_200_games() -> None:
    """The heuristic bot plays the objective and beats random play (fixed seeds 0..199)."""
    wins = sum(_duel(seed) for seed in range(200))
    assert wins >= 160, f"heuristic won {wins} of 200"


def test_spectator_sees_no_hand_and_a_seat_sees_only_its_own() -> None:
    """Hidden information: observe(None) has no hand; observe(seat) shows that seat's hand only."""
    match = GAME.new_match(GAME.parse_config({}, 2), 2, SeededChance(5))
    assert match.observe(None)["hand"] == []
    mine = {c["card"] for c in match.observe(Seat(0))["hand"]}
    assert mine == set(match.hands[0]) and not mine & set(match.hands[1])


def test_determinize_keeps_the_viewers_view_and_redeals_the_rest() -> None:
    """determinize(viewer) keeps what the viewer sees and deals the other hands and the deck anew."""
    match = GAME.new_match(GAME.parse_config({}, 2), 2, SeededChance(5))
    other = match.determinize(Seat(0), SeededChance(99))
    assert other.observe(Seat(0)) == match.observe(Seat(0))
    assert other.deck != match.deck
    assert sorted(other.deck + other.hands[1]) == sorted(match.deck + match.hands[1])


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_soak_thousands_of_games() -> None:
    """Soak (slow): thousands of seeded random games over every table size and variant. Every step checks the
    ScrumBrawl invariants; every 10th game also checks the replay round trip and, at its end, the leak check."""
    start = time.perf_counter()
    total = 0
    ends: dict[str, int] = {}
    plan = [
        (2, {"max_rounds": 10}, 1600),
        (3, {"max_rounds": 6}, 500),
        (4, {"max_rounds": 5}, 400),
        (4, {"teams": True, "max_rounds": 5}, 400),
        (3, {"last_man_standing": True, "max_rounds": 6}, 150),
        (2, {"creature_draft": True, "max_rounds": 6}, 150),
    ]
    for seats, config, games in plan:
        invariant = ChipsNeverDecrease()
        for seed in range(10_000, 10_000 + games):
            try:
                rec = random_playout(GAME, seats, seed, config, on_step=lambda r, _step, inv=invariant: inv(r.match))
            except AssertionError as exc:
                raise AssertionError(f"{seats} seats {config}, seed {seed}: {exc}") from exc
            outcome = rec.outcome()
            assert outcome is not None
            ends[outcome.termination.value] = ends.get(outcome.termination.value, 0) + 1
            if seed % 10 == 0:
                check_replay_roundtrip(rec)
                check_no_leak(rec.match, seats, seed)
            total += 1
    print(f"soak: {total} games in {time.perf_counter() - start:.0f} s, endings {ends}")
    assert total == sum(g for _, _, g in plan)


def test_determinize_keeps_the_public_bottom_of_the_orb_deck() -> None:
    """An orb card returned face up to the bottom of the orb deck stays there in every re-deal."""
    from tests.games.scrumbrawl.helpers import build

    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, portals={"p0": (5, 7)}, dice=[1, 1, 20, 20])
    m.apply(f"move:{yeti}:r5c7")
    assert m.orb_deck[-1] == "Leather Orb"
    for salt in range(10):
        other = m.determinize(Seat(1), SeededChance(salt))
        assert other.orb_deck[-1] == "Leather Orb"
        assert sorted(other.orb_deck) == sorted(m.orb_deck)
