"""After a result, a worker refreshes the cached pages it changed; readers meanwhile get the previous ones, briefly.

Real Redis and PostgreSQL, no worker process: the refresh task is captured where the web app
sends it (``webapp.tasks_out.send_task``) and its body, ``webapp.pages.refresh.refresh``, is run
here when a test wants the worker to have run (``tests/workers/test_page_refresh.py`` runs it in a
real worker). Partitions: a refresh shows the result (leaderboard page and API, bot page) and
serves it as a warm request does; before it, the previous page within the stale window only,
each result's window whole; a page that misses an older result, or after the window, is rebuilt
by the reader; a burst of results queues one refresh per game and per bot; an older refresh
finishing last, and concurrent writers of one piece, never leave an older state; the file
cache's ``add`` is atomic.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.webapp.conftest import GAME, forced_replay
from tests.webapp.test_perf_cache import h2h_row, leaderboard_games
from webapp import cache as page_cache
from webapp import results, tasks_out
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.pages import refresh as page_refresh
from webapp.rankings import views_pages
from webapp.rankings.stamps import leaderboard_stamp

pytestmark = pytest.mark.django_db(transaction=True)  # the refresh is requested when the result commits


@pytest.fixture
def sent(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    """Turns the refresh on (``BRAWL_DISPATCH=celery``) and captures the tasks sent instead of sending them."""
    settings.BRAWL_DISPATCH = "celery"
    settings.BRAWL_PAGE_STALE_SECONDS = 5.0
    out: list[tuple[str, list[Any]]] = []

    def send(
        name: str, args: list[Any] | None = None, countdown: float | None = None, queue: str | None = None
    ) -> None:
        if name == page_refresh.REFRESH_TASK:  # not the matches' starts
            out.append((name, args or []))

    monkeypatch.setattr(tasks_out, "send_task", send)
    return out


class Clock:
    """The stale markers' clock (``webapp.cache.clock``), moved by the test instead of slept through."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(page_cache, "clock", fake)
    return fake


def run_refreshes(sent: list[tuple[str, list[Any]]]) -> None:
    """Runs the refreshes sent so far, as the worker would, and forgets them."""
    for name, args in sent:
        assert name == "workers.tasks.refresh_pages"
        page_refresh.refresh(*args)
    sent.clear()


@pytest.fixture
def bots(make_bot: Callable[..., Bot]) -> list[Bot]:
    return [make_bot(User.objects.create_user(f"fresh{i}"), f"fresh{i}") for i in range(3)]


def record(a: Bot, b: Bot, ranks: tuple[int, int], *, rated: bool = True) -> None:
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=rated)
    results.do_finish_match(m.pk, forced_replay(m, ranks))


def get(client: Client, url: str, **params: Any) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url, params)
    assert r.status_code == 200, url
    return r.content.decode(), len(ctx.captured_queries)


def api_row(name: str) -> dict[str, Any]:
    rows = Client().get("/api/v1/ratings/", {"game": GAME}).json()["results"]
    return next(r for r in rows if r["bot"] == name)


def test_a_refresh_shows_the_result_and_readers_get_the_previous_page_until_it_runs(
    bots: list[Bot], sent: list[tuple[str, list[Any]]]
) -> None:
    a, b, _ = bots
    client = Client()
    for url in (f"/games/{GAME}/", f"/bots/{a.pk}/", "/api/v1/ratings/?game=" + GAME):
        get(client, url)  # read lately: the refresh keeps these pages
    record(a, b, (1, 2))
    assert [args for _, args in sent] == [[GAME, [a.pk, b.pk]]]
    run_refreshes(sent)
    # Refreshed: what a warm request costs (the stamp; the bot page's bot and its page of matches).
    board, board_queries = get(client, f"/games/{GAME}/")
    assert leaderboard_games(board, "fresh0") == "1-0-0" and board_queries == 1
    page, page_queries = get(client, f"/bots/{a.pk}/")
    assert h2h_row(page, "fresh1") == (1, 0, 0) and page_queries == 2
    assert api_row("fresh0")["wins"] == 1

    record(b, a, (1, 2))  # a loses to b
    # The refresh is queued, not run: readers get the previous pieces, as cheaply.
    board, queries = get(client, f"/games/{GAME}/")
    assert leaderboard_games(board, "fresh0") == "1-0-0" and queries == 1
    page, queries = get(client, f"/bots/{a.pk}/")
    assert h2h_row(page, "fresh1") == (1, 0, 0)
    # ... with the matches of that moment, stored by the refresh beside the profile: only the bot is read.
    assert len(re.findall(r'<span class="status finished">', page)) == 1 and queries == 1
    author = Client()
    author.force_login(User.objects.get(username="fresh0"))  # may see more matches than a visitor: read now
    page, _ = get(author, f"/bots/{a.pk}/")
    assert h2h_row(page, "fresh1") == (1, 0, 0) and len(re.findall(r'<span class="status finished">', page)) == 2
    assert api_row("fresh0")["losses"] == 0

    run_refreshes(sent)
    board, queries = get(client, f"/games/{GAME}/")
    assert leaderboard_games(board, "fresh0") == "1-0-1" and leaderboard_games(board, "fresh1") == "1-0-1"
    assert queries == 1
    page, queries = get(client, f"/bots/{a.pk}/")
    assert h2h_row(page, "fresh1") == (1, 0, 1) and queries == 2
    assert re.search(r'id="bot-record">2 finished matches, <abbr[^>]*>1-0-1</abbr>', page)
    assert api_row("fresh0")["losses"] == 1 and api_row("fresh1")["wins"] == 1
    # The bot's first page of matches was rendered by the refresh too: both matches, finished.
    assert len(re.findall(r'<span class="status finished">', page)) == 2


