"""``brawl bot gauntlet``: mirrored pairs through a local referee until the SPRT decides.

House bots of known different strength (``heuristic`` beats ``random`` nearly every match) reach
"better"; two copies of one bot, with the house bots' own seed fixed, play exact mirror twins and
stay "inconclusive" until the budget is spent. Wide hypotheses (+/-100 Elo) and small budgets keep
these fast; the default hypotheses with a real budget are in the slow tests.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ladder.sprt import SprtConfig
from referee.gauntlet import run_gauntlet
from service.cli import main
from tests.authors import bots

WIDE = SprtConfig(elo0=-100, elo1=100)


@pytest.mark.parametrize("game", ["scrumbrawl", "superfantasybrawl"])
def test_a_stronger_house_bot_is_better(game: str, tmp_path: Path) -> None:
    result = asyncio.run(
        run_gauntlet(game, "heuristic", "random", budget=40, config=WIDE, seed=11, bot_seed=5, out=tmp_path)
    )
    assert result.state.verdict == "better", result.state
    assert result.state.llr >= result.state.upper
    assert len(result.pairs) < 20  # decided before the budget ran out
    written = {p.name for p in tmp_path.iterdir()}
    for pair in result.pairs:
        assert {f"{m}.json.gz" for m in pair.match_ids} <= written
        assert pair.seed == 11 + pair.index


def test_the_weaker_bot_is_worse(tmp_path: Path) -> None:
    result = asyncio.run(run_gauntlet("scrumbrawl", "random", "heuristic", budget=40, config=WIDE, seed=3, bot_seed=9))
    assert result.state.verdict == "worse", result.state


def test_two_copies_of_one_bot_are_inconclusive() -> None:
    result = asyncio.run(
        run_gauntlet("scrumbrawl", "heuristic", "heuristic", budget=8, config=WIDE, seed=21, bot_seed=4)
    )
    assert result.state.verdict == "inconclusive"
    assert len(result.pairs) == 4 and result.matches == 8  # the whole budget, no more
    assert result.state.lower < result.state.llr < result.state.upper
    # With the house bots' own seeds fixed per seat, the twins are the same match with the seats
    # swapped: each pair is one win each (or two draws), never a clean sweep.
    assert result.state.counts == (0, 0, 4, 0, 0)


def test_twins_never_run_at_the_same_time() -> None:
    bots.EVENTS.clear()
    spec = "tests.authors.bots:Logged"
    result = asyncio.run(
        run_gauntlet("superfantasybrawl", spec, "random", budget=8, config=WIDE, seed=987654321, parallel=4)
    )
    order = bots.EVENTS
    assert len(result.pairs) == 4
    for pair in result.pairs:
        a, b = pair.match_ids
        assert order.index(("end", a)) < order.index(("start", b)), order
    ids = [m for pair in result.pairs for m in pair.match_ids]
    assert len(set(ids)) == 8 and not any(str(pair.seed) in m for pair in result.pairs for m in ids)


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["heuristic", "--game", "scrumbrawl"], "heuristic has no parent version to play: name it with --against OLD"),
        (["heuristic", "--against", "random", "--game", "scrumbrawl", "--budget", "0"], "a budget of 0 matches"),
        (["heuristic", "--against", "random", "--game", "scrumbrawl", "--budget", "1"], "a budget of 1 matches"),
        (["heuristic", "--against", "random", "--game", "nosuchgame"], "nosuchgame"),
        (["heuristic", "--against", "nobody", "--game", "scrumbrawl"], "no house bot 'nobody'"),
        (["nomodule:Bot", "--against", "random", "--game", "scrumbrawl"], "no module 'nomodule'"),
        (["heuristic", "--against", "random", "--game", "scrumbrawl", "--elo0", "5", "--elo1", "0"], "elo0 must be"),
    ],
)
def test_a_request_that_cannot_run_is_refused_with_the_reason(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["bot", "gauntlet", *argv, "--out", str(tmp_path / "replays")]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and reason in captured.err, captured.err
    assert captured.out == ""
    assert not (tmp_path / "replays").exists()


def test_the_command_prints_the_verdict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["bot", "gauntlet", "house:heuristic", "--against", "house:random", "--game", "superfantasybrawl"]
    argv += ["--budget", "30", "--elo0", "-100", "--elo1", "100", "--seed", "7", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "gauntlet house:heuristic against house:random (superfantasybrawl): better" in out
    assert "pentanomial [" in out and f"replays in {tmp_path}" in out


@pytest.mark.slow
def test_default_hypotheses_with_a_real_budget() -> None:
    better = asyncio.run(run_gauntlet("scrumbrawl", "heuristic", "random", budget=400, seed=100, parallel=2))
    assert better.state.verdict == "better"
    same = asyncio.run(run_gauntlet("scrumbrawl", "heuristic", "heuristic", budget=200, seed=200, bot_seed=1))
    assert same.state.verdict == "inconclusive" and same.matches == 200
