"""Page tests: every page renders for the right people and shows what it promises.

Partitions: visitor anonymous, author, other author, organizer; object public or unpublished;
match with or without replay; form valid or invalid.
"""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.bots.models import Bot, BotToken
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.tournaments import services as t_services

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def test_home_lists_games_leaders_running_and_tournaments(
    client, rated_match, organizer, make_bot, author, other
) -> None:
    a, b = Bot.objects.get(name="alpha"), Bot.objects.get(name="beta")
    running = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False)
    match_services.do_start_match(running.pk, "ref-1")
    tour = t_services.do_create_tournament(organizer, name="Winter Cup", game=GAME, format="swiss")
    t_services.do_open_registration(tour)
    t_services.do_publish_tournament(tour)
    html = client.get("/").content.decode()
    assert "Tiny Game" in html and "alpha" in html and f"#{running.pk}" in html and "Winter Cup" in html


def test_leaderboard_page(client, rated_match) -> None:
    r = client.get(f"/games/{GAME}/")
    html = r.content.decode()
    assert r.status_code == 200 and 'id="rating-chart"' in html and "leaderboard-chart" in html
    from webapp.rankings.models import Rating

    for rating in Rating.objects.filter(game=GAME, games=1):
        assert f"{rating.wins}-{rating.draws}-{rating.losses}" in html  # W-D-L, the site's one order
    assert "alpha" in html and "beta" in html
    assert client.get(f"/games/{GAME}/", {"active": "false"}).status_code == 200
    assert client.get("/games/nochess/").status_code == 404


def test_bot_page_with_filters_and_head_to_head(client, rated_match) -> None:
    alpha, beta = Bot.objects.get(name="alpha"), Bot.objects.get(name="beta")
    html = client.get(f"/bots/{alpha.pk}/").content.decode()
    assert "Head to head" in html and "beta" in html and f"#{rated_match.pk}" in html and "bot-chart" in html
    for params in ({"opponent": beta.pk}, {"rated": "true"}, {"result": "win"}, {"result": "loss"}):
        assert client.get(f"/bots/{alpha.pk}/", params).status_code == 200
    none = client.get(f"/bots/{alpha.pk}/", {"rated": "false"}).content.decode()
    assert f"#{rated_match.pk}</a>" not in none


def test_match_page_has_viewer_and_download(client, rated_match) -> None:
    html = client.get(f"/matches/{rated_match.pk}/").content.decode()
    assert 'id="viewer"' in html and f"/api/v1/matches/{rated_match.pk}/frames/" in html
    assert f"/api/v1/matches/{rated_match.pk}/replay/" in html and 'data-has-replay="1"' in html


def test_matches_and_tournament_pages(client, rated_match, organizer) -> None:
    assert client.get("/matches/", {"game": GAME, "status": "finished"}).status_code == 200
    tour = t_services.do_create_tournament(organizer, name="Hidden Cup", game=GAME, format="double_elim")
    assert "Hidden Cup" not in client.get("/tournaments/").content.decode()
    assert client.get(f"/tournaments/{tour.pk}/").status_code == 404
    assert logged_in(organizer).get(f"/tournaments/{tour.pk}/").status_code == 200
    t_services.do_publish_tournament(tour)
    assert client.get(f"/tournaments/{tour.pk}/").status_code == 200


def test_unpublished_tournament_matches_are_hidden(client, organizer, make_bot, author, other) -> None:
    tour = t_services.do_create_tournament(organizer, name="Secret", game=GAME, format="single_elim")
    a, b = make_bot(author, "s1"), make_bot(other, "s2")
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False, tournament_id=tour.pk)
    assert client.get(f"/matches/{m.pk}/").status_code == 404
    assert logged_in(organizer).get(f"/matches/{m.pk}/").status_code == 200


@pytest.mark.parametrize("path", ["/me/bots/", "/me/bots/new/", "/me/matches/", "/me/replays.zip"])
def test_author_pages_need_login(client, path) -> None:
    r = client.get(path)
    assert r.status_code == 302 and "/accounts/login/" in r["Location"]


