"""ScrumBrawl's content files are validated by their JSON Schemas, with clear errors (issue 17).

Each case breaks one rule of one file and expects a :class:`ContentError` naming the file, the path to
the value and the rule; the last cases are the checks a schema cannot make (unique names, the d8 table,
the deck naming known cards).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from referee.core.errors import ContentError
from referee.core.schema import schema_for
from referee.games.scrumbrawl.content import CONTENT, FILES, parse_content
from tests.games.scrumbrawl.test_hooks import DATA

Docs = dict[str, Any]


def _docs() -> Docs:
    return {f: json.loads((DATA / f).read_text()) for f in FILES}


def _load(docs: Docs) -> None:
    parse_content(docs["creatures.json"], docs["cards.json"], docs["orbs.json"])


def _creature(docs: Docs, i: int = 0) -> dict[str, Any]:
    creature: dict[str, Any] = docs["creatures.json"]["creatures"][i]
    return creature


CASES: list[tuple[str, Callable[[Docs], object], str]] = [
    ("colour", lambda d: _creature(d).update(color="pink"), r"creatures\.json: creatures\[0\]\.color: 'pink'"),
    ("unknown hook", lambda d: _creature(d)["hooks"].append("fly_away"), r"hooks\[0\]: 'fly_away' is not one of"),
    ("missing stat", lambda d: _creature(d).pop("D"), r"creatures\[0\]: 'D' is a required property"),
    ("stat range", lambda d: _creature(d).update(T=25), r"T: 25 is greater than the maximum of 20"),
    ("no attack table", lambda d: _creature(d).update(attacks=0), "0 attacks needs a variable_attacks table"),
    ("orb count", lambda d: d["orbs.json"]["orbs"].pop(), r"orbs\.json: orbs: has 7 items, expected 8"),
    ("orb mods", lambda d: d["orbs.json"]["orbs"][0]["mods"].update(Q=1), r"mods: 'Q' is not one of"),
    ("orb hook", lambda d: d["orbs.json"]["orbs"][1]["hooks"].append("sticky"), r"hooks\[1\]: 'sticky'"),
    ("event effects", lambda d: d["cards.json"]["events"][0].update(effects=["chaos", "dispel"]), "or 8 for a d8"),
    (
        "played event",
        lambda d: next(e for e in d["cards.json"]["events"] if e["timing"] == "played").update(
            effects=["dispel"] * 4 + ["fumble"] * 4
        ),
        "a played event has exactly one effect",
    ),
    ("deck card", lambda d: d["cards.json"]["deck"].update({"Mystery": 2}), "'Mystery' is not an enchantment"),
    ("deck creatures", lambda d: d["cards.json"]["deck"].update(creatures=2), "every creature is exactly one copy"),
    (
        "duplicate",
        lambda d: d["creatures.json"]["creatures"].append(_creature(d)),
        "duplicate creature name 'Acherontic Knight'",
    ),
    ("d8 table", lambda d: _creature(d, 5).update(variable_attacks=[[1, 3, 2]]), "must cover 1..8 exactly"),
]


@pytest.mark.parametrize(("rule", "edit", "needle"), CASES, ids=[c[0] for c in CASES])
def test_broken_content_is_refused_with_a_clear_error(rule: str, edit: Callable[[Docs], object], needle: str) -> None:
    docs = copy.deepcopy(_docs())
    edit(docs)
    with pytest.raises(ContentError, match=needle):
        _load(docs)


def test_the_shipped_content_passes_and_its_hooks_are_the_schemas_vocabulary() -> None:
    _load(_docs())
    creature_hooks = schema_for("referee.games.scrumbrawl", "creatures.json").schema["$defs"]["creature"]
    enum = set(creature_hooks["properties"]["hooks"]["items"]["enum"])
    assert {h for c in CONTENT.creatures.values() for h in c.hooks} == enum
