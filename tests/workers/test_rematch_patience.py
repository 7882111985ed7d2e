"""BRAWL_REMATCH_PATIENCE: how long a bot at its rematch limit waits before the limit gives way."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ladder.matchmaking import MatchmakingConfig
from workers.scheduling import rematch_patience


def test_default_is_the_matchmakers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BRAWL_REMATCH_PATIENCE", raising=False)
    assert rematch_patience() == MatchmakingConfig().rematch_patience == timedelta(minutes=10)


def test_seconds_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAWL_REMATCH_PATIENCE", "1.5")
    assert rematch_patience() == timedelta(seconds=1.5)


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "nan", "inf"])
def test_a_bad_value_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("BRAWL_REMATCH_PATIENCE", raw)
    with pytest.raises(ValueError, match=f"BRAWL_REMATCH_PATIENCE='{raw}' is malformed"):
        rematch_patience()
