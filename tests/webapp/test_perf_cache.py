"""Cached pages change as soon as their data does.

The bot page, the leaderboard page and the ratings API are served from the cache (the real one of
the settings: Redis with ``REDIS_URL``) while nothing they show has changed: a second request makes
fewer queries than the first. Recording a result, deactivating a bot or adding a version must show
on the very next request, with no cache entry deleted by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.matches import services as match_services

pytestmark = pytest.mark.django_db(transaction=True)  # on_commit hooks (the bots generation) run for real


def get(client: Client, url: str, **params: Any) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url, params)
    assert r.status_code == 200, url
    return r.content.decode(), len(ctx.captured_queries)


def record(a: Bot, b: Bot, ranks: tuple[int, int], *, rated: bool = True) -> None:
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=rated)
    results.do_finish_match(m.pk, forced_replay(m, ranks))


def h2h_row(html: str, name: str) -> tuple[int, int, int]:
    """W, D, L of the head-to-head row of opponent ``name`` on a bot page."""
    cell = r'<td class="num">(\d+)</td>'
    found = re.search(rf">{name}</a></td>{cell}{cell}{cell}", html)
    assert found, name
    return int(found[1]), int(found[2]), int(found[3])


@pytest.fixture
def bots(make_bot: Callable[..., Bot]) -> list[Bot]:
    return [make_bot(User.objects.create_user(f"cache{i}"), f"cached{i}") for i in range(3)]


def test_bot_page_changes_after_a_result(bots: list[Bot]) -> None:
    a, b, c = bots
    record(a, b, (1, 2))
    client = Client()
    first, cold = get(client, f"/bots/{a.pk}/")
    again, warm = get(client, f"/bots/{a.pk}/")
    assert again == first and warm < cold, (warm, cold)  # served from the cache
    assert h2h_row(first, "cached1") == (1, 0, 0)

    record(b, a, (1, 2))  # a loses to b
    record(a, c, (1, 1), rated=False)  # a new opponent, unrated
    html, _ = get(client, f"/bots/{a.pk}/")
    assert h2h_row(html, "cached1") == (1, 0, 1) and h2h_row(html, "cached2") == (0, 1, 0)
    assert "1-0-1" in html  # the rated W-D-L of the ratings table moved too
    assert re.search(r'id="bot-record">3 finished matches, <abbr[^>]*>1-1-1</abbr>', html)  # BotStats, all matches

    # A new version shows at once (the bots generation moves when the version is committed).
    bot_services.do_create_version(a, notes="faster")
    html, _ = get(client, f"/bots/{a.pk}/")
    assert "latest version v2" in html and "<td>v2</td>" in html


def leaderboard_games(html: str, name: str) -> str:
    row = re.search(rf">{name}</a>.*?</tr>", html, re.S)
    assert row, name
    wdl = re.search(r"<td>(\d+-\d+-\d+)</td>", row[0])
    assert wdl
    return wdl[1]


def test_leaderboard_page_and_api_change_after_a_result(bots: list[Bot], anon: Any) -> None:
    a, b, c = bots
    record(a, b, (1, 2))
    client = Client()
    first, cold = get(client, f"/games/{GAME}/")
    again, warm = get(client, f"/games/{GAME}/")
    assert again == first and warm < cold, (warm, cold)
    assert leaderboard_games(first, "cached0") == "1-0-0" and leaderboard_games(first, "cached2") == "0-0-0"

    api = anon.get("/api/v1/ratings/", {"game": GAME}).json()
    with CaptureQueriesContext(connection) as ctx:
        assert anon.get("/api/v1/ratings/", {"game": GAME}).json() == api
    assert len(ctx.captured_queries) <= 2  # the stamp, and the session-free throttle uses the cache only

    record(c, a, (1, 2))
    html, _ = get(client, f"/games/{GAME}/")
    assert leaderboard_games(html, "cached0") == "1-0-1" and leaderboard_games(html, "cached2") == "1-0-0"
    rows = {r["bot"]: r for r in anon.get("/api/v1/ratings/", {"game": GAME}).json()["results"]}
    assert (rows["cached0"]["wins"], rows["cached0"]["losses"], rows["cached2"]["games"]) == (1, 1, 1)

    # Deactivating a bot takes it off the default leaderboard at once.
    bot_services.do_update_bot(Bot.objects.get(pk=c.pk), active=False)
    html, _ = get(client, f"/games/{GAME}/")
    assert ">cached2</a>" not in html
    assert "cached2" not in {r["bot"] for r in anon.get("/api/v1/ratings/", {"game": GAME}).json()["results"]}


def test_cached_match_rows_follow_the_status(bots: list[Bot]) -> None:
    a, b, _ = bots
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True)
    client = Client()
    status = re.compile(rf'#{m.pk}</a>.*?<span class="status (\w+)">', re.S)
    for url in (f"/bots/{a.pk}/", "/matches/"):
        first, _ = get(client, url)
        assert status.search(first)[1] == "queued"  # type: ignore[index]
    match_services.do_start_match(m.pk, "ref-test")
    assert all(status.search(get(client, u)[0])[1] == "running" for u in (f"/bots/{a.pk}/", "/matches/"))  # type: ignore[index]
    results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    assert all(status.search(get(client, u)[0])[1] == "finished" for u in (f"/bots/{a.pk}/", "/matches/"))  # type: ignore[index]
