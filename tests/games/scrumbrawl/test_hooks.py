"""Abilities and orbs are named hook points (issue 17, item 4): no engine module compares their names.

``referee/games/scrumbrawl/hooks.py`` holds the points; the data files name each creature's and orb's
hooks. These tests scan the engine's source for a comparison with an ability (hook) name or any use
of an orb's name, show that the scan catches both, and check the data and the registries agree.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import referee.games.scrumbrawl
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.hooks import POINTS, registered_hooks

PACKAGE = Path(referee.games.scrumbrawl.__file__).parent
DATA = PACKAGE / "data"


def _data_hooks() -> set[str]:
    creatures = json.loads((DATA / "creatures.json").read_text())["creatures"]
    orbs = json.loads((DATA / "orbs.json").read_text())["orbs"]
    return {h for c in creatures for h in c["hooks"]} | {h for o in orbs for h in o["hooks"]}


HOOK_NAMES = frozenset(_data_hooks())
ORB_NAMES = frozenset(CONTENT.orbs)
ABILITY_HOLDERS = frozenset(name for name, c in CONTENT.creatures.items() if c.hooks) | frozenset(
    name for name, e in CONTENT.enchantments.items() if e.grants
)
"""The creatures with an ability and the enchantments that grant one: comparing a card's name with one of
these is an ability check too (the rules read the hooks and the grants instead)."""


def name_uses(source: str, filename: str = "<src>") -> list[str]:
    """Returns ``file:line: what`` for each comparison with a hook name and each orb name in ``source``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                if isinstance(operand, ast.Constant) and operand.value in HOOK_NAMES | ABILITY_HOLDERS:
                    found.append(f"{filename}:{node.lineno}: compares the ability {operand.value!r}")
        if isinstance(node, ast.Constant) and node.value in ORB_NAMES:
            found.append(f"{filename}:{node.lineno}: names the orb {node.value!r}")
    return found


def test_no_engine_module_compares_an_ability_or_names_an_orb() -> None:
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


def test_every_hook_of_the_data_is_registered_and_every_registered_hook_is_used() -> None:
    assert registered_hooks() == HOOK_NAMES
    assert CONTENT.orbs["Slippery Orb"].hooks == frozenset({"slippery_fumble"})


def test_each_point_has_a_name_and_a_description() -> None:
    assert len(POINTS) >= 20
    for name, point in POINTS.items():
        assert point.name == name and point.doc
