"""The four divergences of issue 13, each enforced as the seeds state it (seeds win over any other source).

- Post-attack abilities are the attacker's choice (seed 000, 'Attacco').
- "Away" is measured after the move, and Fear still Dashes as far as it can (seed 001 向かう/遠ざかる;
  seed 000 'Paura X').
- Draw X draws X cards (seed 000 'Pesca X').
- "Towards" is a keyword a card can name (seed 001 向かう/遠ざかる).

Every test builds the exact position with ``scenario.build``; no test here rolls a die.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from referee.core import ContentError, Seat
from referee.games.superfantasybrawl.content import Content, build_content
from referee.games.superfantasybrawl.hexes import parse_hex
from referee.games.superfantasybrawl.movement import away, towards
from tests.games.superfantasybrawl.helpers import build, events, ids, play

# --- 1. post-attack abilities are optional ------------------------------------------------------


def test_post_attack_ability_is_the_attackers_choice_and_decline_leaves_the_target() -> None:
    """Seed 000: "nel secondo caso l'attacco deve essere effettuato e poi il giocatore sceglie se applicare
    l'abilità o meno" (post-attack: the attack must be made, then the player chooses whether to apply the
    ability). Shield Bash (melee 2, post-attack Push 1) on Tavi, adjacent: the attacker is asked, the default
    on a late answer is to decline, and declining leaves Tavi where it stands.
    """
    champs = {"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}
    m = build(champs, hands=[["bra1"], []])
    play(m, "card:bra1", "move:stay", "target:tavi")
    d = m.to_move()
    assert d is not None and d.seat == Seat(0) and d.kind == "post_attack"
    assert d.default_option_id == "post:decline"
    assert ids(m) == ["post:apply", "post:decline"]
    assert m.legal_options()[0].params == {"card": "bra1", "champion": "tavi", "keyword": "push", "value": 1}
    play(m, "post:decline")
    assert m.champs["tavi"].hex == (1, -1) and m.champs["tavi"].damage == 1  # the attack itself was made
    assert events(m, "post_attack_declined") == [{"champion": "tavi", "card": "bra1", "keyword": "push"}]
    m = build(champs, hands=[["bra1"], []])
    play(m, "card:bra1", "move:stay", "target:tavi", "post:apply")
    assert m.champs["tavi"].hex == (2, -1)


def test_an_area_post_attack_ability_is_chosen_per_champion_so_an_ally_is_spared() -> None:
    """Seed 000 (as above) with seed 000 'Attacco ad area': the AoE hits Allies too, but the post-attack Push 2 of
    Gale is applied or declined for each champion it would move: Oska spares its Ally Brannoc and pushes Tavi.
    """
    m = build(
        {
            "oska": {"seat": 0, "hex": (-3, -1)},
            "brannoc": {"seat": 0, "hex": (-2, -1)},
            "tavi": {"seat": 1, "hex": (-1, -1)},
        },
        hands=[["osk3"], []],
    )
    play(m, "card:osk3", "aoe:0")
    asked = [o.params["champion"] for o in m.legal_options()]
    assert m.to_move().kind == "post_attack" and asked == ["brannoc", "brannoc"]  # type: ignore[union-attr]
    play(m, "post:decline")
    assert [o.params["champion"] for o in m.legal_options()] == ["tavi", "tavi"]
    play(m, "post:apply")
    assert m.champs["brannoc"].hex == (-2, -1)
    assert m.champs["tavi"].hex == (1, -1)  # pushed 2 along the row, away from Oska


def test_a_post_attack_move_with_its_own_stay_option_is_not_asked_twice() -> None:
    """Seed 000 (as above): Hit and Run's post-attack Jump 2 already offers ``jump:stay``, which is declining it,
    so no separate apply/decline question is asked.
    """
    m = build({"tavi": {"seat": 0, "hex": (0, -1)}, "oska": {"seat": 1, "hex": (1, -1)}}, hands=[["tav4"], []])
    play(m, "card:tav4")
    while m.to_move().kind != "jump":  # type: ignore[union-attr]
        assert m.to_move().kind != "post_attack"  # type: ignore[union-attr]
        m.apply("move:stay" if "move:stay" in ids(m) else "target:oska")
    assert "jump:stay" in ids(m)


# --- 2. away after the move; Fear Dashes as far as it can -----------------------------------------


def test_away_and_towards_compare_the_distance_after_the_whole_move() -> None:
    """Seed 001: "移動後の戦士とゲーム要素との間のヘクス数が移動前より多くなるように" (after the move, more hexes
    between the champion and the element than before; towards: fewer). A path's intermediate hexes do not matter.
    """
    statue = (0, 0)
    assert away((0, -1), (0, -3), statue) and not towards((0, -1), (0, -3), statue)
    assert towards((2, -3), (2, -1), statue) and not away((2, -3), (2, -1), statue)
    # Sideways: from 3 away to 3 away is neither.
    assert not away((2, -3), (1, -3), statue) and not towards((2, -3), (1, -3), statue)


def test_fear_offers_every_longest_dash_that_ends_further_away_including_sideways() -> None:
    """Seed 000: "deve scattare X in una direzione a sua scelta, purché sia lontano dalla fonte della paura" and
    "deve muovere il massimo dello scatto possibile"; seed 001 measures away after the move. Tavi, 1 hex from
    Gloam, is Feared 2: every Dash of 2 that ends further than 1 hex away is offered to Tavi's player, sideways
    ones included (q0r-3 ends 2 away although its first step stays 1 away); Dashes of 1 are not offered.
    """
    m = build({"gloam": {"seat": 0, "hex": (-1, -1)}, "tavi": {"seat": 1, "hex": (0, -1)}}, hands=[["glo3"], []])
    play(m, "card:glo3", "target:tavi")
    d = m.to_move()
    assert d is not None and d.seat == Seat(1) and d.kind == "fear"
    assert ids(m) == ["fear:q-2r1", "fear:q0r-3", "fear:q2r-3", "fear:q2r-1"]
    play(m, "fear:q0r-3")
    assert m.champs["tavi"].hex == (0, -3)


def test_a_cornered_champion_still_obeys_fear_by_dashing_sideways_further_away() -> None:
    """Seed 001 (away after the move) and seed 000 ('Paura X', as above): Tavi on the board's edge with Gloam
    adjacent cannot step straight away, but a Dash of 2 along the edge ends 2 away; it must take one.
    """
    m = build({"gloam": {"seat": 0, "hex": (0, -3)}, "tavi": {"seat": 1, "hex": (0, -4)}}, hands=[["glo3"], []])
    play(m, "card:glo3", "target:tavi")
    assert ids(m) == ["fear:q-2r-2", "fear:q2r-4"]
    play(m, "fear:q2r-4")
    assert m.champs["tavi"].hex == (2, -4)


def test_fear_with_no_dash_ending_further_away_does_not_move_the_champion() -> None:
    """Seed 001: "それができない場合、その戦士は移動しません" (if it cannot, the champion does not move), read for
    away as for towards. Tavi's only Dashes end as close to Gloam as it started, so Tavi stays; the log says so.
    """
    m = build(
        {
            "gloam": {"seat": 0, "hex": (0, -3)},
            "brannoc": {"seat": 0, "hex": (2, -4)},
            "quill": {"seat": 0, "hex": (-2, -2)},
            "tavi": {"seat": 1, "hex": (0, -4)},
        },
        hands=[["glo3"], []],
    )
    play(m, "card:glo3", "target:tavi")
    assert m.to_move().kind == "main"  # type: ignore[union-attr]
    assert m.champs["tavi"].hex == (0, -4)
    assert events(m, "ignored") == [{"champion": "tavi", "keyword": "fear", "reason": "no dash ends further away"}]


# --- 3. Draw X draws X ---------------------------------------------------------------------------


def test_draw_x_draws_exactly_x_cards_with_no_choice() -> None:
    """Seed 000: "Pesca X: pesca X carte." (Draw X: draw X cards). Steady Aim (Draw 2) draws the top two cards
    and asks nothing; with one card left the discard pile is shuffled in for the second (seed 001 'カードドロー').
    """
    far = {"oska": {"seat": 1, "hex": (-4, 4)}}
    m = build({"quill": {"seat": 0, "hex": (0, -1)}, **far}, hands=[["qui5"], []], decks=[["qui1", "qui2", "qui3"], []])
    play(m, "card:qui5", "move:stay", "skill:use")
    assert m.to_move().kind == "main"  # type: ignore[union-attr]
    assert m.hands[0] == ["qui3", "qui2"] and m.decks[0] == ["qui1"]
    m = build({"quill": {"seat": 0, "hex": (0, -1)}, **far}, hands=[["qui5"], []], decks=[["qui1"], []])
    play(m, "card:qui5", "move:stay", "skill:use")
    assert m.hands[0] == ["qui1", "qui5"] and events(m, "deck_reshuffled") == [{"seat": 0, "count": 1}]


# --- 4. towards as a keyword ---------------------------------------------------------------------


def _content_with(card_id: str, effects: list[dict[str, Any]]) -> Content:
    """The shipped content with one card's effects replaced: a test-only card."""
    base = resources.files("referee.games.superfantasybrawl").joinpath("data")
    files = {n: json.loads(base.joinpath(n).read_text()) for n in ("map.json", "champions.json", "challenges.json")}
    files["traps.json"] = json.loads(base.joinpath("traps.json").read_text())
    for champ in files["champions.json"]["champions"]:
        for card in champ["cards"]:
            if card["id"] == card_id:
                card["effects"] = effects
    return build_content(files)


