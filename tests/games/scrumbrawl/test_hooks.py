"""Abilities, orbs and cards are named hook points (issue 17, item 4): no engine module compares their names.

``referee/games/scrumbrawl/hooks.py`` holds the points; the data files name each creature's and orb's
hooks and each event's effects. These tests scan the engine's source (the rules and the heuristic bot)
for a comparison with an ability (hook) name, any use of an orb's name and any use of a card's name
other than as a label for people, show that the scan catches each, and check the data and the
registries agree.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import referee.games.scrumbrawl
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.hooks import INSTANT_EFFECT, PLAYED_EFFECT, POINTS, registered_hooks

PACKAGE = Path(referee.games.scrumbrawl.__file__).parent
DATA = PACKAGE / "data"


def _data_hooks() -> set[str]:
    creatures = json.loads((DATA / "creatures.json").read_text())["creatures"]
    orbs = json.loads((DATA / "orbs.json").read_text())["orbs"]
    return {h for c in creatures for h in c["hooks"]} | {h for o in orbs for h in o["hooks"]}


def _data_effects() -> set[str]:
    events = json.loads((DATA / "cards.json").read_text())["events"]
    return {e for ev in events for e in ev["effects"]}


def _card_names() -> set[str]:
    """Every card name of the data: creatures, enchantments, events and Alter Reality cards."""
    cards = json.loads((DATA / "cards.json").read_text())
    creatures = json.loads((DATA / "creatures.json").read_text())["creatures"]
    names = {c["name"] for c in creatures} | {c["name"] for c in cards["enchantments"] + cards["events"]}
    return names | {f"Alter Reality {v}" for v in cards["alter_reality"]} | (set(cards["deck"]) - {"creatures"})


HOOK_NAMES = frozenset(_data_hooks())
EFFECT_NAMES = frozenset(_data_effects())
CARD_NAMES = frozenset(_card_names())
ORB_NAMES = frozenset(CONTENT.orbs)
ABILITY_HOLDERS = frozenset(name for name, c in CONTENT.creatures.items() if c.hooks) | frozenset(
    name for name, e in CONTENT.enchantments.items() if e.grants
)
"""The creatures with an ability and the enchantments that grant one: comparing a card's name with one of
these is an ability check too (the rules read the hooks and the grants instead)."""


def _labels(tree: ast.AST) -> set[int]:
    """Returns the ids of the constants that are labels for people, where a card's name may stand.

    A label is anything inside an ``emit(...)`` call (the event log), the purpose of a roll (first
    argument of ``roll``, second of ``place_2d20``) and the ``cause=`` or ``why=`` detail of a step.
    """
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fname = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        parts: list[ast.AST] = []
        if fname == "emit":
            parts = [*node.args, *(k.value for k in node.keywords)]
        elif fname == "roll" and node.args:
            parts = [node.args[0]]
        elif fname == "place_2d20" and len(node.args) > 1:
            parts = [node.args[1]]
        parts += [k.value for k in node.keywords if k.arg in ("cause", "why")]
        out |= {id(n) for part in parts for n in ast.walk(part) if isinstance(n, ast.Constant)}
    return out


def name_uses(source: str, filename: str = "<src>") -> list[str]:
    """Returns ``file:line: what`` for each comparison with a hook or card name, each orb name, and each
    card name used otherwise than as a label, in ``source`` (in line order)."""
    found: list[tuple[int, str]] = []
    tree = ast.parse(source, filename)
    labels = _labels(tree)
    compared: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                if not isinstance(operand, ast.Constant):
                    continue
                if operand.value in HOOK_NAMES | ABILITY_HOLDERS:
                    found.append((node.lineno, f"compares the ability {operand.value!r}"))
                    compared.add(id(operand))
                elif operand.value in CARD_NAMES:
                    found.append((node.lineno, f"compares the card {operand.value!r}"))
                    compared.add(id(operand))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in compared:
            continue
        if node.value in ORB_NAMES:
            found.append((node.lineno, f"names the orb {node.value!r}"))
        elif node.value in CARD_NAMES and id(node) not in labels:
            found.append((node.lineno, f"names the card {node.value!r}"))
    return [f"{filename}:{line}: {what}" for line, what in sorted(found, key=lambda hit: hit[0])]


def test_no_engine_module_compares_an_ability_or_names_an_orb_or_a_card() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 10
    found = [hit for path in modules for hit in name_uses(path.read_text(), path.name)]
    assert found == []


def test_the_scan_catches_an_ability_comparison_and_an_orb_name() -> None:
    bad = 'if "troll_regenerate" in spec(c).hooks:\n    pass\nif c.orb == "Heavy Orb":\n    pass\n'
    assert name_uses(bad) == [
        "<src>:1: compares the ability 'troll_regenerate'",
        "<src>:3: names the orb 'Heavy Orb'",
    ]
    assert name_uses('if name != "Revenant":\n    pass\n') == ["<src>:1: compares the ability 'Revenant'"]
    # Registering a hook by name is how the data meets the code: not a comparison.
    assert name_uses('@ON_KILL.register("revenant")\ndef f():\n    pass\n') == []


def test_the_scan_catches_a_card_name_but_not_a_label() -> None:
    bad = (
        'if name == "Dispel":\n    pass\n'
        'd = cards_of(m, seat, "Fumble")\n'
        'SIMPLE_REMOVED = ("Transmuter", "Chaos Mage")\n'
        'x = CONTENT.events["Wild Magic"]\n'
    )
    assert name_uses(bad) == [
        "<src>:1: compares the card 'Dispel'",
        "<src>:3: names the card 'Fumble'",
        "<src>:4: names the card 'Transmuter'",
        "<src>:4: names the card 'Chaos Mage'",
        "<src>:5: names the card 'Wild Magic'",
    ]
    labels = (
        'm.emit("ability", {"name": "Troll", "detail": "regenerates"})\n'
        'm.roll("Frenzied Attack", [(8, 1, 8)], Frame("frenzy"))\n'
        'place_2d20(m, "Fissure", Frame("fissure_hit"))\n'
        'm.push("event_effect", effect="chaos", cause="The Magic Stump")\n'
    )
    assert name_uses(labels) == []
    # A label's place does not excuse a comparison inside it.
    assert name_uses('m.emit("x", {"ok": name == "Dispel"})\n') == ["<src>:1: compares the card 'Dispel'"]


def test_every_hook_of_the_data_is_registered_and_every_registered_hook_is_used() -> None:
    assert registered_hooks() == HOOK_NAMES | EFFECT_NAMES
    assert CONTENT.orbs["Slippery Orb"].hooks == frozenset({"slippery_fumble"})


def test_each_point_has_a_name_and_a_description() -> None:
    assert len(POINTS) >= 20
    for name, point in POINTS.items():
        assert point.name == name and point.doc


def test_each_event_effect_is_instant_or_played_and_played_cards_are_found_by_effect() -> None:
    instant, played = set(INSTANT_EFFECT.handlers), set(PLAYED_EFFECT.handlers)
    assert instant.isdisjoint(played) and instant | played == EFFECT_NAMES
    for ev in CONTENT.events.values():
        # A played event is played from the hand into its window: it has exactly one effect.
        assert (ev.timing == "played") == any(e in played for e in ev.effects)
        if ev.timing == "played":
            assert len(ev.effects) == 1


def test_the_simple_rules_variant_removes_the_creatures_the_data_marks() -> None:
    from referee.games.scrumbrawl import deck_names

    marked = {n for n, c in CONTENT.creatures.items() if c.simple_rules_removed}
    assert marked == {"Transmuter", "Chaos Mage", "The Magic Stump"}  # section 1.8
    cfg = {"simple_rules": True, "deck_counts": {}, "simple_remove_alter_reality": False, "simple_remove_events": False}
    simple = deck_names(cfg)
    full = deck_names({**cfg, "simple_rules": False})
    assert sorted(set(full) - set(simple)) == sorted(marked)
