"""People's ratings, kept apart: the people's pool per game, each bot's rating against people, test tables unrated.

Partitions: a rated table of a person against a house bot (both pools move by the ladder's Elo,
zero-sum at equal K; the bot's ladder rating and history stay untouched; the bot page shows both
ratings); a test table (the person's own bot sits) and a table that joined one's own bot (unrated,
nothing moves); two people and a bot at a pod; a result delivered twice counts once; a match that
ends without a result ends its table unrated; the modes come from each game's info.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from ladder.elo import DEFAULT_RATING, rating_changes
from referee.core.registry import get_game
from tests.webapp.conftest import forced_replay
from webapp import results
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.rankings.models import Rating, RatingHistory
from webapp.tables import modes as table_modes
from webapp.tables import services
from webapp.tables.models import BotPeopleRating, PersonRating, RatingChange, Table, TableStatus

pytestmark = pytest.mark.django_db

GAME = "tinygame"
ME = services.SeatSpec(services.ME)
INVITE = services.SeatSpec(services.INVITE)


def bot_seat(bot: Bot) -> services.SeatSpec:
    return services.SeatSpec("bot", bot.pk)


def house_bot(name: str = "house-1") -> Bot:
    owner, _ = User.objects.get_or_create(username="house")
    bot, _ = bot_services.do_create_bot(owner, GAME, name, is_house=True)
    return bot


def play(table: Table, people: set[int], ranks: tuple[int, ...]) -> Match:
    """Starts the table and records a result with ``ranks`` through the one recording path."""
    match = services.do_start(table.pk, people)
    assert match is not None
    match_services.do_start_match(match.pk, "ref-test")
    return results.do_finish_match(match.pk, forced_replay(match, ranks), referee_id="ref-test")


def test_a_rated_table_moves_both_pools_and_never_the_ladder() -> None:
    ada = User.objects.create_user("ada")
    house = house_bot()
    table = services.do_open_table(ada, GAME, "2", [ME, bot_seat(house)])
    assert table.rated
    play(table, {ada.pk}, (1, 2))
    person = PersonRating.objects.get(user=ada, game=GAME)
    against = BotPeopleRating.objects.get(bot=house)
    expected = rating_changes([DEFAULT_RATING, DEFAULT_RATING], [1, 2], [services.K.k(0), services.K.k(0)])
    assert person.rating == pytest.approx(DEFAULT_RATING + expected[0]) and person.rating > DEFAULT_RATING
    assert against.rating == pytest.approx(DEFAULT_RATING + expected[1])
    assert (person.games, against.games) == (1, 1)
    assert [(c.seat, c.before) for c in RatingChange.objects.filter(table=table).order_by("seat")] == [
        (0, DEFAULT_RATING),
        (1, DEFAULT_RATING),
    ]
    # The ladder never saw it: the house bot's ladder rating is its placeholder, with no history.
    ladder = Rating.objects.get(bot_version=house.latest_version)
    assert (ladder.elo, ladder.games) == (DEFAULT_RATING, 0)
    assert not RatingHistory.objects.exists()
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED and table.settled
    # The bot page shows both ratings.
    page = Client().get(f"/bots/{house.pk}/").content.decode()
    assert "Against people:" in page and f"<strong>{against.rating:.0f}</strong> Elo over 1 rated table" in page
    # A second delivery of the result changes nothing.
    with pytest.raises(match_services.MatchAlreadyFinal):
        results.do_finish_match(table.match_id or 0, forced_replay(Match.objects.get(pk=table.match_id), (2, 1)))
    assert PersonRating.objects.get(user=ada, game=GAME).rating == person.rating


def test_test_tables_are_unrated() -> None:
    ada, bob = User.objects.create_user("ada"), User.objects.create_user("bob")
    own, _ = bot_services.do_create_bot(ada, GAME, "adas-bot")
    table = services.do_open_table(ada, GAME, "2", [ME, bot_seat(own)])
    assert not table.rated
    play(table, {ada.pk}, (1, 2))
    # Joining a table where one's own bot sits makes it a test table too.
    bobs, _ = bot_services.do_create_bot(bob, GAME, "bobs-bot", is_house=False)
    bot_services.do_update_bot(bobs, plays_people=True)
    other = services.do_open_table(ada, GAME, "3", [ME, INVITE, bot_seat(bobs)])
    assert other.rated
    services.do_join(bob, other.invite_token)
    other.refresh_from_db()
    assert not other.rated
    play(other, {ada.pk, bob.pk}, (1, 2, 2))
    assert not PersonRating.objects.exists() and not BotPeopleRating.objects.exists()
    assert not RatingChange.objects.exists()
    assert Table.objects.filter(status=TableStatus.FINISHED, settled=False).count() == 2


def test_two_people_and_a_bot_at_a_pod() -> None:
    ada, bob = User.objects.create_user("ada"), User.objects.create_user("bob")
    house = house_bot()
    table = services.do_open_table(ada, GAME, "3", [INVITE, ME, bot_seat(house)])
    services.do_join(bob, table.invite_token)
    assert services.do_start(table.pk, {ada.pk}) is None  # bob's seat client is not connected yet
    play(table, {ada.pk, bob.pk}, (2, 1, 1))
    ratings = {r.user.username: r.rating for r in PersonRating.objects.select_related("user")}
    assert ratings["ada"] > DEFAULT_RATING > ratings["bob"]
    changes = RatingChange.objects.filter(table=table)
    assert sum(c.after - c.before for c in changes) == pytest.approx(0.0)


def test_a_match_without_a_result_ends_its_table_unrated() -> None:
    ada = User.objects.create_user("ada")
    table = services.do_open_table(ada, GAME, "2", [ME, bot_seat(house_bot())])
    match = services.do_start(table.pk, {ada.pk})
    assert match is not None
    match_services.do_cancel_match(match.pk, "its bots were not online")
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED and not table.settled
    assert not PersonRating.objects.exists()


@pytest.mark.parametrize("game", ["scrumbrawl", "superfantasybrawl", GAME])
def test_modes_are_every_size_and_split_the_game_info_states(game: str) -> None:
    info = get_game(game).info
    modes = table_modes.modes(game)
    assert {m.seats for m in modes} == set(info.seat_counts)
    for m in modes:
        assert m.teams == info.team_of(m.config, m.seats)
    for split in info.teams:
        if split.when is not None:  # a choice: offered both ways
            assert {bool(m.config) for m in modes if m.seats == split.seats} == {False, True}


@pytest.mark.parametrize(
    ("mode", "seats", "kw", "message"),
    [
        ("9", [ME, INVITE], {}, "has no mode '9'"),
        ("2", [ME], {}, "has 2 seats, got 1"),
        ("2", [INVITE, INVITE], {}, "exactly one seat must be yours"),
        ("2", [ME, services.SeatSpec("bot", 10**9)], {}, "is not offered"),
        ("2", [ME, INVITE], {"decision_seconds": 1}, "seconds per decision must be from 5 to 60"),
        ("2", [ME, INVITE], {"bank_minutes": 0}, "the bank must be from 1 to 60 minutes"),
    ],
)
def test_bad_tables_are_refused_and_nothing_is_written(mode: str, seats: Any, kw: dict[str, Any], message: str) -> None:
    ada = User.objects.create_user("ada")
    with pytest.raises(services.InvalidInput, match=message):
        services.do_open_table(ada, GAME, mode, seats, **kw)
    assert not Table.objects.exists()


def test_the_pages_open_join_and_refuse() -> None:
    ada, bob, cy = (User.objects.create_user(n, password="pw-123456") for n in ("ada", "bob", "cy"))
    house = house_bot()
    browser = Client()
    browser.force_login(ada)
    for game in ("scrumbrawl", "superfantasybrawl"):
        page = browser.get(f"/tables/new/{game}/")
        assert page.status_code == 200
        for m in table_modes.modes(game):
            assert m.label in page.content.decode()
    assert browser.get("/tables/new/no-such-game/").status_code == 404
    bad = browser.post(
        f"/tables/new/{GAME}/",
        {"mode": "2", "seat0": "me", "seat1": "me", "decision_seconds": "30", "bank_minutes": "5"},
    )
    assert bad.status_code == 400 and "exactly one seat must be yours" in bad.content.decode()
    assert not Table.objects.exists()
    made = browser.post(
        f"/tables/new/{GAME}/",
        {
            "mode": "3",
            "seat0": "me",
            "seat1": "person",
            "seat2": f"bot:{house.pk}",
            "decision_seconds": "30",
            "bank_minutes": "5",
        },
    )
    table = Table.objects.get()
    assert made.status_code == 302 and made["Location"] == f"/tables/{table.pk}/"
    assert browser.get(f"/tables/{table.pk}/").status_code == 200
    guest = Client()
    guest.force_login(bob)
    assert guest.get(f"/tables/{table.pk}/").status_code == 403  # not seated yet
    assert guest.post(f"/tables/join/{table.invite_token}/").status_code == 302
    assert guest.get(f"/tables/{table.pk}/").status_code == 200
    late = Client()
    late.force_login(cy)
    full = late.post(f"/tables/join/{table.invite_token}/")
    assert full.status_code == 409 and "every seat at this table is taken" in full.content.decode()
    assert late.get("/tables/join/nope/").status_code == 404
    assert Client().get(f"/tables/{table.pk}/").status_code == 302  # to the sign-in page


def test_the_opt_in_is_off_by_default_and_a_persons_seat_is_no_listed_bot() -> None:
    from rest_framework.test import APIClient

    ada, bob = User.objects.create_user("ada"), User.objects.create_user("bob")
    bobs, _ = bot_services.do_create_bot(bob, GAME, "bobs-bot")
    assert not bobs.plays_people
    assert bobs.pk not in set(services.offered_bots(ada, GAME).values_list("pk", flat=True))
    api = APIClient()
    api.force_authenticate(bob)
    changed = api.patch(f"/api/v1/bots/{bobs.pk}/", {"plays_people": True}, format="json")
    assert changed.status_code == 200 and changed.json()["plays_people"] is True
    assert bobs.pk in set(services.offered_bots(ada, GAME).values_list("pk", flat=True))
    seat = bot_services.do_person_bot(ada, GAME)
    assert seat.is_person and not seat.active and seat.name == "@ada"
    assert bot_services.do_person_bot(ada, GAME).pk == seat.pk  # one per person and game
    listed = {b["id"] for b in api.get("/api/v1/bots/", {"active": "all"}).json()["results"]}
    assert bobs.pk in listed and seat.pk not in listed
    mine = Client()
    mine.force_login(ada)
    assert "@ada" not in mine.get("/me/bots/").content.decode()
    with pytest.raises(services.InvalidInput, match="a person's seat"):
        bot_services.do_update_bot(seat, plays_people=True)
