"""The golden regeneration tool shows what moved and rewrites only what moved."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.games import golden
from tests.games.golden import GoldenCase


def test_diff_names_the_first_moved_event_and_regen_rewrites_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript with one altered event gives a diff pointing at it; after --regen it agrees again."""
    monkeypatch.setattr(golden, "HERE", tmp_path)
    case = GoldenCase("superfantasybrawl", "seed7", seats=2, seed=7)
    monkeypatch.setattr(golden, "cases", lambda game: [case])
    got = golden.transcript(case)
    assert got[0].startswith("{") and '"rules_version"' in got[0]
    tampered = list(got)
    tampered[5] = tampered[5].replace('"seat": ', '"seat": 9')
    case.path.parent.mkdir(parents=True)
    case.path.write_text("\n".join(tampered) + "\n")
    moved = golden.diff(case, got)
    assert "first difference at line 5" in moved and "-" + tampered[5] in moved and "+" + got[5] in moved
    with pytest.raises(AssertionError, match="moved"):
        golden.assert_matches_golden(case)
    assert golden.main(["--regen", "superfantasybrawl"]) == 0
    assert golden.diff(case, got) == ""
    assert golden.main(["--check", "superfantasybrawl"]) == 0
