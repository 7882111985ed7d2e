"""Team play, Last Man Standing and Simple Rules (rulebook section 1.8; B7, B8)."""

from __future__ import annotations

from referee.core.chance import ScriptedChance, SeededChance
from referee.games.scrumbrawl import ScrumBrawl, deck_names
from tests.games.scrumbrawl.helpers import build, option_ids


def test_1_8_teams_throw_to_a_teammates_creature_and_pool_chips() -> None:
    """1.8 / B7: in 2v2 a player may throw to a teammate's creature; chips are pooled per team."""
    m, (yeti, mate, foe) = build(
        [("Yeti", 0, (5, 5)), ("Fire Giant", 2, (5, 9)), ("Skeleton", 1, (5, 7))],
        seats=4,
        config={"teams": True},
        carry={0: "Leather Orb"},
        dice=[1],
    )
    ids = option_ids(m)
    assert f"throw:{yeti}:{mate}" in ids and f"throw:{yeti}:{foe}" not in ids
    m.apply(f"throw:{yeti}:{mate}")
    assert m.creatures[mate].orb == "Leather Orb"


def test_1_8_team_victory_ranks_both_teammates_first() -> None:
    """1.8: the first team to three chips, one blue, wins; teammates share the rank."""
    m, (yeti, skel) = build(
        [("Yeti", 2, (5, 5)), ("Skeleton", 1, (5, 6))], seats=4, config={"teams": True}, active=2, dice=[19, 1]
    )
    m.blue[0], m.red[0], m.skins[0] = 1, 1, ["Troll", "Lich"]
    m.apply(f"attack:{yeti}:{skel}")
    outcome = m.outcome()
    assert outcome is not None and outcome.ranks == (1, 2, 1, 2)


def test_1_8_teammates_creatures_are_not_attackable() -> None:
    """B7: a teammate's creature is friendly: no attack on it."""
    m, (yeti, mate) = build([("Yeti", 0, (5, 5)), ("Skeleton", 2, (5, 6))], seats=4, config={"teams": True})
    assert f"attack:{yeti}:{mate}" not in option_ids(m)


def test_1_8_last_man_standing_portals_on_own_edge_and_chips_lost() -> None:
    """1.8 Last Man Standing: each player places a portal on its edge at 10 or 11; a goal there costs a chip."""
    game = ScrumBrawl()
    m = game.new_match(game.parse_config({"last_man_standing": True}, 2), 2, ScriptedChance.of(3, 3))
    assert [o.id for o in m.legal_options()] == ["portal:r20c10", "portal:r20c11"]
    m.apply("portal:r20c11")
    assert [o.id for o in m.legal_options()] == ["portal:r1c10", "portal:r1c11"]
    m.apply("portal:r1c10")
    assert m.portals == {"p0": (20, 11), "p1": (1, 10)} and m.lms_chips == [3, 3]


def test_1_8_last_man_standing_elimination_and_last_player_wins() -> None:
    """1.8 Last Man Standing: at 0 chips a player is out (creatures and portal removed); the last one wins."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (2, 10)), ("Skeleton", 1, (9, 9))],
        config={"last_man_standing": True},
        carry={0: "Leather Orb"},
        portals={"p1": (1, 10)},
        dice=[5, 5],
    )
    m.portal_owner = {"p1": 1}
    m.portal_home = {"p1": (1, 10)}
    m.lms_chips = [3, 1]
    m.apply(f"move:{yeti}:r1c10")
    outcome = m.outcome()
    assert outcome is not None and outcome.termination.value == "last_standing" and outcome.ranks == (1, 2)
    del skel


def test_1_8_simple_rules_remove_complex_creatures_and_optionally_alter_reality_and_events() -> None:
    """1.8 Simple Rules: Transmuter, Chaos Mage and the Magic Stump leave the deck; AR cards and events optionally."""
    game = ScrumBrawl()
    names = deck_names(
        game.parse_config({"simple_rules": True, "simple_remove_alter_reality": True, "simple_remove_events": True}, 2)
    )
    assert "Transmuter" not in names and "Chaos Mage" not in names and "The Magic Stump" not in names
    assert not [n for n in names if n.startswith("Alter Reality")] and "Earthquake" not in names
    assert len(deck_names(game.parse_config({}, 2))) == 100


def test_deck_size_is_a_parameter() -> None:
    """B2: the deck is 100 cards by default; deck_size cuts it, deck_counts changes the split."""
    game = ScrumBrawl()
    m = game.new_match(game.parse_config({"deck_size": 60}, 2), 2, SeededChance(3))
    assert len(m.deck) + len(m.hands[0]) + len(m.discard) <= 60
    cfg = game.parse_config({"deck_counts": {"Dispel": 10}}, 2)
    assert deck_names(cfg).count("Dispel") == 10


def test_b8_creature_draft_piles_snake_order_and_keep_ten() -> None:
    """B8 Creature Draft: 12 piles (ten of 4, two of 5); the first drafter plays last; each keeps 10 creatures;
    the main deck holds the other cards; a player chooses which deck each card is drawn from."""
    game = ScrumBrawl()
    m = game.new_match(game.parse_config({"creature_draft": True}, 2), 2, SeededChance(4))
    assert sorted(len(p) for p in m.piles) == [4] * 10 + [5] * 2
    assert len(m.deck) == 50, "the main deck is the 50 other cards"
    order = []
    while (decision := m.to_move()) is not None and decision.kind == "draft":
        order.append(int(decision.seat))
        m.apply(m.legal_options()[0].id)
    assert order == [1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1]
    while (decision := m.to_move()) is not None and decision.kind == "release":
        m.apply(m.legal_options()[0].id)
    assert [len(p) for p in m.personal] == [10, 10]
    while (decision := m.to_move()) is not None and decision.kind == "alter_reality":
        m.apply("pass")  # 1.5.3: the portal and orb placement rolls may be altered; nobody does
    assert decision is not None and decision.kind == "draw_source" and decision.seat == 0
    m.apply("draw:creatures")
    assert len(m.personal[0]) == 9 and len(m.hands[0]) == 1
