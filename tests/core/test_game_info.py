"""What the games say of themselves: teams, table sizes, time control and board, read from the registry.

Each game has one description, its ``GameInfo``: the game and every match it creates return the same
object, and it names the exact set of table sizes the game takes.
"""

from __future__ import annotations

import pytest

from referee.core.chance import SeededChance
from referee.core.contract import GameInfo, TeamSplit, TimeControl
from referee.core.errors import ConfigError
from referee.core.registry import game_names, get_game, shipped_game_names


@pytest.mark.parametrize("name", shipped_game_names())
def test_a_shipped_game_describes_itself(name: str) -> None:
    info = get_game(name).info
    assert info.name == name
    assert info.table_sizes and set(info.table_sizes) <= info.seat_counts
    for split in info.teams:
        assert split.seats in info.seat_counts
        assert len(set(split.team_of_seat)) >= 2
    assert isinstance(info.time_control, TimeControl)
    assert info.board is not None and info.board["kind"] in ("hex", "square")


def test_team_of_follows_the_split_and_its_config_flag() -> None:
    info = GameInfo("g", "G", "1", frozenset({2, 3, 4}), teams=(TeamSplit(4, (0, 1, 0, 1), when="teams"),))
    assert info.team_of({"teams": True}, 4) == (0, 1, 0, 1)
    assert info.team_of({"teams": False}, 4) == ()
    assert info.team_of({"teams": True}, 3) == ()
    always = GameInfo("g", "G", "1", frozenset({2, 4}), teams=(TeamSplit(4, (0, 1, 0, 1)),))
    assert always.team_of({}, 4) == (0, 1, 0, 1) and always.team_of({}, 2) == ()


def test_a_team_split_must_name_a_team_per_seat() -> None:
    with pytest.raises(ValueError, match="needs 4 teams"):
        TeamSplit(4, (0, 1))


def test_every_shipped_game_is_known_by_name() -> None:
    assert set(shipped_game_names()) <= set(game_names())
    assert len(shipped_game_names()) >= 2


def test_super_fantasy_brawl_takes_two_or_four_seats_exactly() -> None:
    # research/rules-facts.md A2 "Set-up for 2 players" and A4 "4-player variant 'Super Team Tornado'":
    # "Two teams of 2 players; each player controls 2 champions". No set-up seats three.
    info = get_game("superfantasybrawl").info
    assert info.seat_counts == frozenset({2, 4})
    assert (info.min_seats, info.max_seats) == (2, 4)
    assert info.team_of({}, 4) == (0, 1, 0, 1) and info.team_of({}, 2) == ()


def test_scrumbrawl_takes_two_three_or_four_seats_exactly() -> None:
    # Seed 003, set-up: "For a two player game, you can play with a single portal and single orb. For a
    # game of three or more players, it is recommended you play with two portals and orbs." Variants:
    # "Team games allow two players to match their skills against two other players."
    info = get_game("scrumbrawl").info
    assert info.seat_counts == frozenset({2, 3, 4})
    assert info.table_sizes == (4, 3)
    assert info.team_of({"teams": True}, 4) == (0, 1, 0, 1) and info.team_of({"teams": False}, 4) == ()


@pytest.mark.parametrize("name", shipped_game_names())
def test_the_game_and_each_of_its_matches_return_one_info_object(name: str) -> None:
    game = get_game(name)
    assert type(game).info is game.info
    for seats in sorted(game.info.seat_counts):
        match = game.new_match(game.default_config(seats), seats, SeededChance(1))
        assert match.info is game.info, f"a {seats}-seat {name} match describes itself with another GameInfo"


@pytest.mark.parametrize("name", shipped_game_names())
def test_a_size_outside_the_info_is_refused_naming_the_sizes(name: str) -> None:
    info = get_game(name).info
    for seats in (0, 1, 3, 5, 8):
        if seats in info.seat_counts:
            continue
        with pytest.raises(ConfigError, match=rf"{name} is played by {info.seats_text()} seats, got {seats}"):
            info.check_seats(seats)
        with pytest.raises(ConfigError, match=rf"played by {info.seats_text()} seats"):
            get_game(name).default_config(seats)


def test_seat_counts_read_in_words() -> None:
    assert GameInfo("g", "G", "1", frozenset({2})).seats_text() == "2"
    assert GameInfo("g", "G", "1", frozenset({2, 4})).seats_text() == "2 or 4"
    assert GameInfo("g", "G", "1", frozenset({4, 2, 3}), table_sizes=(3,)).seats_text() == "2, 3 or 4"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat_counts": frozenset({2, 4}), "table_sizes": (3,)}, "table size 3 is not one of its seat counts 2 or 4"),
        ({"seat_counts": frozenset({2}), "teams": (TeamSplit(4, (0, 1, 0, 1)),)}, "table size 4 is not one"),
        ({"seat_counts": frozenset()}, "non-empty frozenset"),
        ({"seat_counts": {2, 4}}, "non-empty frozenset"),
        ({"seat_counts": frozenset({0, 2})}, "positive integer"),
        ({"seat_counts": frozenset({2}), "table_sizes": (2, 2)}, "each ladder size once"),
    ],
)
def test_an_info_that_contradicts_itself_is_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameInfo("g", "G", "1", **kwargs)  # type: ignore[arg-type]
