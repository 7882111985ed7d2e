"""``brawl play``: local matches through the referee's code path, replays written and verifiable.

Partitions: house bots only; an SDK bot (module:Class) against a house bot; unknown bot; wrong bot
count; the CLI end to end with --out.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.replay import Replay, verify
from referee.play import play_series, result_table
from tests.referee.harness import GAMES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", GAMES)
def test_series_rotates_seats_and_every_replay_verifies(game: str) -> None:
    series = asyncio.run(play_series(game, ["random", "tests.referee.bots:FirstBot"], games=6, seed=3))
    assert len(series.replays) == 6
    for r in series.replays:
        verify(r)
    seats = {tuple(r.seats) for r in series.replays}
    assert seats == {("random", "FirstBot"), ("FirstBot", "random")}
    a, b = series.tallies
    assert a.games == b.games == 6
    assert a.wins + a.draws + a.losses == 6 and a.wins == b.losses and a.draws == b.draws
    assert "random" in result_table(series)


def test_cli_writes_replays_and_prints_the_table(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "play",
            "--game",
            "tests.conformance.tinygame:TinyGame",
            "random",
            "random",
            "--games",
            "4",
            "--seed",
            "9",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "random#1" in result.stdout and "4 matches" in result.stdout
    assert "4/4 matches" in result.stderr  # the progress bar
    files = sorted(tmp_path.glob("*.json.gz"))
    assert len(files) == 4
    for f in files:
        verify(Replay.load(f))


def test_cli_refuses_unknown_bots_and_wrong_counts() -> None:
    base = [sys.executable, "-m", "service.cli", "play", "--game", "tests.conformance.tinygame:TinyGame"]
    unknown = subprocess.run([*base, "random", "nobody"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert unknown.returncode == 2 and "no house bot 'nobody'" in unknown.stderr
    alone = subprocess.run([*base, "random"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert alone.returncode == 2 and "takes 2, 3 or 4 bots, got 1" in alone.stderr
