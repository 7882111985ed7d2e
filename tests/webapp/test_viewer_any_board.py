"""A game the viewer has never seen, with a board of triangles, plays through a real referee and draws.

The test game Triboard (``tests/games/triboard``, registered here and nowhere in the product) is
played by two real SDK bots through a real referee on loopback, recorded through the services like
any ladder match, and opened in Debian's Chromium, on a desktop and on a 390 px phone. Nothing of
the viewer, the web tier or any package outside ``referee/games`` and the tests knows the game: the
board is drawn from the frames' generic view (its triangles' outlines, the pawns, the claim
markers), the log from the sentences the game wrote, and the decision's target is highlighted.
A second match is followed live while it runs (the views built from the referee's stream), then
as its stored replay.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page

from referee import client as referee_client
from referee.core.registry import register
from tests.games.triboard import TriBoard
from tests.games.triboard.game import cells
from tests.webapp.test_browser import shot
from tests.webapp.test_live import LoopbackReferee, SlowBot
from tests.webapp.test_viewer_browser import VIEWPORTS
from webapp import results
from webapp.matches import live
from webapp.matches import services as match_services

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
pytestmark = pytest.mark.django_db(transaction=True)

GAME = "triboard"
SIDE = 4
register(TriBoard())


class TriReferee(LoopbackReferee):
    """The live tests' loopback referee, with bots that play Triboard."""

    game = GAME


@pytest.fixture
def referee() -> Iterator[TriReferee]:
    ref = TriReferee()
    try:
        ref.connect("a", SlowBot)
        ref.connect("b", SlowBot)
        yield ref
    finally:
        live.stop_all()
        ref.close()


@pytest.fixture(params=sorted(VIEWPORTS))
def device(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[str, Page]]:
    context = browser.new_context(**VIEWPORTS[request.param])
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield request.param, pg
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def start_on(referee: TriReferee, m: Any, request_id: str, seed: int) -> None:
    """Starts queued match ``m`` on the referee as the workers would, bots ``a`` and ``b`` seated."""
    referee.wait_connected(2)
    referee_client.start_match(
        referee.internal,
        request_id=request_id,
        match_id=str(m.pk),
        game=GAME,
        bot_ids=["a", "b"],
        names=["triA", "triB"],
        config=m.config,
        seed=seed,
        join_timeout=5.0,
        labels={},
    )


def play_through_the_referee(referee: TriReferee, make_bot: Any, author: User, other: User) -> Any:
    """Queues a Triboard match, plays it on the referee as the workers would, records it; returns it."""
    a, b = make_bot(author, "triA", game=GAME), make_bot(other, "triB", game=GAME)
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False, seed=5)
    match_services.do_start_match(m.pk, referee.internal)
    start_on(referee, m, f"tri-{m.pk}", 5)
    replay = referee.replay(m.pk)
    assert replay.game == GAME and replay.outcome is not None
    return results.do_finish_match(m.pk, replay, referee_id=referee.internal), replay


