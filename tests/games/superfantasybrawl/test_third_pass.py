"""The Super Fantasy Brawl rules of the third rules pass (issue 24), one rule per test, each quoting the
seed sentence it enforces, with the exact position."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from referee.core import SeededChance
from referee.games.superfantasybrawl import SuperFantasyBrawl
from referee.games.superfantasybrawl.content import Content, build_content
from tests.games.superfantasybrawl.helpers import build, events, ids, play

FAR = {"oska": {"seat": 1, "hex": (-4, 4)}}


def _content_with(card_id: str, effects: list[dict[str, Any]]) -> Content:
    """The shipped content with one card's effects replaced: a test-only card."""
    base = resources.files("referee.games.superfantasybrawl").joinpath("data")
    names = ("map.json", "champions.json", "challenges.json", "traps.json")
    files = {n: json.loads(base.joinpath(n).read_text()) for n in names}
    for champ in files["champions.json"]["champions"]:
        for card in champ["cards"]:
            if card["id"] == card_id:
                card["effects"] = effects
    return build_content(files)


def test_draw_x_resolves_after_the_cards_champion_is_taken_out_of_action() -> None:
    """Seed 000: "Pesca X: pesca X carte." (Draw X: draw X cards): the player draws, whatever became of the
    champion. Dark Pact (1 damage to self, then Draw 2) with Nyx at 4 damage of 5 HP: the damage takes Nyx out
    of action (its own card, so the opponent scores 1 VP), and its player still draws the top two cards."""
    m = build(
        {"nyx": {"seat": 0, "hex": (0, -1), "damage": 4}, **FAR},
        hands=[["nyx5"], []],
        decks=[["nyx1", "nyx2", "nyx3"], []],
    )
    play(m, "card:nyx5", "skill:use")
    assert m.champs["nyx"].hex is None and m.vp == [0, 1]
    assert m.hands[0] == ["nyx3", "nyx2"] and m.decks[0] == ["nyx1"]
    assert events(m, "draw")[-1]["count"] == 2


def test_only_effects_on_a_champion_are_skipped_once_it_is_on_its_gate() -> None:
    """Seed 000: a champion on its Gate "non può essere influenzato dagli effetti delle carte" (cannot be
    affected by card effects), while "Pesca X: pesca X carte" and Plan X act on the player's cards. A test-only
    Dark Pact of 1 damage to self, Heal 2, Draw 1, Plan 1, with Nyx at 4 of 5: the Heal is skipped (Nyx is on its
    Gate with no damage), the Draw and the Plan resolve for the player."""
    content = _content_with(
        "nyx5",
        [
            {"kw": "damage", "who": "self", "value": 1},
            {"kw": "heal", "who": "self", "value": 2},
            {"kw": "draw", "who": "self", "value": 1},
            {"kw": "plan", "who": "self", "value": 1},
        ],
    )
    m = build(
        {"nyx": {"seat": 0, "hex": (0, -1), "damage": 4}, **FAR},
        hands=[["nyx5"], []],
        decks=[["nyx1", "nyx2"], []],
        content=content,
    )
    play(m, "card:nyx5", "skill:use")
    assert m.champs["nyx"].hex is None and m.champs["nyx"].damage == 0 and not events(m, "heal")
    assert m.hands[0] == ["nyx2"]
    d = m.to_move()
    assert d is not None and d.kind == "plan" and ids(m) == ["plan:nyx2", "plan:stop"]
    play(m, "plan:nyx2")
    assert m.decks[0] == ["nyx1", "nyx2"] and m.hands[0] == []


def test_mulligan_cards_go_back_into_the_deck_not_to_the_discard_pile() -> None:
    """Seed 000: "pescano una mano di 5 carte ... e possono scegliere di scartare qualsiasi numero di quelle carte
    e sostituirle" (draw 5, and may give up any number of them and replace them); seed 001 says nothing of the
    mulligan. "Scartare" names giving the cards up, not where they go, and the only rule that says where (A2.8)
    shuffles them back into the deck: after the first player redraws two, its discard pile (public, seed 000:
    "sempre consultabile da chiunque") is empty and the deck holds the 13 other cards, the two among them."""
    m = SuperFantasyBrawl().new_match(
        {"selection": "fixed", "teams": [["brannoc", "quill", "gloam"], ["tavi", "oska", "greta"]]}, 2, SeededChance(5)
    )
    play(m, "side:0")
    while m.to_move().kind == "setup_trap":  # type: ignore[union-attr]
        play(m, ids(m)[0])
    seat = m.to_move().seat  # type: ignore[union-attr]
    back = sorted(m.hands[seat])[:2]
    play(m, f"mulligan:{back[0]}+{back[1]}")
    assert m.discards[seat] == [] and not events(m, "hand_discarded")
    assert len(m.decks[seat]) == 13 and set(back) <= set(m.decks[seat])
    assert sorted([*m.hands[seat], *m.decks[seat]]) == sorted(
        c for champ in ("brannoc", "quill", "gloam") for c in m.content.champions[champ].cards
    )
