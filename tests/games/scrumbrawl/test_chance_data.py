"""Chance as data on ScrumBrawl: the dice an option rolls, enumerated with exact probabilities.

``Match.chance_outcomes(option_id)`` (the core contract, see docs/engine.md) applies the option to copies of
the match under an enumerating chance source, one branch per face of every d20 and d8, until the next
decision. The ScrumBrawl engine needs nothing for it: it draws every die through its ``chance`` attribute.
These tests check that the enumeration agrees with the rules' own arithmetic, computed here from the
printed numbers and the quoted rule, not from the engine.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.core.chance import SeededChance
from referee.core.ids import Seat
from referee.games.scrumbrawl.engine import SBMatch
from tests.games.scrumbrawl.helpers import build


def _hits(a_rating: int, d_rating: int) -> Fraction:
    """1.6.3 and 1.6.3 b, from the rule: the attack hits when d20 + A is greater than d20 + D, a natural 20 hits
    unless the defender also rolls a natural 20, a natural 1 misses."""
    hits = 0
    for a in range(1, 21):
        for d in range(1, 21):
            if a == 20:
                hits += d != 20
            elif a != 1:
                hits += a + a_rating > d + d_rating
    return Fraction(hits, 400)


def test_1_6_3_attack_outcomes_are_the_400_dice_pairs_with_the_rules_odds() -> None:
    """1.6.3: "take the attacking creature's attack rating (A) ... and roll a d20 ... If the attacker's combined
    roll value is greater than the defender's combined roll value, the defender is dealt a point of damage."
    Centipede (A 5) against Cyclops (D 5): 400 equally likely pairs, and the destroyed share is the rule's."""
    m, (cent, cyc) = build([("Centipede", 0, (5, 5)), ("Cyclops", 1, (5, 6))])
    before = [e.to_json() for e in m.events()]
    outcomes = m.chance_outcomes(f"attack:{cent}:{cyc}")
    assert len(outcomes) == 400 and all(o.probability == Fraction(1, 400) for o in outcomes)
    assert sum(o.probability for o in outcomes) == 1
    destroyed = sum((o.probability for o in outcomes if cyc not in o.match.creatures), Fraction(0))
    assert destroyed == _hits(5, 5)
    assert [e.to_json() for e in m.events()] == before and cyc in m.creatures, "the match itself is untouched"


def test_1_6_2_a_throw_outcomes_give_the_catch_odds() -> None:
    """1.6.2 a: "If the roll is less than or equal to the combined throw/catch ratings, the throw is successful";
    Yeti T 7 + Fire Giant C 4 + 4 (tribal: both purple) = 15, so 15 of the 20 faces catch. The five drops each go
    on to a loose-orb d8 (eight branches of 1/160)."""
    m, (yeti, giant) = build([("Yeti", 0, (5, 5)), ("Fire Giant", 0, (5, 9))], carry={0: "Leather Orb"})
    outcomes = m.chance_outcomes(f"throw:{yeti}:{giant}")
    caught = sum((o.probability for o in outcomes if o.match.creatures[giant].orb), Fraction(0))
    assert caught == Fraction(15, 20)
    assert len(outcomes) == 15 + 5 * 8 and sum(o.probability for o in outcomes) == 1
    for o in outcomes:
        o.scripted()  # every outcome replays exactly from its draws
    drop = next(o for o in outcomes if not o.match.creatures[giant].orb)
    assert [d.size for d in drop.draws] == [20, 8] and drop.probability == Fraction(1, 160)


def test_1_5_1_summon_outcomes_are_the_400_squares() -> None:
    """1.5.1: "The creature's position in the Arena is derived by rolling the red and blue d20s (2d20)": a summon
    on an empty Arena has 400 outcomes, one per square, each 1/400."""
    m, _ = build(hands={0: ["Yeti"]}, phase="place")
    option = next(o.id for o in m.legal_options() if o.kind == "summon")
    outcomes = m.chance_outcomes(option)
    squares = {next(c.pos for c in o.match.creatures.values()) for o in outcomes}
    assert len(outcomes) == 400 and len(squares) == 400


