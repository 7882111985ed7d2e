"""What a game says of itself reaches the site: the games API carries the new ``GameInfo`` fields, and
the replay viewer draws each game's board from the generic view the frames carry, never by its name.

Partitions: every registered game with a board (each kind: ``hex``, ``square``) in real Chromium
(Debian's, never a downloaded one) on a real recorded match; every registered game in the API,
including one without a board (the test game: ``board_kind`` null).
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page
from rest_framework.test import APIClient

from referee.core.registry import game_names, get_game
from tests.webapp.conftest import GAME
from tests.webapp.test_browser import real_match

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

BOARD_GAMES = [n for n in game_names() if get_game(n).info.board is not None]


def test_both_board_kinds_are_covered() -> None:
    assert {get_game(n).info.board["kind"] for n in BOARD_GAMES} == {"hex", "square"}  # type: ignore[index]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", BOARD_GAMES)
def test_the_viewer_draws_the_layout_kinds_board(live_server, page: Page, make_bot, author, other, game) -> None:
    layout = get_game(game).info.board
    assert layout is not None
    match = real_match(game, 3, make_bot, author, other)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_selector("#viewer[data-loaded='1']")
    if layout["kind"] == "hex":
        radius = int(layout["radius"])
        # Every hex of the arena, as the game's view gives it, with its statues as markers.
        assert page.locator("#board polygon.cell-hex[data-cell]").count() == 3 * radius * (radius + 1) + 1
        assert page.locator("#board .marker-statue").count() == len(layout["statues"])
    else:
        size = int(layout["size"])
        assert page.locator("#board polygon.cell-square[data-cell]").count() == size * size
        # The drawing fits the board: its width is the board's (in cells) and a small margin.
        width = float((page.get_attribute("#board svg", "viewBox") or "").split()[2])
        assert size <= width <= size + 1


@pytest.mark.django_db
def test_the_games_api_carries_what_each_game_says_of_itself() -> None:
    anon = APIClient()
    listed = {g["name"]: g for g in anon.get("/api/v1/games/").json()}
    assert set(listed) == set(game_names())
    for name, body in listed.items():
        info = get_game(name).info
        assert body["table_sizes"] == list(info.table_sizes)
        assert body["seat_counts"] == sorted(info.seat_counts)
        assert body["free_for_all"] is info.free_for_all
        assert body["teams"] == [
            {"seats": t.seats, "team_of_seat": list(t.team_of_seat), "when": t.when} for t in info.teams
        ]
        assert body["time_control"]["decision_time"] == info.time_control.decision_time
        assert body["time_control"]["max_strikes"] == info.time_control.max_strikes
        assert body["board_kind"] == (info.board["kind"] if info.board is not None else None)
    assert listed[GAME]["board_kind"] is None
    assert anon.get(f"/api/v1/games/{BOARD_GAMES[0]}/").json()["board_kind"] in {"hex", "square"}
