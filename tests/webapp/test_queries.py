"""No N+1: the number of queries of the list pages and their API twins does not grow with the data.

Each page is fetched with a small dataset, then again after adding several times more bots,
matches and rating history; the query counts must be equal.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.bots.models import Bot
from webapp.matches import services as match_services

pytestmark = pytest.mark.django_db


def grow(make_bot: Callable[..., Bot], n_bots: int, n_matches: int, tag: str) -> list[Bot]:
    bots = []
    for i in range(n_bots):
        owner = User.objects.create_user(f"{tag}-owner{i}")
        bots.append(make_bot(owner, f"{tag}bot{i}"))
    for j in range(n_matches):
        a, b = bots[j % n_bots], bots[(j + 1) % n_bots]
        m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True)
        results.do_finish_match(m.pk, forced_replay(m, (1, 2) if j % 3 else (1, 1)))
    return bots


def count(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url)
    assert r.status_code == 200, (url, r.status_code)
    return len(ctx.captured_queries)


def urls(bot: Bot, match_id: int) -> list[str]:
    return [
        "/",
        f"/games/{GAME}/",
        f"/bots/{bot.pk}/",
        f"/matches/{match_id}/",
        "/matches/",
        f"/api/v1/ratings/?game={GAME}",
        f"/api/v1/bots/{bot.pk}/",
        "/api/v1/bots/",
        f"/api/v1/matches/?bot={bot.pk}",
        f"/api/v1/matches/{match_id}/",
        f"/api/v1/rating-history/?bot={bot.pk}",
    ]


def test_query_counts_do_not_grow_with_rows(make_bot: Callable[..., Bot]) -> None:
    client = Client()
    bots = grow(make_bot, 3, 4, "a")
    from webapp.matches.models import Match

    match_id = Match.objects.order_by("-id").values_list("id", flat=True).first()
    assert match_id is not None
    small = {u: count(client, u) for u in urls(bots[0], match_id)}
    grow(make_bot, 12, 30, "b")
    # bots[0] also plays more: more matches, more history, more opponents.
    more = [bots[0], *Bot.objects.filter(name__startswith="bbot")[:6]]
    for j in range(10):
        a, b = more[0], more[1 + j % 6]
        m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True)
        results.do_finish_match(m.pk, forced_replay(m, (2, 1)))
    large = {u: count(client, u) for u in urls(bots[0], match_id)}
    assert large == small
    assert max(small.values()) <= 15, small