def test_towards_a_statue_offers_only_dashes_that_end_nearer() -> None:
    """Seed 001: "移動後の戦士とゲーム要素との間のヘクス数が移動前より少なくなるように移動しなければなりません" (after
    the move the champion must be fewer hexes from the element than before). A test-only Vault reading "Dash 3
    towards the yellow statue", Tavi 3 hexes from it: only Dashes ending 1 or 2 away are offered.
    """
    content = _content_with("tav3", [{"kw": "dash", "who": "self", "value": 3, "towards": "statue:yellow"}])
    m = build(
        {"tavi": {"seat": 0, "hex": (2, -3)}, "oska": {"seat": 1, "hex": (-4, 4)}},
        hands=[["tav3"], []],
        content=content,
    )
    play(m, "card:tav3", "skill:use")
    offered = [i for i in ids(m) if i != "dash:stay"]
    assert sorted(offered) == sorted(
        ["dash:q1r-2", "dash:q0r-1", "dash:q-1r0", "dash:q2r-2", "dash:q2r-1", "dash:q2r0"]
    )
    assert all(towards((2, -3), parse_hex(i[5:]), (0, 0)) for i in offered)
    play(m, "dash:q0r-1")
    assert m.champs["tavi"].hex == (0, -1)


def test_towards_with_no_nearer_hex_does_not_move_and_away_from_the_source_works_for_a_target() -> None:
    """Seed 001 (as above) and "それができない場合、その戦士は移動しません" (if it cannot, it does not move):
    adjacent to the statue, no Dash ends nearer, so Tavi does not move. An "away from the source" Force on a
    skill's target keeps only the hexes further from the source.
    """
    content = _content_with("tav3", [{"kw": "dash", "who": "self", "value": 3, "towards": "statue:yellow"}])
    m = build(
        {"tavi": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (-4, 4)}},
        hands=[["tav3"], []],
        content=content,
    )
    play(m, "card:tav3", "skill:use")
    assert m.to_move().kind == "main" and m.champs["tavi"].hex == (1, -1)  # type: ignore[union-attr]
    assert events(m, "ignored")[0]["keyword"] == "dash"
    content = _content_with("glo3", [{"kw": "force", "who": "target", "value": 1, "away": "source"}])
    m = build(
        {"gloam": {"seat": 0, "hex": (-1, -1)}, "tavi": {"seat": 1, "hex": (0, -1)}},
        hands=[["glo3"], []],
        content=content,
    )
    play(m, "card:glo3", "target:tavi")
    assert sorted(i for i in ids(m) if i != "force:stay") == ["force:q1r-1", "force:q1r-2"]


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        ({"kw": "heal", "who": "self", "value": 1, "towards": "source"}, "only"),
        ({"kw": "dash", "who": "self", "value": 1, "towards": "source"}, "champion itself"),
        ({"kw": "dash", "who": "self", "value": 1, "away": "statue:green"}, "must be 'source'"),
        ({"kw": "dash", "who": "target", "value": 1, "away": "source", "towards": "source"}, "not both"),
    ],
)
def test_a_towards_or_away_effect_is_validated_at_load(effect: dict[str, Any], message: str) -> None:
    """Bad input gets a clear error: a towards/away on a non-movement keyword, on 'self' from 'source', an unknown
    element, or both at once, is refused when the content loads."""
    with pytest.raises(ContentError, match=message):
        _content_with("tav3", [effect])
