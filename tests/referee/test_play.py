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


def test_the_practice_suite_plays_every_public_seed_in_every_seat_rotation(tmp_path: Path) -> None:
    """``brawl play --practice``: each of the fixed public seeds once per seat rotation, results per seed."""
    from referee.play import PRACTICE_SEEDS

    result = subprocess.run(
        [
            *(sys.executable, "-m", "service.cli", "play", "--game", "superfantasybrawl"),
            *("random", "heuristic", "--practice", "--out", str(tmp_path)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    replays = [Replay.load(f) for f in sorted(tmp_path.glob("*.json.gz"))]
    assert sorted((r.seed, tuple(r.seats)) for r in replays) == sorted(
        (s, order) for s in PRACTICE_SEEDS for order in (("random", "heuristic"), ("heuristic", "random"))
    )
    for r in replays[:2]:
        verify(r)
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["seed"])
    rows = [line.split() for line in lines[header + 1 : header + 1 + len(PRACTICE_SEEDS)]]
    assert [int(row[0]) for row in rows] == sorted(PRACTICE_SEEDS)
    for row in rows:  # rank@seat for both seats of each bot
        assert len(row) == 5 and {cell.split("@")[1] for cell in row[1:3]} == {"0", "1"}
