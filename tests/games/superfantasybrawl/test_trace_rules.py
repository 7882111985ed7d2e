"""Scenario tests for seed sentences the other rules tests did not yet pin (docs/rules/superfantasybrawl-trace.md).

Each test quotes the seed sentence it enforces (seed 000 Italian, seed 001 Japanese, with an English
rendering) and builds the exact position with ``scenario.build``.
"""

from __future__ import annotations

from referee.core import Seat
from tests.games.superfantasybrawl.helpers import build, events, ids, play

FAR = {"oska": {"seat": 1, "hex": (-4, 4)}}


def test_allies_never_include_the_cards_own_champion() -> None:
    """Seed 000: "quando la carta di Campione ha un effetto che si riferisce ad Alleati o ad un Alleato, NON include
    il Campione a cui appartiene la carta" (an effect on Allies does not include the card's own champion); seed 001
    says the same. Wren's Call to Side targets an Ally: alone, Wren has no target; with Brannoc near, only him.
    """
    m = build({"wren": {"seat": 0, "hex": (0, -2)}, **FAR}, hands=[["wre2"], []])
    play(m, "card:wre2")
    assert events(m, "no_target") == [{"champion": "wren", "card": "wre2"}]
    m = build(
        {"wren": {"seat": 0, "hex": (0, -2)}, "brannoc": {"seat": 0, "hex": (2, -2)}, **FAR}, hands=[["wre2"], []]
    )
    play(m, "card:wre2")
    assert ids(m) == ["target:brannoc", "skill:decline"]


def test_movement_is_optional_allies_are_passed_not_ended_on_and_enemies_block() -> None:
    """Seed 000: "non devono necessariamente percorrere tutta la distanza; possono anche restar fermi" (they need
    not use all the movement; they may stay), "Esagoni contenenti Statue o Nemici sono bloccati" (statues and
    Enemies block), "I Campioni possono attraversare esagoni contenenti Alleati (ma non fermarsi sopra)" (Allies may
    be passed, not ended on). Tavi's Move 2: q1r-1 is reachable only through the Ally on q0r-1; q-1r-3 only
    through the Enemy on q-1r-2.
    """
    m = build(
        {
            "tavi": {"seat": 0, "hex": (-1, -1)},
            "brannoc": {"seat": 0, "hex": (0, -1)},
            "oska": {"seat": 1, "hex": (-1, -2)},
        }
    )
    play(m, "std:move2:tavi:blue")
    d = m.to_move()
    assert d is not None and d.kind == "move" and d.default_option_id == "move:stay" and "move:stay" in ids(m)
    assert "move:q1r-1" in ids(m) and "move:q0r-1" not in ids(m)
    assert "move:q-1r-2" not in ids(m) and "move:q-1r-3" not in ids(m)


def test_a_champion_out_of_action_cannot_be_targeted_and_returns_only_with_movement() -> None:
    """Seed 000: "Mentre è in attesa, non può essere influenzato dagli effetti delle carte, non può mai essere preso
    di mira" (while on its Gate it cannot be affected or targeted) and "il giocatore deve usare un'azione per
    muovere quel Campione di nuovo nell'arena" (an action must move it back in). Seed 001: "行動不能となっている戦士
    は、アクションカードを使用して活性化させることはできません。ただしいったん闘技場に入った後は、残りの移動手段を使用し
    て..." read as: a card without movement cannot activate it. Greta on her Gate is no target; Tavi's Vault (no
    movement) is not offered while Tavi is on the Gate, Flurry (Move 2) is.
    """
    m = build(
        {
            "brannoc": {"seat": 0, "hex": (0, -1)},
            "greta": {"seat": 1, "hex": None},
            "tavi": {"seat": 1, "hex": (1, -1)},
        },
        hands=[["bra4"], []],
    )
    play(m, "card:bra4", "move:stay")
    assert ids(m) == ["target:tavi", "attack:decline"]
    m = build({"tavi": {"seat": 0, "hex": None}, **FAR}, hands=[["tav1", "tav3"], []])
    offered = [i for i in ids(m) if i.startswith("card:")]
    assert offered == ["card:tav1"]