def test_a_refresh_computes_only_the_pages_read_lately(bots: list[Bot], sent: list[tuple[str, list[Any]]]) -> None:
    a, b, _ = bots
    client = Client()
    get(client, f"/bots/{a.pk}/")
    record(a, b, (1, 2))
    report = page_refresh.refresh(*sent[0][1])
    assert report == {"leaderboard": 0, "bots": 2}  # a's profile and first page of matches; b's page is unread
    assert h2h_row(get(client, f"/bots/{b.pk}/")[0], "fresh0") == (0, 0, 1)  # its first reader builds it
    assert leaderboard_games(get(client, f"/games/{GAME}/")[0], "fresh0") == "1-0-0"


def test_the_previous_page_is_served_only_within_the_stale_window(
    bots: list[Bot], sent: list[tuple[str, list[Any]]], settings: Any, clock: Clock
) -> None:
    a, b, _ = bots
    client = Client()
    settings.BRAWL_PAGE_STALE_SECONDS = 1.0
    get(client, f"/games/{GAME}/")
    get(client, f"/bots/{a.pk}/")
    record(a, b, (1, 2))
    run_refreshes(sent)
    record(b, a, (1, 2))
    clock.advance(0.9)
    assert leaderboard_games(get(client, f"/games/{GAME}/")[0], "fresh0") == "1-0-0"  # refresh queued: previous page
    clock.advance(0.2)  # the window is over and no refresh came: the reader rebuilds the page
    assert leaderboard_games(get(client, f"/games/{GAME}/")[0], "fresh0") == "1-0-1"
    assert h2h_row(get(client, f"/bots/{a.pk}/")[0], "fresh1") == (1, 0, 1)


def test_each_result_gets_its_whole_stale_window(
    bots: list[Bot], sent: list[tuple[str, list[Any]]], settings: Any, clock: Clock
) -> None:
    a, b, _ = bots
    client = Client()
    settings.BRAWL_PAGE_STALE_SECONDS = 2.0
    get(client, f"/games/{GAME}/")
    record(a, b, (1, 2))
    run_refreshes(sent)
    clock.advance(1.5)
    record(b, a, (1, 2))
    clock.advance(0.8)  # 2.3 s after the first result, 0.8 s after this one: still the previous page
    assert leaderboard_games(get(client, f"/games/{GAME}/")[0], "fresh0") == "1-0-0"


def test_a_page_missing_an_older_result_is_rebuilt(
    bots: list[Bot], sent: list[tuple[str, list[Any]]], settings: Any
) -> None:
    a, b, c = bots
    client = Client()
    get(client, f"/games/{GAME}/")
    get(client, f"/bots/{a.pk}/")
    record(a, b, (1, 2))
    run_refreshes(sent)
    settings.BRAWL_DISPATCH = "none"
    record(c, a, (1, 2))  # recorded with no refresh and no reader since: the cached pages miss it
    settings.BRAWL_DISPATCH = "celery"
    record(b, a, (1, 2))  # marks the state after the result before, not the cached pages' state
    board, _ = get(client, f"/games/{GAME}/")
    assert leaderboard_games(board, "fresh0") == "1-0-2"  # rebuilt: both results
    page, _ = get(client, f"/bots/{a.pk}/")
    assert h2h_row(page, "fresh2") == (0, 0, 1) and h2h_row(page, "fresh1") == (1, 0, 1)


