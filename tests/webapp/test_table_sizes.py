"""The site's doors read a game's table sizes from its ``GameInfo``, never from the engine.

Partitions: the ladder's table sizes (every registered game); queueing a match (a size the info
names, one it does not); creating a tournament (duels and pods, a game whose four seats are always
teams, through the service and the organizer console); starting a pods tournament (its pods take
the game's sizes). The loose test game's info takes 2 or 3 seats while its engine would take any
number, so only a door that reads the info refuses 4.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

from referee.core import registry
from referee.core.registry import game_names, get_game
from tests.conformance.tinygame import LooseGame
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.tournaments import formats
from webapp.tournaments import services as t
from webapp.tournaments.models import Tournament
from workers import scheduling

pytestmark = pytest.mark.django_db

LOOSE = "loosegame"


@pytest.fixture(autouse=True)
def _loose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._LOADED, LOOSE, LooseGame())


def _bots(make_bot: Callable[..., Bot], n: int, game: str = LOOSE) -> list[Bot]:
    return [make_bot(User.objects.create_user(f"author{i}"), f"bot{i}", game=game) for i in range(n)]


def test_a_match_of_a_size_the_info_does_not_name_is_refused_and_leaves_nothing(make_bot) -> None:
    bots = _bots(make_bot, 4)
    with pytest.raises(match_services.InvalidChallenge, match="loosegame is played by 2 or 3 seats, got 4"):
        match_services.do_queue_match(LOOSE, [b.latest_version for b in bots], rated=False)
    assert not Match.objects.exists()
    three = match_services.do_queue_match(LOOSE, [b.latest_version for b in bots[:3]], rated=False)
    assert three.seats.count() == 3


def test_pods_for_a_game_whose_big_tables_are_always_teams_are_refused(organizer: User) -> None:
    # Super Fantasy Brawl takes 2 or 4 seats, and 4 are always two teams: no free-for-all pod exists.
    with pytest.raises(formats.FormatRefused, match="superfantasybrawl is played by 2 or 4 seats and 4 are always"):
        t.do_create_tournament(organizer, name="pods", game="superfantasybrawl", format="pods")
    assert not Tournament.objects.exists()
    duels = t.do_create_tournament(organizer, name="cup", game="superfantasybrawl", format="swiss")
    assert duels.format == "swiss"


def test_the_console_shows_the_refusal_on_the_form(organizer: User) -> None:
    client = Client()
    client.force_login(organizer)
    page = client.post(
        "/organize/",
        {"name": "pods", "game": "superfantasybrawl", "format": "pods", "best_of": 1, "seeding": "rating"},
    )
    assert page.status_code == 200
    assert "pods need a free-for-all table of 3 or more seats" in page.content.decode()
    assert not Tournament.objects.exists()


def test_duels_for_a_game_without_two_seat_tables_are_refused(organizer: User, monkeypatch) -> None:
    from referee.core.contract import GameInfo

    class PodsOnly(LooseGame):
        info = GameInfo("podsonly", "Pods Only", "1", seat_counts=frozenset({3, 4}), table_sizes=(4, 3))

    monkeypatch.setitem(registry._LOADED, "podsonly", PodsOnly())
    with pytest.raises(formats.FormatRefused, match="single_elim pairs duels, but podsonly is played by 3 or 4"):
        t.do_create_tournament(organizer, name="cup", game="podsonly", format="single_elim")
    assert t.do_create_tournament(organizer, name="pods", game="podsonly", format="pods").format == "pods"


def test_a_pods_tournament_seats_the_sizes_of_the_games_info(organizer: User, make_bot) -> None:
    tour = t.do_create_tournament(organizer, name="pods", game=LOOSE, format="pods")
    t.do_open_registration(tour)
    for i, bot in enumerate(_bots(make_bot, 12)):
        t.do_approve_entrant(t.do_register_entrant(tour, bot.latest_version), True, seed=i + 1)
    t.do_start_tournament(tour)
    sizes = sorted(m.seats.count() for m in Match.objects.filter(tournament=tour))
    assert sizes == [3, 3, 3, 3]


def test_the_ladder_seats_the_sizes_each_games_info_prefers() -> None:
    for name in game_names():
        info = get_game(name).info
        assert scheduling.table_sizes(name) == info.table_sizes
        assert set(scheduling.table_sizes(name)) <= info.seat_counts
    assert scheduling.table_sizes(LOOSE) == (3, 2)