def test_a_reaction_that_takes_the_attacker_out_scores_and_levels_up_the_reactions_champion() -> None:
    """Seed 001: "反応カードによっては、敵を行動不能にすることができます。これが起こったとき、反応カードの対象は可能で
    あればレベルアップし、そのプレイヤーは1VPを得ます" (a reaction may take an Enemy out of action; then the reaction's
    champion levels up if it can and its player gains 1 VP). Retaliate (2 damage to the attacker) on Korrin takes
    out Tavi, who had 2 HP left.
    """
    m = build(
        {"tavi": {"seat": 0, "hex": (0, -1), "damage": 3}, "korrin": {"seat": 1, "hex": (1, -1)}},
        hands=[["tav1"], ["kor6"]],
    )
    play(m, "card:tav1", "move:stay", "target:korrin", "react:kor6:korrin")
    assert m.champs["tavi"].hex is None
    assert m.vp == [0, 1]
    assert m.champs["korrin"].levelled
    assert events(m, "level_up") == [{"champion": "korrin"}]


def test_levelling_up_keeps_the_damage_on_the_new_side() -> None:
    """Seed 000: "Eventuali segnalini Danno vengono trasferiti sul nuovo lato" (damage tokens move to the new side);
    seed 001: "ダメージトークンをレベルアップした面に移動させます". Brannoc, 3 damage, takes out Tavi and flips with
    his 3 damage still on him.
    """
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1), "damage": 3}, "tavi": {"seat": 1, "hex": (1, -1), "damage": 3}},
        hands=[["bra4"], []],
    )
    play(m, "card:bra4", "move:stay", "target:tavi")
    assert m.champs["brannoc"].levelled and m.champs["brannoc"].damage == 3


def test_discard_piles_are_public_and_hands_are_not() -> None:
    """Seed 001: "各プレイヤーの捨て山は公開情報です" (each player's discard pile is public) and
    "各プレイヤーの手札は隠された情報です" (hands are hidden); seed 000: the discard pile "è sempre consultabile
    da chiunque".
    """
    m = build({"greta": {"seat": 0, "hex": (0, -1)}, **FAR}, hands=[["gre5", "gre3"], []])
    play(m, "card:gre5", "skill:use")
    seen_by_other = m.observe(Seat(1))
    mine = next(p for p in seen_by_other["players"] if p["seat"] == 0)
    assert mine["discard"] == ["gre5"]
    assert "gre3" not in str(seen_by_other)


def test_a_card_resolves_fully_before_the_next_is_played() -> None:
    """Seed 001: "アクションカードは、前に出したアクションカードが完全に解決されてからしかプレイすることができません"
    (an action card may only be played once the previous one has fully resolved). While Shield Bash resolves,
    no decision offers another card or standard action.
    """
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["bra1", "bra4"], []]
    )
    play(m, "card:bra1")
    kinds = []
    while m.to_move().kind != "main":  # type: ignore[union-attr]
        kinds.append(m.to_move().kind)  # type: ignore[union-attr]
        assert not any(i.startswith(("card:", "std:")) for i in ids(m))
        play(m, {"move": "move:stay", "attack_target": "target:tavi", "post_attack": "post:apply"}[kinds[-1]])
    assert kinds == ["move", "attack_target", "post_attack"] and "card:bra4" in ids(m)


def test_a_champion_placed_onto_a_trap_hex_springs_it() -> None:
    """Ruling A18.14 (rules-facts, house rule): Place is not movement (seed 000 'Luogo': "il campione viene rimosso
    dalla sua posizione originale e piazzato in una nuova posizione"), but traps trigger on a champion "entering"
    the hex however it got there (seed 000 'Trappole': "non importa se il Campione vi è andato spontaneamente,
    spinto o tirato"), so a champion placed on a trap springs it. Gloam's Shadow Shift onto q1r-2.
    """
    m = build(
        {"gloam": {"seat": 0, "hex": (0, -2)}, **FAR},
        hands=[["glo5"], []],
        traps={(1, -2): ("damage", 1)},
        supply=[("root", 0)],
    )
    play(m, "card:glo5", "skill:use", "place:q1r-2")
    assert m.champs["gloam"].hex == (1, -2) and m.champs["gloam"].damage == 1
    assert events(m, "trap_sprung")[0]["champion"] == "gloam"
