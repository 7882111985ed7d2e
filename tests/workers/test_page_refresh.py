"""A real worker refreshes the cached pages a recorded result changed, before any reader asks for them.

Results are recorded here through ``matches.services`` (the recorder's write path) with
``BRAWL_DISPATCH=celery``; the refresh task goes through Redis to a real ``brawl worker`` process,
which writes the shared cache (the same Redis database, which this process's cache is pointed
at). Partitions: one result; a burst of results over three bots on a worker with two processes
(refreshes of the same pieces running concurrently). The pages are read once first (a refresh
keeps only the pages read lately); each case then waits until every piece is current without
reading a page (so no reader builds one), then reads the pages: they show the results at the cost
of a warm request.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.core.cache.utils import make_template_fragment_key
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from referee.core.ids import Seat
from referee.core.registry import get_game
from referee.core.replay import Recorder, Replay
from tests.workers.conftest import GAME, redis_url
from tests.workers.stack import Stack, wait_until
from webapp import results
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.cache import is_current
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.pages.views import bot_matches_page
from webapp.rankings import views_pages
from webapp.rankings.stamps import leaderboard_stamp, profile_stamp
from webapp.rankings.views import ratings_key, ratings_query

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shared_cache(stack: Stack, settings: Any) -> None:
    """Points this process's cache at the worker's (the stack's Redis database); refreshes sent after 0.2 s."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url()}}
    settings.BRAWL_PAGE_REFRESH_DELAY = 0.2
    cache.clear()


def forfeit(match: Match, ranks: tuple[int, int]) -> Replay:
    names = [f"seat{s.seat}" for s in match.seats.order_by("seat")]
    rec = Recorder(get_game(GAME), match.config, match.seed, names)
    rec.forfeit([Seat(i) for i, r in enumerate(ranks) if r != 1], "test result")
    return rec.finish()


def record(a: Bot, b: Bot, settings: Any) -> None:
    """``a`` beats ``b`` in a rated match, recorded through the services (the match is never sent to start)."""
    settings.BRAWL_DISPATCH = "none"  # no referee here: the match's start message would only retry
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True)
    settings.BRAWL_DISPATCH = "celery"
    match_services.do_start_match(m.pk, "ref-test")
    results.do_finish_match(m.pk, forfeit(m, (1, 2)))


def all_current(bots: list[Bot]) -> bool:
    """Whether the leaderboard's pieces and every bot's profile and first page of matches are current."""
    stamp = leaderboard_stamp(GAME)
    if not is_current(views_pages.leaderboard_key(GAME, True, 1), stamp):
        return False
    if not is_current(ratings_key(ratings_query({"game": GAME})), stamp):
        return False
    for bot in Bot.objects.filter(pk__in=[b.pk for b in bots]).select_related("latest_version", "stats"):
        if not is_current(views_pages.profile_key(bot.pk), profile_stamp(bot, views_pages.bot_stats(bot))):
            return False
        _, rows_key = bot_matches_page(AnonymousUser(), bot.pk, {}, None)
        if make_template_fragment_key("match-rows", [rows_key]) not in cache:
            return False
    return True


def read(url: str) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as ctx:
        r = Client().get(url)
    assert r.status_code == 200, url
    return r.content.decode(), len(ctx.captured_queries)


def wdl(html: str, name: str) -> str:
    row = re.search(rf">{name}</a>.*?</tr>", html, re.S)
    assert row, name
    found = re.search(r"<td>(\d+-\d+-\d+)</td>", row[0])
    assert found
    return found[1]


def test_a_real_worker_refreshes_the_pages_results_changed(stack: Stack, shared_cache: None, settings: Any) -> None:
    owner = User.objects.create_user("refresher")
    bots = []
    for name in ("ann", "bea", "cid"):
        bot, _ = bot_services.do_create_bot(owner, GAME, name)
        bots.append(Bot.objects.select_related("latest_version").get(pk=bot.pk))
    a, b, c = bots
    stack.start_worker("worker", concurrency=2)
    for url in [f"/games/{GAME}/", f"/api/v1/ratings/?game={GAME}"] + [f"/bots/{bot.pk}/" for bot in bots]:
        read(url)  # read lately: the refresh keeps these pages

    record(a, b, settings)
    wait_until(lambda: all_current([a, b]), 60, "the worker to refresh the pages of one result")
    board, queries = read(f"/games/{GAME}/")
    assert wdl(board, "ann") == "1-0-0" and wdl(board, "bea") == "0-0-1" and queries == 1
    page, queries = read(f"/bots/{a.pk}/")
    assert re.search(r'id="bot-record">1 finished match, <abbr[^>]*>1-0-0</abbr>', page) and queries == 2

    for x, y in [(b, a), (c, a), (a, c), (b, c)]:  # a burst: refreshes of the same pieces overlap
        record(x, y, settings)
    wait_until(lambda: all_current(bots), 60, "the worker to refresh the pages of a burst of results")
    board, queries = read(f"/games/{GAME}/")
    assert [wdl(board, n) for n in ("ann", "bea", "cid")] == ["2-0-2", "2-0-1", "1-0-2"] and queries == 1
    api = Client().get("/api/v1/ratings/", {"game": GAME}).json()["results"]
    assert {r["bot"]: (r["wins"], r["losses"]) for r in api} == {"ann": (2, 2), "bea": (2, 1), "cid": (1, 2)}
    page, queries = read(f"/bots/{c.pk}/")
    assert re.search(r'id="bot-record">3 finished matches, <abbr[^>]*>1-0-2</abbr>', page) and queries == 2
    assert len(re.findall(r'<span class="status finished">', page)) == 3
    assert "Traceback" not in stack.log("worker")
