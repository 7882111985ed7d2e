"""The worked examples of the Combat Playbook (rulebook section 2.5), with their exact dice.

Dice order in the engine: the attacker's d20, then the defender's d20 (section 2.5 prints the
defender's roll first in counterattack lines; the totals are what count).
"""

from __future__ import annotations

from tests.games.scrumbrawl.helpers import build, chance, events


def test_2_5_1_standard_attack_centipede_kills_cyclops() -> None:
    """2.5.1: Centipede 14 + 5A = 19 against Cyclops 6 + 5D = 11: hit, the Cyclops is destroyed."""
    m, (centipede, cyclops) = build([("Centipede", 0, (5, 5)), ("Cyclops", 1, (5, 6))], dice=[14, 6])
    m.apply(f"attack:{centipede}:{cyclops}")
    strike = events(m, "strike")[0].data
    assert (strike["attack_total"], strike["defense_total"], strike["result"]) == (19, 11, "hit")
    assert cyclops not in m.creatures and m.skins[0] == ["Cyclops"]
    assert m.creatures[centipede].pos == (5, 5), "the attacker stays on its square"
    assert chance(m).remaining == 0


def test_2_5_2_standard_counterattack_bull_toad_kills_ambrosian_knight() -> None:
    """2.5.2: Knight 7 + 5A = 12 vs Toad 16 + 5D = 21 miss; counter Toad 15 + 4A = 19 vs Knight 5 + 4D = 9 hit."""
    m, (knight, toad) = build([("Ambrosian Knight", 0, (5, 5)), ("Bull Toad", 1, (6, 6))], dice=[7, 16, 15, 5])
    m.apply(f"attack:{knight}:{toad}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "counter" and decision.seat == 1
    m.apply("counter")
    totals = [(e.data["attack_total"], e.data["defense_total"], e.data["result"]) for e in events(m, "strike")]
    assert totals == [(12, 21, "miss"), (19, 9, "hit")]
    assert knight not in m.creatures and toad in m.creatures
    assert m.skins[1] == ["Ambrosian Knight"]
    assert chance(m).remaining == 0


def test_2_5_3_ranged_attack_dragon_vs_skeleton_tie_fails_natural_1_misses_no_counter() -> None:
    """2.5.3: Dragon 12 + 6 = 18 vs Skeleton 14 + 4 = 18 (a tie fails); second attack a natural 1 misses;
    the Skeleton is out of reach and cannot counterattack."""
    m, (dragon, skeleton) = build([("Dragon", 0, (5, 5)), ("Skeleton", 1, (5, 7))], dice=[12, 14, 1, 2])
    m.apply(f"attack:{dragon}:{skeleton}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "attack"
    m.apply(f"attack:{dragon}:{skeleton}")
    totals = [(e.data["attack_total"], e.data["defense_total"], e.data["result"]) for e in events(m, "strike")]
    assert totals == [(18, 18, "miss"), (7, 6, "miss")], "a natural 1 misses even though 7 > 6"
    decision = m.to_move()
    assert decision is not None and decision.kind == "act", "no counterattack window: the Skeleton cannot reach"
    assert dragon in m.creatures and skeleton in m.creatures and m.creatures[dragon].done
    assert chance(m).remaining == 0


def test_2_5_3_ranged_defender_may_counter_a_ranged_attacker_in_its_range() -> None:
    """2.5.3: had the Dragon attacked a Centaur (Range Attack 4), the Centaur could counterattack."""
    m, (dragon, centaur) = build([("Dragon", 0, (5, 5)), ("Centaur", 1, (5, 7))], dice=[2, 10, 3, 10])
    m.apply(f"attack:{dragon}:{centaur}")
    m.apply("stop")
    decision = m.to_move()
    assert decision is not None and decision.kind == "counter" and decision.seat == 1


def test_2_5_4_attack_on_enchanted_creature_fire_giant_vs_nightmare() -> None:
    """2.5.4: Fire Giant 19 + 8A = 27 vs Nightmare 16 + 5D = 21: the hit removes the enchantment;
    counter Nightmare 15 + 7A = 22 vs Fire Giant 5 + 8D = 13: the Fire Giant is destroyed."""
    m, (giant, nightmare) = build(
        [("Fire Giant", 0, (5, 5)), ("Nightmare", 1, (5, 6))], enchant={1: "Aura of Deflection"}, dice=[19, 16, 15, 5]
    )
    m.apply(f"attack:{giant}:{nightmare}")
    assert m.creatures[nightmare].enchant is None and nightmare in m.creatures
    m.apply("counter")
    totals = [(e.data["attack_total"], e.data["defense_total"], e.data["result"]) for e in events(m, "strike")]
    assert totals == [(27, 21, "hit"), (22, 13, "hit")]
    assert giant not in m.creatures
    assert chance(m).remaining == 0


def test_2_5_5_minotaur_charge_gives_plus_4_and_throws_the_survivor_back_two_squares() -> None:
    """2.5.5: charging the last three squares straight at the Yeti: 10 + 6A + 4 = 20. The printed line gives
    the Yeti 5D (19); the Bestiary gives it D 7, so the engine totals 21: the Yeti survives, cannot
    counterattack, and is thrown two squares along the charge."""
    m, (minotaur, yeti) = build([("Minotaur", 0, (10, 3)), ("Yeti", 1, (10, 8))], dice=[10, 14])
    m.apply(f"charge:{minotaur}:{yeti}:e")
    strike = events(m, "strike")[0].data
    assert (strike["attack_total"], strike["defense_total"]) == (20, 21)
    assert m.creatures[minotaur].pos == (10, 7)
    assert m.creatures[yeti].pos == (10, 10)
    decision = m.to_move()
    assert decision is not None and decision.kind == "act", "a charged creature may not counterattack"
    assert chance(m).remaining == 0


def test_2_5_5_minotaur_charge_miss_throws_yeti_off_the_arena_and_destroys_it() -> None:
    """2.5.5: 2 + 6A + 4 = 12 misses; thrown beyond the edge of the Arena, the Yeti is destroyed."""
    m, (minotaur, yeti) = build([("Minotaur", 0, (10, 15)), ("Yeti", 1, (10, 19))], dice=[2, 14])
    m.apply(f"charge:{minotaur}:{yeti}:e")
    assert events(m, "strike")[0].data["attack_total"] == 12
    assert yeti not in m.creatures
    assert chance(m).remaining == 0


def test_2_5_5_enchanted_charge_target_loses_enchantment_and_is_thrown() -> None:
    """2.5.5: "If Yeti was enchanted, it would lose the enchantment and be thrown backward"."""
    m, (minotaur, yeti) = build(
        [("Minotaur", 0, (10, 3)), ("Yeti", 1, (10, 8))], enchant={1: "Aura of Deflection"}, dice=[15, 2]
    )
    m.apply(f"charge:{minotaur}:{yeti}:e")
    assert m.creatures[yeti].enchant is None and m.creatures[yeti].pos == (10, 10)
