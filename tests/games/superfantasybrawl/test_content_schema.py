"""Super Fantasy Brawl's content files are validated by JSON Schema, and the schemas agree with the code.

The schemas in ``referee/games/superfantasybrawl/data/schema/`` hold the vocabularies (effect keywords,
challenge kinds, ...): each effect keyword there has its handler in ``KEYWORDS`` and each challenge kind
its condition in ``CONDITIONS``, and back. Broken files are refused with the file, the path and the rule
(more cases in ``test_setup.py`` and ``test_seed_rulings.py``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest

from referee.core.errors import ContentError
from referee.core.schema import schema_for
from referee.games.superfantasybrawl.challenges import CONDITIONS
from referee.games.superfantasybrawl.content import FILES, build_content
from referee.games.superfantasybrawl.keywords import KEYWORDS

PACKAGE = "referee.games.superfantasybrawl"


def _files() -> dict[str, Any]:
    base = resources.files(PACKAGE).joinpath("data")
    return {name: json.loads(base.joinpath(name).read_text(encoding="utf-8")) for name in FILES}


def test_each_effect_keyword_and_challenge_kind_of_the_schemas_has_its_handler() -> None:
    champions = schema_for(PACKAGE, "champions.json").schema
    assert set(champions["$defs"]["effect"]["properties"]["kw"]["enum"]) == set(KEYWORDS)
    challenges = schema_for(PACKAGE, "challenges.json").schema
    kinds = challenges["properties"]["cards"]["items"]["properties"]["condition"]["properties"]["kind"]["enum"]
    assert set(kinds) == set(CONDITIONS)


CASES: list[tuple[str, Callable[[dict[str, Any]], object], str]] = [
    ("map.json", lambda d: d.update(radius=1), r"map\.json: radius: 1 is less than the minimum of 2"),
    ("map.json", lambda d: d["deployment"].pop(), "need exactly two deployment areas"),
    ("map.json", lambda d: d["statues"][0].update(hex=[9, 9]), "is off the board"),
    ("champions.json", lambda d: d["champions"][0]["basic"].update(hp=20), "hp must be 1..12"),
    ("champions.json", lambda d: d["champions"][0]["cards"][0]["attack"].update(range=[0, 1]), "at least 1"),
    ("champions.json", lambda d: d["champions"][0]["cards"][0]["attack"].update(strength=0), "positive strength"),
    ("champions.json", lambda d: d.update(champions=d["champions"][:5]), "need at least 6 champions"),
    ("traps.json", lambda d: d["tokens"][0].update(value=0), "a damage trap needs a value of at least 1"),
    ("traps.json", lambda d: d.update(on_board=9), "on_board must be 1..5"),
    ("challenges.json", lambda d: d["cards"][0]["condition"].update(zone="green"), r"condition\.zone: 'green'"),
]


@pytest.mark.parametrize(("file", "edit", "needle"), CASES)
def test_broken_content_is_refused_with_the_file_the_path_and_the_rule(
    file: str, edit: Callable[[dict[str, Any]], object], needle: str
) -> None:
    files = copy.deepcopy(_files())
    edit(files[file])
    with pytest.raises(ContentError, match=needle):
        build_content(files)


def test_every_schema_is_a_valid_draft_2020_12_schema_and_the_shipped_content_passes() -> None:
    for name in FILES:
        assert schema_for(PACKAGE, name).schema["$schema"].endswith("2020-12/schema")
    assert len(build_content(_files()).champions) >= 6