def test_signup_and_login(client) -> None:
    r = client.post(
        "/accounts/signup/", {"username": "carol", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"}
    )
    assert r.status_code == 302
    assert client.get("/me/bots/").status_code == 200
    fresh = Client()
    r = fresh.post("/accounts/login/", {"username": "carol", "password": "a-long-pass-phrase"})
    assert r.status_code == 302 and fresh.get("/me/bots/").status_code == 200
    assert (
        Client().post("/accounts/signup/", {"username": "dave", "password1": "x", "password2": "y"}).status_code == 200
    )


def test_create_bot_shows_token_once(author) -> None:
    c = logged_in(author)
    r = c.post("/me/bots/new/", {"game": GAME, "name": "fresh", "description": "hi"})
    html = r.content.decode()
    bot = Bot.objects.get(name="fresh")
    token_row = BotToken.objects.get(bot=bot)
    start = html.index('id="bot-token">') + len('id="bot-token">')
    token = html[start : html.index("</pre>", start)]
    assert token.startswith(token_row.prefix) and "shown once" in html and r["Cache-Control"] == "no-store"
    assert token not in c.get(f"/me/bots/{bot.pk}/").content.decode()
    assert token not in c.get("/me/bots/").content.decode()


def test_manage_bot_actions(author, make_bot, organizer) -> None:
    c = logged_in(author)
    bot = make_bot(author, "managed")
    house = make_bot(organizer, "house", house=True)
    assert c.get(f"/me/bots/{bot.pk}/").status_code == 200
    rotated = c.post(f"/me/bots/{bot.pk}/rotate-token/").content.decode()
    assert "bot-token" in rotated and BotToken.objects.filter(bot=bot, revoked_at__isnull=True).count() == 1
    c.post(f"/me/bots/{bot.pk}/new-version/", {"notes": "v2"})
    assert Bot.objects.get(pk=bot.pk).latest_version.number == 2
    c.post(f"/me/bots/{bot.pk}/toggle-active/")
    assert Bot.objects.get(pk=bot.pk).active is False
    c.post(f"/me/bots/{bot.pk}/toggle-active/")
    r = c.post(f"/me/bots/{bot.pk}/challenge/", {"opponent": house.pk})
    assert r.status_code == 302 and Match.objects.filter(requested_by=author).count() == 1
    c.post(f"/me/bots/{bot.pk}/revoke-tokens/")
    assert not BotToken.objects.filter(bot=bot, revoked_at__isnull=True).exists()


def test_other_author_cannot_manage(other, make_bot, author) -> None:
    bot = make_bot(author, "notyours")
    c = logged_in(other)
    assert c.get(f"/me/bots/{bot.pk}/").status_code == 404
    assert c.post(f"/me/bots/{bot.pk}/rotate-token/").status_code == 404
    assert BotToken.objects.filter(bot=bot, revoked_at__isnull=True).count() == 1


def test_my_matches_shows_referee_record(author, make_bot, other, finish) -> None:
    a, b = make_bot(author, "mine1"), make_bot(other, "theirs1")
    m = finish(match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False), incidents=True)
    html = logged_in(author).get("/me/matches/").content.decode()
    assert f"#{m.pk}" in html and "timeout" in html and "answered after 1200 ms" in html and "p95" in html
    assert f"#{m.pk}" not in logged_in(other).get("/me/matches/", {"status": "queued"}).content.decode()


def test_bulk_replay_zip(author, make_bot, other, finish) -> None:
    a, b = make_bot(author, "z1"), make_bot(other, "z2")
    ms = [
        finish(match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False)) for _ in range(2)
    ]
    r = logged_in(author).get("/me/replays.zip")
    names = zipfile.ZipFile(io.BytesIO(r.content)).namelist()
    assert sorted(names) == sorted(f"{GAME}/match-{m.pk}.json" for m in ms)