def test_1_6_2_loose_orb_rerolls_need_a_depth() -> None:
    """1.6.2: "If the loose orb placement would place the orb outside the Arena, reroll the loose orb placement from
    the same location": from a corner the rerolls never have to end, so the full tree is unbounded. Enumerating it
    stops at the limit with a clear error; with a depth the later rolls are sampled and the outcomes still sum to 1."""
    m, (yeti, skel) = build([("Yeti", 0, (3, 3)), ("Skeleton", 0, (1, 1))], carry={0: "Leather Orb"})
    option = f"throw:{yeti}:{skel}"
    with pytest.raises(ValueError, match="depth"):
        m.chance_outcomes(option, limit=500)
    outcomes = m.chance_outcomes(option, depth=2, sample=SeededChance(4))
    assert sum(o.probability for o in outcomes) == 1
    assert any(o.sampled for o in outcomes) and not all(o.sampled for o in outcomes)
    # Yeti T 7 + Skeleton C 2, no tribal bonus (purple, red): 9 of 20 faces catch; the drops are what branch on.
    assert sum((o.probability for o in outcomes if o.match.creatures[skel].orb), Fraction(0)) == Fraction(9, 20)


def _pass_alter(m: SBMatch) -> SBMatch:
    """Answers "pass" for every seat of the pending Alter Reality windows (each roll opens one)."""
    while (d := m.to_move()) is not None and d.kind == "alter_reality":
        m.apply("pass")
    return m


def test_a_window_before_the_dice_is_a_decision_not_a_chance_node() -> None:
    """2.3 Dispel "at any time": every seat is asked before an attack's dice (docs/rules/scrumbrawl.md, window
    points) while an enchantment is in play to Dispel, so in a real match the attack option rolls nothing yet: its
    one outcome is the window. The dice are enumerated from the decision that rolls them, the last pass."""
    m, (cent, cyc) = build(
        [("Centipede", 0, (5, 5)), ("Cyclops", 1, (5, 6))], enchant={0: "Raging Valor"}, auto_pass=False
    )
    (outcome,) = m.chance_outcomes(f"attack:{cent}:{cyc}")
    assert outcome.draws == () and outcome.probability == 1
    after = outcome.match
    decision = after.to_move()
    assert decision is not None and decision.kind == "dispel_window"
    while (decision := after.to_move()) is not None and decision.kind == "dispel_window":
        rest = after.chance_outcomes("pass")
        if rest[0].draws:
            # 1.5.3: after the dice every seat is asked the Alter Reality window; all pass, the strike resolves.
            destroyed = sum((o.probability for o in rest if cyc not in _pass_alter(o.match).creatures), Fraction(0))
            assert len(rest) == 400 and destroyed == _hits(5 + 3, 5), "Raging Valor: +3 A"
            break
        after = rest[0].match
    else:
        pytest.fail("no decision of the window rolled the attack dice")


def test_a_search_bot_enumerates_in_its_own_determinized_world() -> None:
    """Chance as data for search bots: a bot plans on ``determinize(me, ...)``, never on the referee's match; the
    enumeration there gives the same odds (the dice are public) and leaves both matches as they were."""
    m, (cent, cyc) = build([("Centipede", 0, (5, 5)), ("Cyclops", 1, (5, 6))], hands={1: ["Troll"]})
    world = m.determinize(Seat(0), SeededChance(9))
    outcomes = world.chance_outcomes(f"attack:{cent}:{cyc}")
    destroyed = sum((o.probability for o in outcomes if cyc not in o.match.creatures), Fraction(0))
    assert destroyed == _hits(5, 5)
    assert cyc in m.creatures and cyc in world.creatures
