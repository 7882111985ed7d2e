"""``brawl league``: Python classes, house bots and a command of another language in one rated league.

The command is the Node example bot (``node examples/node-bot/bot.js``): the league starts it with
``--server`` and its token in ``BRAWL_TOKEN`` against a referee on a free loopback port, as it would
any author's program. Every match's replay is re-simulated byte for byte.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ladder.glicko2 import Glicko2Rating
from referee.core.replay import Replay, verify
from referee.league import LeagueError, MatchRecord, parse_entrant, ratings, run_league, schedule
from service.cli import main
from tests.referee.test_node_bot import NODE_BOT, ensure_node_modules

ROOT = Path(__file__).resolve().parents[2]
MYBOT = ROOT / "tests" / "authors" / "bots.py"


def test_entrants_are_told_apart_by_their_spelling() -> None:
    assert parse_entrant("mybot:MyBot") == ("", "mybot:MyBot", "python")
    assert parse_entrant("v1=mybot_v1:MyBot") == ("v1", "mybot_v1:MyBot", "python")
    assert parse_entrant("heuristic") == ("", "heuristic", "house")
    assert parse_entrant("house:random") == ("", "random", "house")
    assert parse_entrant("node examples/node-bot/bot.js") == ("bot.js", "node examples/node-bot/bot.js", "command")
    assert parse_entrant("go=./bin/bot") == ("go", "./bin/bot", "command")


def test_pairings() -> None:
    assert schedule(4, "round-robin") == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert schedule(4, "gauntlet") == [(0, 1), (0, 2), (0, 3)]


def test_the_table_rates_results_with_glicko2() -> None:
    records = [MatchRecord("g", ["a", "b"], 0, f"m{i}", [1, 2], False, "") for i in range(6)]
    records += [MatchRecord("g", ["b", "c"], 0, "d", [1, 1], True, "")]
    table = ratings(["a", "b", "c"], records)
    assert [s.name for s in table] == ["a", "c", "b"] or [s.name for s in table] == ["a", "b", "c"]
    top = table[0]
    assert top.name == "a" and top.wins == 6 and top.games == 6 and top.score == 1.0
    assert top.rating.rating > Glicko2Rating().rating and top.rating.deviation < Glicko2Rating().deviation
    b = next(s for s in table if s.name == "b")
    assert (b.wins, b.draws, b.losses) == (0, 1, 6)


def test_a_mixed_league_of_both_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ensure_node_modules()
    monkeypatch.chdir(ROOT)
    entrants = ["first=tests.authors.bots:Logged", "heuristic", "random", f"node {NODE_BOT / 'bot.js'}"]
    games = ["scrumbrawl", "superfantasybrawl"]
    league = asyncio.run(run_league(entrants, games, pairs=1, seed=40, bot_seed=2, out=tmp_path, parallel=2))
    names = ["first", "heuristic", "random", "bot.js"]
    assert league.entrants == names
    assert len(league.matches) == 2 * 6 * 2  # games x pairings x mirrored twins
    for g in games:
        table = league.tables[g]
        assert sorted(s.name for s in table) == sorted(names)
        assert all(s.games == 6 for s in table)  # three opponents, two matches each
        assert all(s.rating.deviation < Glicko2Rating().deviation for s in table)
        h2h = league.head_to_head[g]
        for a in names:
            for b in names:
                if a != b:
                    assert h2h[(a, b)][1] == 2 and h2h[(a, b)][0] + h2h[(b, a)][0] == 2
    replays = sorted(tmp_path.glob("league-*.json.gz"))
    assert len(replays) == len(league.matches)
    for path in replays:
        verify(Replay.decode(path.read_bytes()))
    index = json.loads((tmp_path / "league.json").read_text())
    assert {m["match_id"] for m in index["matches"]} == {p.name.removesuffix(".json.gz") for p in replays}
    assert [row["bot"] for row in index["tables"]["scrumbrawl"]] == [s.name for s in league.tables["scrumbrawl"]]
    assert (tmp_path / "logs" / "bot.js.log").read_text().count("over: rank") == 12  # the Node bot's own log


def test_the_stronger_house_bot_tops_the_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["league", "heuristic", "random", "--game", "superfantasybrawl", "--pairs", "3", "--seed", "9"]
    assert main([*argv, "--bot-seed", "1", "--format", "gauntlet", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    table = captured.out.splitlines()
    first = next(line for line in table if line.strip().startswith("1 "))
    assert "heuristic" in first
    assert "head to head" in captured.out and f"replays and league.json in {tmp_path}" in captured.out
    assert "6/6 matches" in captured.err  # the progress bar


@pytest.mark.parametrize(
    ("entrants", "reason"),
    [
        (["heuristic"], "a league needs at least two entrants"),
        (["a=heuristic", "a=random"], "two entrants share a name"),
        (["heuristic", "nomodule:Bot"], "no module 'nomodule'"),
        (["heuristic", "sh -c 'exit 3'"], "exited with status 3 before connecting"),
        (["heuristic", "./no-such-program --x"], "cannot start './no-such-program --x'"),
    ],
)
def test_a_league_that_cannot_run_is_refused_with_the_reason(
    entrants: list[str], reason: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["league", *entrants, "--game", "scrumbrawl", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("error: ") and reason in err, err


def test_a_bad_pairs_count_is_refused() -> None:
    with pytest.raises(LeagueError, match="at least one mirrored pair"):
        asyncio.run(run_league(["heuristic", "random"], ["scrumbrawl"], pairs=0))
