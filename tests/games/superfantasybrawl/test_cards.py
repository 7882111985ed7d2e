"""Every card of the roster is played at least once, from an explicit position (issue: 'every card has a test').

For each card the position gives it a legal target: the card's champion on q-1r-1 and an Enemy
along the same hex row at the card's minimum range (or an Ally, for skills that target Allies).
Reactions are played by the card's champion's player against a melee attack. The test then
resolves the card with simple choices and checks that it reached the discard pile and did what
its type does (an attack is declared, a skill is used, a reaction is played).
"""

from __future__ import annotations

import pytest

from referee.games.superfantasybrawl.game import CONTENT
from referee.games.superfantasybrawl.match import BrawlMatch
from tests.games.superfantasybrawl.helpers import build

ROSTER = sorted(CONTENT.champions)
ORIGIN = (-1, -1)


def _others(*taken: str) -> list[str]:
    return [c for c in ROSTER if c not in taken]


def _pick(m: BrawlMatch) -> str:
    d = m.to_move()
    assert d is not None
    ids = [o.id for o in m.legal_options()]
    # Stay put for the card's movement and for pre-attack moves, so the target stays in reach.
    if d.kind == "move" or (d.kind in ("dash", "jump") and m.attack == {}):
        return f"{d.kind}:stay" if f"{d.kind}:stay" in ids else ids[0]
    if d.kind == "reaction":
        return ids[0]
    for i in ids:
        if not i.endswith((":stay", ":stop", ":decline", ":none", ":pass", ":0")):
            return i
    return ids[0]


def _resolve(m: BrawlMatch, seat: int) -> None:
    for _ in range(40):
        d = m.to_move()
        if d is None or (d.kind == "main" and d.seat == seat):
            return
        m.apply(_pick(m))
    raise AssertionError("the card did not resolve within 40 decisions")


@pytest.mark.parametrize("card_id", sorted(CONTENT.cards))
def test_card_is_playable_and_resolves(card_id: str) -> None:
    """Each card resolves from a position where it has a target (A6, A11 attacks, A12 reactions, A13 skills)."""
    card = CONTENT.cards[card_id]
    me = card.champion
    if card.type == "reaction":
        attacker = _others(me)[0]
        melee = next(
            c
            for c in CONTENT.champions[attacker].cards
            if CONTENT.cards[c].type == "attack" and CONTENT.cards[c].attack.shape == "melee"
        )  # type: ignore[union-attr]
        m = build(
            {attacker: {"seat": 0, "hex": (0, -1)}, me: {"seat": 1, "hex": (1, -1)}},
            hands=[[melee], [card_id]],
            decks=[[], ["x"] * 0],
        )
        m.apply(f"card:{melee}")
        while m.to_move().kind != "reaction":  # type: ignore[union-attr]
            m.apply(_pick(m))
        m.apply(f"react:{card_id}:{me}")
        _resolve(m, 0)
        assert card_id in m.discards[1]
        assert [e.data["card"] for e in m.events() if e.kind == "reaction"] == [card_id]
        return
    enemy, ally = _others(me)[:2]
    champs = {me: {"seat": 0, "hex": ORIGIN}}
    if card.type == "attack":
        assert card.attack is not None
        dist = 1 if card.attack.shape == "aoe" else card.attack.min_range
        champs[enemy] = {"seat": 1, "hex": (ORIGIN[0] + dist, ORIGIN[1])}
    else:
        assert card.target is not None
        dist = max(1, card.target.min_range)
        if card.target.kind == "enemy":
            champs[enemy] = {"seat": 1, "hex": (ORIGIN[0] + dist, ORIGIN[1])}
        else:
            champs[enemy] = {"seat": 1, "hex": (-4, 4)}
            champs[ally] = {"seat": 0, "hex": (ORIGIN[0] + dist, ORIGIN[1])}
    m = build(
        champs,
        hands=[[card_id, *[c for c in CONTENT.champions[me].cards if c != card_id][:2]], []],
        decks=[[c for c in CONTENT.champions[ally].cards], []],
    )
    m.apply(f"card:{card_id}")
    _resolve(m, 0)
    assert card_id in m.discards[0]
    kinds = [e.kind for e in m.events()]
    assert kinds[0] == "card_played"
    if card.type == "attack":
        assert "attack" in kinds
        assert any(k in kinds for k in ("damage", "attack_roll"))
    else:
        assert "skill" in kinds