def test_admin_lists_every_model(organizer) -> None:
    organizer.is_superuser = True
    organizer.save(update_fields=["is_superuser"])
    c = logged_in(organizer)
    for path in [
        "bots/bot",
        "bots/botversion",
        "bots/bottoken",
        "matches/match",
        "matches/matchseat",
        "rankings/rating",
        "rankings/ratinghistory",
        "tournaments/tournament",
        "tournaments/tournamententrant",
    ]:
        assert c.get(f"/admin/{path}/").status_code == 200, path


def test_static_assets_are_served_by_the_app(client) -> None:
    for asset in ["webapp/js/viewer.js", "webapp/js/chart.js", "webapp/css/site.css"]:
        r = client.get(f"/static/{asset}")
        assert r.status_code == 200, asset


def test_admin_actions_go_through_the_services(organizer, make_bot, author, other) -> None:
    from webapp.tournaments.models import Tournament, TournamentEntrant

    organizer.is_superuser = True
    organizer.save(update_fields=["is_superuser"])
    c = logged_in(organizer)
    tour = t_services.do_create_tournament(organizer, name="Admin Cup", game=GAME, format="single_elim")
    url = "/admin/tournaments/tournament/"
    c.post(url, {"action": "open_registration", "_selected_action": [tour.pk]})
    entries = [
        t_services.do_register_entrant(tour, make_bot(u, f"adm{i}").latest_version)
        for i, u in enumerate((author, other))
    ]
    c.post("/admin/tournaments/tournamententrant/", {"action": "approve", "_selected_action": [e.pk for e in entries]})
    assert TournamentEntrant.objects.filter(tournament=tour, approved=True).count() == 2
    c.post(url, {"action": "start", "_selected_action": [tour.pk]})
    assert Tournament.objects.get(pk=tour.pk).status == "running"
    refused = c.post(url, {"action": "resume", "_selected_action": [tour.pk]}, follow=True)
    assert "needs paused" in refused.content.decode()
    queued = Match.objects.get(tournament=tour)
    c.post("/admin/matches/match/", {"action": "cancel", "_selected_action": [queued.pk]})
    assert Match.objects.get(pk=queued.pk).status == "cancelled"


def test_logout_and_api_redoc(author, client) -> None:
    c = logged_in(author)
    assert c.post("/accounts/logout/").status_code == 302
    assert c.get("/me/bots/").status_code == 302
    assert client.get("/api/redoc/").status_code == 200


def test_healthz_answers_without_login(client) -> None:
    for path in ("/healthz", "/healthz/"):
        r = client.get(path)
        assert r.status_code == 200 and r.content == b"ok" and "no-cache" in r["Cache-Control"]


def test_console_finishes_a_running_tournament_early(organizer, make_bot, author) -> None:
    """Finish from the console: queued games are cancelled, a late result changes nothing, and the
    lifecycle strip moves on; finish is refused for a tournament that has not started."""
    from webapp.tournaments.models import TournamentStatus

    tour = t_services.do_create_tournament(organizer, name="Short Cup", game=GAME, format="swiss", rounds=3)
    bots = [make_bot(author, f"f{i}") for i in range(4)]
    for b in bots:
        t_services.do_add_entrant(tour, b.latest_version)
    console = logged_in(organizer)
    r = console.post(f"/organize/tournaments/{tour.pk}/finish/", {"reason": "too early"}, follow=True)
    assert "is draft; this needs running or paused" in r.content.decode()
    tour.refresh_from_db()
    assert tour.status == TournamentStatus.DRAFT
    t_services.do_start_tournament(tour)
    queued = list(Match.objects.filter(tournament=tour).order_by("id"))
    assert len(queued) == 2
    first, second = queued
    results.do_finish_match(first.pk, forced_replay(first, (1, 2)))
    match_services.do_start_match(second.pk, "ref-1")
    html = console.get(f"/organize/tournaments/{tour.pk}/").content.decode()
    assert 'id="finish"' in html and '<li class="now">running</li>' in html
    r = console.post(f"/organize/tournaments/{tour.pk}/finish/", {"reason": "the venue closes"}, follow=True)
    html = r.content.decode()
    assert "Finished:" in html and '<li class="now">finished</li>' in html and 'id="finish"' not in html
    tour.refresh_from_db()
    assert tour.status == TournamentStatus.FINISHED
    second.refresh_from_db()
    assert second.status == "cancelled" and second.failure == "the venue closes"
    assert not Match.objects.filter(tournament=tour, status__in=["queued", "running"]).exists()
    reports = len(tour.state["reports"])
    # The round's other game cancelled: round 2 is never queued, and the standings stay as they were.
    assert Match.objects.filter(tournament=tour).count() == 2 and reports == 1
    r = console.post(f"/organize/tournaments/{tour.pk}/publish/", follow=True)
    assert '<li class="now">published</li>' in r.content.decode()


