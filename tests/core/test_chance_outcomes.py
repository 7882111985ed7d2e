"""Chance as data: an option's dice are enumerable through the contract, with exact probabilities.

Checked on the test-only tiny game (a played card rolls a d6; a 6 doubles it; the deal is a
shuffle). Super Fantasy Brawl's own cases are in tests/games/superfantasybrawl/test_chance_outcomes.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.core import (
    ChanceOutcome,
    EnumeratingChance,
    IllegalOptionError,
    ScriptedChance,
    SeededChance,
    chance_outcomes,
)
from tests.conformance.tinygame import TinyGame, TinyMatch


def _match() -> TinyMatch:
    game = TinyGame()
    return game.new_match(game.default_config(2), 2, SeededChance(3))


def _play_option(m: TinyMatch) -> str:
    return next(o.id for o in m.legal_options() if o.id.startswith("play:") and o.id != "play:0")


def test_a_d6_gives_six_outcomes_of_one_sixth_and_leaves_the_match_untouched() -> None:
    m = _match()
    before = [e.to_json() for e in m.events()]
    option = _play_option(m)
    outcomes = m.chance_outcomes(option)
    assert [o.rolls for o in outcomes] == [[1], [2], [3], [4], [5], [6]]
    assert all(o.probability == Fraction(1, 6) for o in outcomes)
    assert sum(o.probability for o in outcomes) == 1
    assert not any(o.sampled for o in outcomes)
    assert [e.to_json() for e in m.events()] == before  # planning never touches the real match
    plays = [next(e for e in o.match.events() if e.kind == "play" and e.index >= len(before)) for o in outcomes]
    assert [p.data["roll"] for p in plays] == [1, 2, 3, 4, 5, 6]
    value = int(option.split(":")[1])
    points = [o.match.pending[1] if o.match.pending else o.match.scores[0] for o in outcomes]
    assert points == [value] * 5 + [2 * value]  # the 6 doubles the card


def test_each_outcome_replayed_with_scripted_chance_gives_its_match() -> None:
    m = _match()
    option = _play_option(m)
    for outcome in chance_outcomes(m, option):
        script = outcome.scripted()
        replay = m.with_chance(script)
        replay.apply(option)
        assert script.remaining == 0
        assert replay.events() == outcome.match.events()
        assert replay.observe(None) == outcome.match.observe(None)


def test_an_option_without_dice_is_one_certain_outcome() -> None:
    m = _match()
    outcomes = m.chance_outcomes("draw")
    assert len(outcomes) == 1
    only = outcomes[0]
    assert only.probability == 1 and only.draws == () and not only.sampled
    m.apply("draw")
    assert only.match.events() == m.events()


def test_an_outcome_match_plans_on_and_draws_later_dice_from_the_sample() -> None:
    m = _match()
    first = m.chance_outcomes(_play_option(m), sample=SeededChance(5))[0].match
    while first.to_move() is not None and not any(o.id.startswith("play:") for o in first.legal_options()):
        first.apply(first.legal_options()[0].id)
    if first.to_move() is not None:
        nxt = next(o.id for o in first.legal_options() if o.id.startswith("play:"))
        assert sum(o.probability for o in first.chance_outcomes(nxt)) == 1
        first.apply(nxt)  # the released enumerator rolls from the sample instead of branching


def test_shuffles_are_described_by_size_and_sampled_and_depth_and_limit_bound_the_walk() -> None:
    chance = EnumeratingChance([], SeededChance(1))
    deck = list(range(10))
    chance.shuffle(deck)
    assert chance.sampled and chance.draws[0].kind == "shuffle" and chance.draws[0].size == 10
    replay = list(range(10))
    ScriptedChance(shuffles=[list(chance.shuffles[0])]).shuffle(replay)
    assert replay == deck
    m = _match()
    shallow = m.chance_outcomes(_play_option(m), depth=0)
    assert len(shallow) == 1 and shallow[0].sampled and shallow[0].probability == 1
    with pytest.raises(ValueError, match="more than 3 chance outcomes"):
        m.chance_outcomes(_play_option(m), limit=3)


def test_an_illegal_option_is_refused_before_anything_is_copied() -> None:
    m = _match()
    with pytest.raises(IllegalOptionError, match="not a legal option"):
        m.chance_outcomes("play:99")
    assert isinstance(m.chance_outcomes("draw")[0], ChanceOutcome)