def test_a_burst_of_results_queues_one_refresh_per_game_and_per_bot(
    bots: list[Bot], sent: list[tuple[str, list[Any]]]
) -> None:
    a, b, c = bots
    for x, y in [(a, b), (b, c), (c, a), (a, b), (b, a)]:
        record(x, y, (1, 2))
    games = [args[0] for _, args in sent if args[0]]
    refreshed_bots = [bot for _, args in sent for bot in args[1]]
    assert games == [GAME] and sorted(refreshed_bots) == sorted({a.pk, b.pk, c.pk})
    assert len(sent) == 2  # (a, b) queues the game and both; (b, c) queues c alone; the rest share them
    run_refreshes(sent)
    record(a, c, (1, 2), rated=False)  # after the refresh began, a result queues again; unrated: no leaderboard
    assert [args for _, args in sent] == [[None, [a.pk, c.pk]]]


def test_without_workers_nothing_is_marked_and_readers_see_the_result_at_once(bots: list[Bot]) -> None:
    a, b, _ = bots
    client = Client()
    record(a, b, (1, 2))
    assert leaderboard_games(get(client, f"/games/{GAME}/")[0], "fresh0") == "1-0-0"
    before = leaderboard_stamp(GAME)
    record(b, a, (1, 2))
    assert leaderboard_games(get(client, f"/games/{GAME}/")[0], "fresh0") == "1-0-1"
    assert cache.get(page_cache.stale_marker_key(f"game:{GAME}", before)) is None


def test_an_older_refresh_finishing_last_leaves_the_newer_page(
    bots: list[Bot], sent: list[tuple[str, list[Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, _ = bots
    get(Client(), f"/games/{GAME}/")  # read lately: both refreshes compute it
    record(a, b, (1, 2))
    computing, release = threading.Event(), threading.Event()
    compute = views_pages.compute_leaderboard_page

    def slow(*args: Any) -> Any:
        value = compute(*args)  # the state before the second result
        if threading.current_thread().name == "older":
            computing.set()
            assert release.wait(30)
        return value

    monkeypatch.setattr(views_pages, "compute_leaderboard_page", slow)

    def older() -> None:
        try:
            page_refresh.refresh_leaderboard(GAME)
        finally:
            connections.close_all()

    thread = threading.Thread(target=older, name="older")
    thread.start()
    try:
        assert computing.wait(30)
        record(b, a, (1, 2))
        page_refresh.refresh_leaderboard(GAME)  # the newer refresh runs to its end first
    finally:
        release.set()
        thread.join(30)
    stamp, value = cache.get(views_pages.leaderboard_key(GAME, True, 1))
    assert stamp == leaderboard_stamp(GAME)
    assert leaderboard_games(value["rows_html"], "fresh0") == "1-0-1"


@pytest.fixture
def writers() -> Iterator[None]:
    yield
    connections.close_all()


def test_concurrent_writers_of_one_piece_leave_the_newest(writers: None) -> None:
    key = "test:refresh:race"
    stamps = [(n, g) for n in range(6) for g in range(3)]

    def write(start: threading.Barrier, stamp: tuple[int, int]) -> None:
        start.wait()
        page_cache.store_if_newer(key, stamp, f"value {stamp}", wait=5)

    for round_ in range(5):
        cache.delete(key)
        random.Random(round_).shuffle(stamps)
        start = threading.Barrier(len(stamps))
        threads = [threading.Thread(target=write, args=(start, s)) for s in stamps]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert cache.get(key) == ((5, 2), "value (5, 2)")


def test_the_file_caches_add_lets_one_of_concurrent_adders_win(tmp_path: Path) -> None:
    shared = page_cache.SharedFileCache(str(tmp_path / "cache"), {})

    def add(start: threading.Barrier, wins: list[int], key: str, who: int) -> None:
        start.wait()
        if shared.add(key, who, timeout=60):
            wins.append(who)

    for n in range(10):
        start, wins = threading.Barrier(8), []
        threads = [threading.Thread(target=add, args=(start, wins, f"lock-{n}", i)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(wins) == 1 and shared.get(f"lock-{n}") == wins[0]
    shared.set("expired", 1, timeout=-1)
    assert shared.add("expired", 2, timeout=60) and shared.get("expired") == 2


def test_the_ratings_api_links_name_the_host_asked_and_its_page(bots: list[Bot]) -> None:
    a, b, _ = bots
    record(a, b, (1, 2))
    query = {"game": GAME, "page_size": 1, "page": 2}
    first = Client(HTTP_HOST="testserver").get("/api/v1/ratings/", query).json()
    assert first["count"] == 3 and len(first["results"]) == 1
    assert first["next"] == f"http://testserver/api/v1/ratings/?game={GAME}&page=3&page_size=1"
    assert first["previous"] == f"http://testserver/api/v1/ratings/?game={GAME}&page_size=1"
    other = Client(HTTP_HOST="localhost").get("/api/v1/ratings/", query).json()  # the same cached answer
    assert other["next"] == f"http://localhost/api/v1/ratings/?game={GAME}&page=3&page_size=1"
    assert other["results"] == first["results"]
    assert Client().get("/api/v1/ratings/", {**query, "page": 4}).status_code == 404
