"""What the games say of themselves: teams, table sizes, time control and board, read from the registry."""

from __future__ import annotations

import pytest

from referee.core.contract import GameInfo, TeamSplit, TimeControl
from referee.core.registry import game_names, get_game, shipped_game_names


@pytest.mark.parametrize("name", shipped_game_names())
def test_a_shipped_game_describes_itself(name: str) -> None:
    info = get_game(name).info
    assert info.name == name
    assert info.table_sizes and all(info.min_seats <= n <= info.max_seats for n in info.table_sizes)
    for split in info.teams:
        assert info.min_seats <= split.seats <= info.max_seats
        assert len(set(split.team_of_seat)) >= 2
    assert isinstance(info.time_control, TimeControl)
    assert info.board is not None and info.board["kind"] in ("hex", "square")


def test_team_of_follows_the_split_and_its_config_flag() -> None:
    info = GameInfo("g", "G", "1", 2, 4, teams=(TeamSplit(4, (0, 1, 0, 1), when="teams"),))
    assert info.team_of({"teams": True}, 4) == (0, 1, 0, 1)
    assert info.team_of({"teams": False}, 4) == ()
    assert info.team_of({"teams": True}, 3) == ()
    always = GameInfo("g", "G", "1", 2, 4, teams=(TeamSplit(4, (0, 1, 0, 1)),))
    assert always.team_of({}, 4) == (0, 1, 0, 1) and always.team_of({}, 2) == ()


def test_a_team_split_must_name_a_team_per_seat() -> None:
    with pytest.raises(ValueError, match="needs 4 teams"):
        TeamSplit(4, (0, 1))


def test_every_shipped_game_is_known_by_name() -> None:
    assert set(shipped_game_names()) <= set(game_names())
    assert len(shipped_game_names()) >= 2
