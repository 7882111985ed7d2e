"""Chance as data for Super Fantasy Brawl: every random pick an option makes, enumerated through the contract.

The game's dice during play are the face-down trap token drawn from the supply (seed-it 'Trappole':
"viene preso un nuovo segnalino trappola dalla riserva senza guardare il tipo") and the shuffle of
the discard pile into an empty deck (seed-ja 'カードドロー'). The engine has no code for this: the
generic ``Match.chance_outcomes`` runs each option under an enumerating chance source.
"""

from __future__ import annotations

from fractions import Fraction

from referee.core import EVERYONE, ScriptedChance, Seat
from referee.core.conformance import random_playout
from referee.games.superfantasybrawl import SuperFantasyBrawl
from tests.games.superfantasybrawl.helpers import build, ids, play

SUPPLY = [("damage", 1), ("damage", 2), ("root", 0), ("stun", 0)]


def _trap_replace_decision() -> object:
    m = build(
        {"tavi": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (4, -4)}},
        traps={(1, -2): ("damage", 1)},
        supply=list(SUPPLY),
    )
    play(m, "std:move2:tavi:blue", "move:q1r-2")
    assert m.to_move().kind == "trap_replace"  # type: ignore[union-attr]
    return m


def test_a_new_trap_token_is_one_outcome_per_token_in_the_supply_each_equally_likely() -> None:
    """Seed-it: a new trap token is taken from the supply without looking; the supply holds the 4 tokens above
    plus the one just sprung, so placing it has 5 outcomes of 1/5, each putting that token face down."""
    m = _trap_replace_decision()
    supply = list(m.trap_supply)  # type: ignore[attr-defined]
    outcomes = m.chance_outcomes("trap:q3r-2")  # type: ignore[attr-defined]
    assert [o.rolls for o in outcomes] == [[0], [1], [2], [3], [4]]
    assert all(o.probability == Fraction(1, 5) for o in outcomes) and sum(o.probability for o in outcomes) == 1
    assert [o.match.traps[(3, -2)] for o in outcomes] == supply
    assert m.traps == {}  # type: ignore[attr-defined]  # the real match did not move


def test_each_outcome_replayed_with_scripted_chance_gives_the_stated_match() -> None:
    """Replaying an outcome's draws with ScriptedChance reproduces its events and every seat's view."""
    m = _trap_replace_decision()
    for outcome in m.chance_outcomes("trap:q3r-2"):  # type: ignore[attr-defined]
        script = outcome.scripted()
        replay = m.with_chance(script)  # type: ignore[attr-defined]
        replay.apply("trap:q3r-2")
        assert script.remaining == 0
        assert replay.events(0, EVERYONE) == outcome.match.events(0, EVERYONE)
        assert all(replay.observe(Seat(s)) == outcome.match.observe(Seat(s)) for s in (0, 1))


def test_a_reshuffled_deck_is_one_sampled_outcome_described_by_its_size() -> None:
    """Seed-ja 'カードドロー': drawing from an empty deck shuffles the discard pile into a new deck. The upkeep's
    draw of 5 with 3 cards in the deck shuffles a discard pile of 3 (the two cards of the hand and bra6): the
    shuffle is not enumerated, it is one outcome of probability 1, marked sampled, with its size."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -2)}, "tavi": {"seat": 1, "hex": (4, -4)}},
        hands=[["bra1", "bra2"], []],
        decks=[["bra3", "bra4", "bra5"], []],
        discards=[["bra6"], []],
        cores=[{"red": False}, {}],
    )
    assert m.to_move().kind == "main" and "end" in ids(m)  # type: ignore[union-attr]
    outcomes = m.chance_outcomes("end")
    assert len(outcomes) == 1 and outcomes[0].probability == 1 and outcomes[0].sampled
    assert [(d.kind, d.size) for d in outcomes[0].draws] == [("shuffle", 3)]
    script = outcomes[0].scripted()
    replay = m.with_chance(script)
    replay.apply("end")
    assert replay.hands == outcomes[0].match.hands and replay.decks == outcomes[0].match.decks


def test_probabilities_sum_to_one_for_every_option_along_seeded_games() -> None:
    """On two seeded random games, at every 7th decision, every option's outcomes sum to probability 1 and the
    first outcome replays exactly; a deterministic option is one certain outcome equal to applying it."""
    game = SuperFantasyBrawl()
    checked = branching = 0

    def check(rec: object, step: int) -> None:
        nonlocal checked, branching
        m = rec.match  # type: ignore[attr-defined]
        if step % 7 or m.to_move() is None:
            return
        for option in m.legal_options()[:6]:
            outcomes = m.chance_outcomes(option.id)
            assert sum(o.probability for o in outcomes) == 1
            branching += len(outcomes) > 1
            first = outcomes[0]
            replay = m.with_chance(ScriptedChance(rolls=first.rolls, shuffles=[list(p) for p in first.shuffles]))
            replay.apply(option.id)
            assert replay.events(0, EVERYONE) == first.match.events(0, EVERYONE)
            checked += 1

    for seed in (3, 4):
        random_playout(game, 2, seed, {"round_cap": 4}, on_step=check)
    assert checked > 50 and branching > 0  # seeds 3 and 4 reach trap replacements, so real chance nodes are met