def test_entrants_author_sees_own_matches_of_an_unpublished_tournament(organizer, make_bot, author, other) -> None:
    """Before publication an author opens their own bots' games (page, API, bracket) with no secret
    before the reveal; another author and visitors still see nothing of it."""
    tour = t_services.do_create_tournament(organizer, name="Quiet Cup", game=GAME, format="single_elim")
    mine, theirs = make_bot(author, "q1"), make_bot(other, "q2")
    outsider_bots = [make_bot(organizer, f"q{i}") for i in (3, 4)]
    for b in (mine, theirs, *outsider_bots):
        t_services.do_add_entrant(tour, b.latest_version)
    t_services.do_start_tournament(tour)
    games = list(Match.objects.filter(tournament=tour).prefetch_related("seats__bot_version__bot"))
    own = next(m for m in games if mine.pk in {s.bot_version.bot_id for s in m.seats.all()})
    rest = [m for m in games if m.pk != own.pk]
    match_services.do_start_match(own.pk, "ref-1")
    me, stranger, visitor = logged_in(author), logged_in(User.objects.create_user("nosy")), Client()

    r = me.get(f"/matches/{own.pk}/")
    html = r.content.decode()
    assert r.status_code == 200 and "q1" in html
    own.refresh_from_db()
    assert 'id="seed"' not in html and str(own.seed) not in html  # running: the seed is a secret still
    detail = me.get(f"/api/v1/matches/{own.pk}/")
    assert detail.status_code == 200 and len(str(own.seed)) > 6 and str(own.seed) not in detail.content.decode()
    live = me.get(f"/api/v1/matches/{own.pk}/live/", {"wait": 0})  # the spectator's view only, never a hand
    assert live.status_code == 200 and str(own.seed) not in live.content.decode()
    frames = me.get(f"/api/v1/matches/{own.pk}/frames/")
    assert frames.status_code == 404 and frames.json()["code"] == "not_revealed"
    assert own.pk in [m["id"] for m in me.get("/api/v1/matches/").json()["results"]]
    page = me.get(f"/tournaments/{tour.pk}/")  # the bracket of a tournament they entered
    assert page.status_code == 200
    html = page.content.decode()
    assert f'href="/matches/{own.pk}/"' in html  # their game links to its page; the others, not yet
    assert not any(f'href="/matches/{m.pk}/"' in html for m in rest)
    for m in rest:  # games without their bot stay hidden until publication
        assert me.get(f"/matches/{m.pk}/").status_code == 404
    for outsider in (stranger, visitor):
        assert outsider.get(f"/matches/{own.pk}/").status_code == 404
        assert outsider.get(f"/api/v1/matches/{own.pk}/").status_code == 404
        assert outsider.get(f"/api/v1/matches/{own.pk}/frames/").status_code == 404
        assert outsider.get(f"/tournaments/{tour.pk}/").status_code == 404
        listed = outsider.get("/api/v1/matches/").json()["results"]
        assert not {m["id"] for m in listed} & {g.pk for g in games}

    # Once it has ended the author sees the seed and the replay; outsiders still nothing.
    results.do_finish_match(own.pk, forced_replay(own, (1, 2)))
    own.refresh_from_db()
    html = me.get(f"/matches/{own.pk}/").content.decode()
    assert 'id="seed"' in html and me.get(f"/api/v1/matches/{own.pk}/frames/").status_code == 200
    assert stranger.get(f"/matches/{own.pk}/").status_code == 404