def test_a_new_board_shape_plays_through_the_referee_and_draws(
    live_server: Any, device: tuple[str, Page], referee: TriReferee, make_bot: Any, author: User, other: User
) -> None:
    kind, page = device
    match, replay = play_through_the_referee(referee, make_bot, author, other)
    last = len(replay.decisions)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_selector("#viewer[data-loaded='1']")
    assert page.inner_text("#frame-label") == f"start / {last}"

    # The board: every triangle of the game's own outline, pointing up and down in turn.
    triangles = page.locator("#board polygon.cell-triangle")
    assert triangles.count() == len(cells(SIDE)) == SIDE * SIDE
    assert page.locator("#board polygon.cell-triangle.up").count() == SIDE * (SIDE + 1) // 2
    corners = page.eval_on_selector_all(
        "#board polygon.cell-triangle", "els => els.map(e => e.getAttribute('points').split(' ').length)"
    )
    assert set(corners) == {3}
    # Two pawns on their starting triangles, and the two claims they start on.
    assert page.locator("#board .piece-pawn").count() == 2
    assert page.get_attribute("#board .piece-pawn[data-piece='pawn0']", "class") is not None
    assert page.locator("#board .marker-claim").count() == 2

    # Step to the end: more claims drawn, the result banner, the log in the game's own sentences.
    page.keyboard.press("End") if kind == "desktop" else page.tap("button[data-act='last']")
    assert page.get_attribute("#viewer", "data-frame") == str(last)
    assert page.locator("#board .marker-claim").count() > 2
    log_text = page.inner_text("#event-log")
    assert re.search(r"triA \(seat 0\) (moves the pawn from t\d\.\d to t\d\.\d|plays the rune [a-z]+\d)", log_text)
    assert "claims t" in log_text and "is dealt" not in log_text  # a seat's deal is not the spectator's to read
    assert "triA (seat 0) chose" in log_text or "triB (seat 1) chose" in log_text
    assert page.locator("#result-banner").is_visible()
    assert "Runes of triA (seat 0): 2 face down" in page.inner_text("#public-state")

    # The decision's target is highlighted: a move lights the triangle it moved to.
    moves = [n + 1 for n, d in enumerate(replay.decisions) if d.option_id.startswith("move:")]
    assert moves
    page.eval_on_selector("#seek", "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", str(moves[0]))
    target = replay.decisions[moves[0] - 1].option_id.split(":", 1)[1]
    assert page.locator(f"#board polygon.cell.target[data-cell='{target}']").count() == 1

    board = page.locator("#board svg").bounding_box()
    assert board is not None
    shot(page, f"replay-triboard-{kind}.png")
    if kind == "phone":
        assert board["width"] >= 340
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    else:
        assert board["width"] >= 600


class ThinkingBot(SlowBot):
    """Thinks long enough (0.1 s a decision) for the browser to follow a few seconds of live play."""

    think = 0.1


@pytest.fixture
def slow_referee() -> Iterator[TriReferee]:
    ref = TriReferee()
    try:
        ref.connect("a", ThinkingBot)
        ref.connect("b", ThinkingBot)
        yield ref
    finally:
        live.stop_all()
        ref.close()


def test_the_new_board_draws_live_then_as_a_replay(
    live_server: Any, page: Page, slow_referee: TriReferee, make_bot: Any, author: User, other: User
) -> None:
    """While the match runs the viewer draws the live frames' views (built from the referee's stream)."""
    ref = slow_referee
    a, b = make_bot(author, "triA", game=GAME), make_bot(other, "triB", game=GAME)
    config = {"side": 6, "max_turns": 60}
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False, config=config, seed=8)
    match_services.do_start_match(m.pk, ref.internal)
    page.goto(f"{live_server.url}/matches/{m.pk}/")
    page.wait_for_selector("#viewer-message:has-text('Live')")
    start_on(ref, m, f"tri-live-{m.pk}", 8)
    page.wait_for_selector("#viewer[data-live='1'] #board polygon.cell-triangle", timeout=15_000)
    assert page.locator("#board polygon.cell-triangle").count() == 36
    first = int(page.evaluate("Number(document.getElementById('viewer').dataset.decision ?? -1)"))
    page.wait_for_function(f"Number(document.getElementById('viewer').dataset.decision) >= {first + 4}", timeout=20_000)
    assert page.get_attribute("#viewer", "data-live") == "1"
    assert page.locator("#board .piece-pawn").count() == 2
    assert "claims t" in page.inner_text("#event-log")
    replay = ref.replay(m.pk, timeout=60)
    results.do_finish_match(m.pk, replay, referee_id=ref.internal)
    page.wait_for_selector("#viewer[data-loaded='1']", timeout=15_000)
    assert page.get_attribute("#viewer", "data-frame") == str(len(replay.decisions))
    assert page.locator("#board polygon.cell-triangle").count() == 36
