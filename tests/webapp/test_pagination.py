"""Keyset (cursor) pagination of match lists: the API and the pages.

Walking ``next`` links while new matches are queued and finished between requests lists every
match that existed at the start exactly once, newest first; walking back with ``previous`` gives
the same pages. The list rows built from plain values equal what ``MatchSerializer`` says of the
same matches. On real PostgreSQL, through the real URL routing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.matches.pagination import Cursor
from webapp.matches.serializers import MatchSerializer
from webapp.matches.views import match_queryset

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(make_bot: Callable[..., Bot]) -> tuple[Bot, Bot]:
    return make_bot(User.objects.create_user("p1"), "pager1"), make_bot(User.objects.create_user("p2"), "pager2")


def queue(a: Bot, b: Bot, *, finish: bool) -> Match:
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False)
    if finish:
        results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    return m


def test_no_match_lost_or_repeated_while_new_matches_arrive(anon: Any, pair: tuple[Bot, Bot]) -> None:
    a, b = pair
    existing = [queue(a, b, finish=i % 3 != 0).pk for i in range(17)]
    seen: list[int] = []
    url: str | None = f"/api/v1/matches/?bot={a.pk}&page_size=4"
    pages = []
    while url:
        body = anon.get(url).json()
        assert "count" not in body
        pages.append([r["id"] for r in body["results"]])
        seen += pages[-1]
        # Between two requests, matches arrive and some earlier ones finish: no page may shift.
        queue(a, b, finish=True)
        queue(a, b, finish=False)
        url = body["next"]
    assert seen == sorted(existing, reverse=True)
    assert len(pages) == 5 and [len(p) for p in pages] == [4, 4, 4, 4, 1]

    # Walking back from the last page with ``previous`` gives the same pages, in reverse.
    body = anon.get(f"/api/v1/matches/?bot={a.pk}&page_size=4&cursor={Cursor(True, pages[-1][0] + 1).encode()}").json()
    back = [[r["id"] for r in body["results"]]]
    while True:
        prev = body["previous"]
        if prev is None:
            break
        body = anon.get(prev).json()
        back.append([r["id"] for r in body["results"]])
    # The walk back reaches the matches that arrived meanwhile: the pages before them are the same pages.
    assert [p for p in back if set(p) <= set(existing)] == pages[::-1]
    assert set().union(*map(set, back)) - set(existing), "the newer matches show up on the way back"


def test_numbered_pages_still_work_and_bad_cursors_are_refused(anon: Any, pair: tuple[Bot, Bot]) -> None:
    a, b = pair
    ids = [queue(a, b, finish=True).pk for _ in range(5)]
    body = anon.get("/api/v1/matches/", {"bot": a.pk, "page": 2, "page_size": 2}).json()
    assert body["count"] == 5 and [r["id"] for r in body["results"]] == sorted(ids, reverse=True)[2:4]
    for bad in ("zzz", "!", "Ynh5", "YQ", "Yi01"):  # "bxy", "a" (no id), "b-5" in base64; "zzz" is not base64
        r = anon.get("/api/v1/matches/", {"cursor": bad})
        assert r.status_code == 400 and r.json()["code"] == "bad_parameter", bad
    assert anon.get("/api/v1/matches/", {"page_size": 0}).status_code == 400


def test_list_rows_equal_the_serializer(anon: Any, pair: tuple[Bot, Bot], rated_match: Match) -> None:
    a, b = pair
    queue(a, b, finish=True)
    queue(a, b, finish=False)
    started = queue(a, b, finish=False)
    match_services.do_start_match(started.pk, "ref-x")
    listed = anon.get("/api/v1/matches/", {"page_size": 200}).json()["results"]
    expected = MatchSerializer(match_queryset().order_by("-id"), many=True).data
    assert listed == [dict(m) | {"seats": [dict(s) for s in m["seats"]]} for m in expected]
    assert any(m["has_replay"] for m in listed) and len(listed) == 4


def test_pages_page_by_cursor(pair: tuple[Bot, Bot]) -> None:
    a, b = pair
    ids = sorted((queue(a, b, finish=True).pk for _ in range(27)), reverse=True)
    client = Client()
    first = client.get(f"/bots/{a.pk}/").content.decode()
    assert f"#{ids[0]}<" in first and f"#{ids[25]}<" not in first and "older →" in first
    older = client.get(f"/bots/{a.pk}/", {"cursor": Cursor(True, ids[24]).encode()}).content.decode()
    assert f"#{ids[25]}<" in older and f"#{ids[26]}<" in older and f"#{ids[24]}<" not in older and "← newer" in older
    # A page never answers 400: an unreadable cursor shows the first page.
    assert f"#{ids[0]}<" in client.get(f"/bots/{a.pk}/", {"cursor": "garbage"}).content.decode()
    listing = client.get("/matches/").content.decode()
    assert f"#{ids[0]}<" in listing and "older →" not in listing  # 27 matches fit one page of 50
