"""Chance sources: the generator is SplitMix64 exactly, rolls are fair, scripts are strict."""

from __future__ import annotations

import pytest

from referee.core import ChanceExhaustedError, ScriptedChance, SeededChance


def test_seeded_chance_is_splitmix64() -> None:
    # Reference outputs of SplitMix64 (Vigna's splitmix64.c) for seeds 0 and 1234567.
    zero = SeededChance(0)
    assert [zero._next64(), zero._next64()] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]
    other = SeededChance(1234567)
    assert [other._next64(), other._next64()] == [6457827717110365317, 3203168211198807973]


def test_rolls_stay_on_the_die_and_cover_every_face() -> None:
    chance = SeededChance(42)
    rolls = [chance.roll(20) for _ in range(4000)]
    assert set(rolls) == set(range(1, 21))
    counts = [rolls.count(face) for face in range(1, 21)]
    # 200 expected per face; a fair die stays well inside this band at this sample size.
    assert min(counts) > 140 and max(counts) < 260, counts


def test_same_seed_same_stream_and_every_draw_recorded() -> None:
    a, b = SeededChance(7), SeededChance(7)
    deck_a, deck_b = list(range(30)), list(range(30))
    a.shuffle(deck_a)
    b.shuffle(deck_b)
    assert deck_a == deck_b and deck_a != list(range(30))
    assert [a.roll(8), a.below(5)] == [b.roll(8), b.below(5)]
    assert [d.kind for d in a.draws] == ["shuffle", "roll", "below"]


def test_scripted_chance_plays_back_and_refuses_what_was_not_scripted() -> None:
    chance = ScriptedChance.of(17, 3)
    assert chance.roll(20) == 17
    with pytest.raises(ChanceExhaustedError, match="does not fit a roll of 2"):
        chance.roll(2)
    with pytest.raises(ChanceExhaustedError, match="no scripted outcome left"):
        chance.roll(6)


def test_scripted_shuffle_applies_the_permutation_or_keeps_the_order() -> None:
    chance = ScriptedChance(shuffles=[[2, 0, 1]])
    items = ["a", "b", "c"]
    chance.shuffle(items)
    assert items == ["c", "a", "b"]
    chance.shuffle(items)
    assert items == ["c", "a", "b"]
    with pytest.raises(ChanceExhaustedError):
        ScriptedChance(shuffles=[[0, 0, 1]]).shuffle(["x", "y", "z"])
