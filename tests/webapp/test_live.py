"""Live mode: the web app follows a running match through its referee's public WatchMatch stream.

A real referee runs on loopback (in a background event loop of this process) and plays a real
ScrumBrawl match between two SDK bots that sleep a few milliseconds per decision, so the match
lasts a couple of seconds. The API's ``live/`` endpoint must return frames that grow while the
match runs, each equal to the spectator view (``observe(None)``) at its decision, never a seat's
hand; and once the match is recorded it must say so, so the viewer switches to the stored replay.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page
from rest_framework.test import APIClient

from referee import client as referee_client
from referee.core.chance import SeededChance
from referee.core.contract import Decision, Option
from referee.core.ids import BotId, MatchId
from referee.core.registry import get_game
from referee.core.replay import Replay
from referee.sdk import BotClient
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.service import RefereeServer, create_server
from referee.server.sinks import MemoryResultSink
from tests.webapp.test_browser import shot
from webapp import results
from webapp.bots.models import Bot
from webapp.matches import live
from webapp.matches import services as match_services
from webapp.matches.boards import board_layout
from webapp.matches.frames import spectator_frames
from webapp.matches.models import Match

GAME = "scrumbrawl"
CONFIG = {"max_rounds": 6}
SEED = 11
THINK_SECONDS = 0.008
"""Each bot sleeps this long per decision: a ScrumBrawl match of 6 rounds then lasts 1 to 3 s."""


class SlowBot:
    """Chooses a random legal option after a short sleep, like a bot that thinks."""

    think = THINK_SECONDS

    def __init__(self) -> None:
        self.rng = random.Random(3)

    def choose(self, decision: Decision, observation: dict[str, Any], options: Sequence[Option]) -> str:
        time.sleep(self.think)
        return self.rng.choice(list(options)).id


class SlowerBot(SlowBot):
    """Thinks long enough for a browser to watch a few seconds of play."""

    think = 0.03


class LoopbackReferee:
    """A real referee server and SDK bots, on an event loop running in a background thread."""

    game = GAME
    """The game its bots connect for (a subclass names another)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="referee-loop", daemon=True)
        self.thread.start()
        self.store = MemoryTokenStore()
        self.sink = MemoryResultSink()
        self.clients: list[tuple[BotClient, Any]] = []
        self.server: RefereeServer = self.run(self._start())

    async def _start(self) -> RefereeServer:
        server = create_server(
            "127.0.0.1:0", tokens=self.store, sink=self.sink, settings=RefereeSettings(ping_interval=0.2)
        )
        await server.start()
        return server

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    @property
    def internal(self) -> str:
        """The internal API (what the workers and the web tier call, and ``Match.referee_id`` names)."""
        return f"127.0.0.1:{self.server.internal_port}"

    def run(self, coro: Any, timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def connect(self, bot_id: str, factory: Callable[[], Any]) -> None:
        token = self.store.issue(BotIdentity(BotId(bot_id), bot_id.upper(), "v1", "tester", frozenset({self.game})))

        async def make() -> BotClient:
            return BotClient(factory, self.address, token, games=[self.game], max_matches=4)

        client = self.run(make())
        self.clients.append((client, asyncio.run_coroutine_threadsafe(client.run(), self.loop)))

    def wait_connected(self, count: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, bots = referee_client.list_bots(self.internal, self.game)
            if len(bots) >= count:
                return
            time.sleep(0.05)
        raise AssertionError(f"{count} bots did not connect")

    def replay(self, match_id: int, timeout: float = 30.0) -> Replay:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.sink.replays.get(MatchId(str(match_id)))
            if found is not None:
                return found
            time.sleep(0.05)
        raise AssertionError(f"match {match_id} did not end")

    def close(self) -> None:
        for client, _ in self.clients:
            self.loop.call_soon_threadsafe(client.stop)
        for _, future in self.clients:
            # A client stopped mid-stream may end with the stream's error.
            with contextlib.suppress(Exception):
                future.result(10)
        self.run(self.server.stop(0.5))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def bot_class() -> type[SlowBot]:
    return SlowBot


@pytest.fixture
def referee(bot_class: type[SlowBot]) -> Iterator[LoopbackReferee]:
    ref = LoopbackReferee()
    try:
        ref.connect("a", bot_class)
        ref.connect("b", bot_class)
        ref.wait_connected(2)
        yield ref
    finally:
        live.stop_all()
        ref.close()


def normal(data: Any) -> Any:
    return json.loads(json.dumps(data))


def hands(data: Any) -> list[Any]:
    """Every value stored under a ``hand`` key anywhere in ``data``."""
    found: list[Any] = []
    if isinstance(data, dict):
        for k, v in data.items():
            if k == "hand":
                found.append(v)
            found.extend(hands(v))
    elif isinstance(data, list):
        for v in data:
            found.extend(hands(v))
    return found


def private_views(replay: Replay) -> dict[int, list[dict[str, Any]]]:
    """Each seat's own observation after every decision of ``replay`` (what must never leak)."""
    game = get_game(replay.game)
    match = game.new_match(
        game.parse_config(replay.config, len(replay.seats)), len(replay.seats), SeededChance(replay.seed)
    )
    views = {0: [match.observe(s) for s in range(len(replay.seats))]}
    for n, d in enumerate(replay.decisions):
        match.apply(d.option_id)
        views[n + 1] = [match.observe(s) for s in range(len(replay.seats))]
    return views


def queue(make_bot: Callable[..., Bot], author: User, other: User, config: dict[str, Any]) -> Match:
    a = make_bot(author, "alpha", game=GAME)
    b = make_bot(other, "beta", game=GAME)
    return match_services.do_queue_match(
        GAME, [a.latest_version, b.latest_version], rated=False, config=config, seed=SEED
    )


def start_on(referee: LoopbackReferee, m: Match) -> None:
    """Marks the match running on ``referee`` and starts it there, as the workers do."""
    match_services.do_start_match(m.pk, referee.internal)
    referee_client.start_match(
        referee.internal,
        request_id=f"live-{m.pk}",
        match_id=str(m.pk),
        game=GAME,
        bot_ids=["a", "b"],
        names=["alpha", "beta"],
        config=m.config,
        seed=SEED,
        join_timeout=5.0,
        labels={},
    )


def test_live_frames_follow_a_running_match(
    referee: LoopbackReferee, make_bot: Callable[..., Bot], author: User, other: User, anon: APIClient
) -> None:
    m = queue(make_bot, author, other, CONFIG)
    url = f"/api/v1/matches/{m.pk}/live/"
    # Queued: nothing live yet, the viewer keeps polling the match.
    body = anon.get(url).json()
    assert body["live"] is False and body["status"] == "queued" and body["frames"] == []
    start_on(referee, m)

    received: list[dict[str, Any]] = []
    growing_polls = 0
    last = -1
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the live stream did not end"
        r = anon.get(url, {"since": last, "wait": 2})
        assert r.status_code == 200, r.content
        body = r.json()
        assert body["live"] is True and body["status"] == "running" and body["game"] == GAME
        assert body["seats"] == ["alpha", "beta"]
        assert body["board"] == normal(board_layout(GAME))
        indices = [f["index"] for f in body["frames"]]
        assert indices == sorted(set(indices)) and all(i > last for i in indices)
        if body["frames"] and body["referee_state"] == "running" and not body["ended"]:
            growing_polls += 1
        received.extend(body["frames"])
        if body["frames"]:
            last = body["frames"][-1]["index"]
            assert body["last"] == last
        if body["ended"]:
            break
    assert body["error"] == ""
    assert body["referee_state"] == "succeeded"
    replay = referee.replay(m.pk)
    assert body["outcome"] == replay.outcome.to_json() if replay.outcome else body["outcome"] is None
    # The viewer saw the board change several times while the match was running.
    assert growing_polls >= 3, growing_polls
    assert len(received) >= 10
    assert last == len(replay.decisions)

    # Every live frame is the spectator view at its decision, and no frame carries a hand.
    expected = spectator_frames(replay)["frames"]
    private = private_views(replay)
    leaked_possible = 0
    for f in received:
        assert set(f) == {"index", "decision", "observation", "view", "events", "to_move"}
        # The board view is the spectator's, as the stored frames have it (the cells sent once, beside them).
        assert f["view"] == normal(expected[f["index"]]["view"]), f["index"]
        assert all(not a["cards"] for a in f["view"]["areas"] if a["id"].startswith("hand:")), f["index"]
        spectator = expected[f["index"]]["observation"]
        assert f["observation"] == normal(spectator), f["index"]
        assert all(h == [] for h in hands(f["observation"])), f["index"]
        for seat_view in private[f["index"]]:
            seat_hands = [h for h in hands(seat_view) if h]
            leaked_possible += bool(seat_hands)
            for h in seat_hands:
                assert normal(h) not in hands(f["observation"])
    # The check above could have failed: the seats did hold cards.
    assert leaked_possible > 0

    # All public events arrive once, in order (a full re-read also includes any folded into the last frame).
    full = anon.get(url, {"since": -1}).json()
    # Numbered in the spectator's own sequence (0, 1, 2... over the public events), not the full log's.
    replay_events = [dict(e, i=n) for n, e in enumerate(e for fr in expected for e in fr["events"])]
    live_events = [e for f in full["frames"] for e in f["events"]]
    # The typed wire message cannot tell a zero from an unset field: the live log omits both.
    assert live_events == [live.sparse_event(e) for e in normal(replay_events)]
    assert all(
        {k: v for k, v in e["data"].items() if k not in le["data"]} == {k: v for k, v in e["data"].items() if not v}
        for e, le in zip(normal(replay_events), live_events, strict=True)
    )
    incremental = [e for f in received for e in f["events"]]
    assert incremental == live_events[: len(incremental)]

    # Once the result is recorded, live mode says so and the viewer loads the stored replay.
    results.do_finish_match(m.pk, replay, referee_id=referee.internal)
    body = anon.get(url, {"since": last}).json()
    assert body["live"] is False and body["status"] == "finished" and body["has_replay"] is True
    assert anon.get(f"/api/v1/matches/{m.pk}/frames/").status_code == 200


def test_live_without_a_reachable_referee_reports_the_error(
    make_bot: Callable[..., Bot], author: User, other: User, anon: APIClient
) -> None:
    a = make_bot(author, "alpha", game=GAME)
    b = make_bot(other, "beta", game=GAME)
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False, seed=1)
    match_services.do_start_match(m.pk, "127.0.0.1:1")
    try:
        body = anon.get(f"/api/v1/matches/{m.pk}/live/", {"wait": 5}).json()
    finally:
        live.stop_all()
    assert body["live"] is True and body["ended"] is True and body["frames"] == []
    assert "UNAVAILABLE" in body["error"]


def test_live_rejects_bad_parameters(make_bot: Callable[..., Bot], author: User, other: User, anon: APIClient) -> None:
    a = make_bot(author, "alpha", game=GAME)
    b = make_bot(other, "beta", game=GAME)
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False, seed=1)
    assert anon.get(f"/api/v1/matches/{m.pk}/live/", {"since": "x"}).status_code == 400
    assert anon.get(f"/api/v1/matches/{m.pk}/live/", {"wait": "nan"}).status_code == 400


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("bot_class", [SlowerBot])
def test_browser_follows_a_running_match_then_loads_its_replay(
    live_server: Any,
    page: Page,
    referee: LoopbackReferee,
    make_bot: Callable[..., Bot],
    author: User,
    other: User,
) -> None:
    m = queue(make_bot, author, other, {"max_rounds": 8})
    match_services.do_start_match(m.pk, referee.internal)
    page.goto(f"{live_server.url}/matches/{m.pk}/")
    page.wait_for_selector("#viewer-message:has-text('Live')")
    start_on(referee, m)
    page.wait_for_selector("#viewer[data-live='1'] #board .piece-creature", timeout=10_000)
    # Read together: the board may be redrawn between two separate reads, and then the wait below
    # could end at once on the board already read.
    first, board = page.evaluate(
        "[Number(document.getElementById('viewer').dataset.decision ?? -1), document.getElementById('board').innerHTML]"
    )
    page.wait_for_function(
        f"Number(document.getElementById('viewer').dataset.decision) >= {first + 10}", timeout=20_000
    )
    assert page.inner_html("#board") != board
    assert page.get_attribute("#viewer", "data-live") == "1"
    assert "Live: decision" in page.inner_text("#viewer-message")
    shot(page, "viewer-live.png")
    replay = referee.replay(m.pk)
    results.do_finish_match(m.pk, replay, referee_id=referee.internal)
    page.wait_for_selector("#viewer[data-loaded='1']", timeout=15_000)
    assert page.inner_text("#match-status") == "finished"
    # The stored replay opens at its last frame, where the live view left off.
    assert page.get_attribute("#viewer", "data-frame") == str(len(replay.decisions))
