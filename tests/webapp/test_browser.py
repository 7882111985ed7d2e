"""Browser tests: headless Chromium (Debian's, never a downloaded one) driven by Playwright.

They load the real pages from pytest-django's ``live_server`` and check what a person sees: the
leaderboard chart, the replay viewer stepping through real Super Fantasy Brawl and ScrumBrawl
matches, live mode picking up a match when it finishes, a double-elimination bracket, and an
author creating a bot and seeing its token once. Screenshots go to ``test-output/screenshots/``; the ones
the docs show (:func:`docs_shot`) to ``docs/screenshots/`` under ``make screenshots``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page

from referee.core.bots import RandomPolicy
from referee.core.registry import get_game
from referee.core.replay import Recorder
from tests.webapp.conftest import GAME, forced_replay
from tests.webapp.test_tournaments import play_out
from webapp import results
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.tournaments import services as t_services

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make between
# page actions are ordinary blocking calls, which Django would otherwise refuse there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
"""Where ``make screenshots`` (BRAWL_SCREENSHOTS=docs) has :func:`docs_shot` write the screenshots the docs show."""
pytestmark = pytest.mark.django_db(transaction=True)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def docs_shot(page: Page, name: str) -> None:
    """A screenshot the docs show: into docs/screenshots/ under ``make screenshots`` (BRAWL_SCREENSHOTS=docs),
    else into test-output/screenshots/ like the others, so an ordinary test run leaves the docs as committed."""
    folder = DOCS_SHOTS if os.environ.get("BRAWL_SCREENSHOTS") == "docs" else SHOTS
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)


def real_match(game: str, seed: int, make_bot, owner_a: User, owner_b: User) -> Match:
    """Plays a real match of ``game`` with random bots and records it through the services."""
    a, b = make_bot(owner_a, f"{game[:5]}A", game=game), make_bot(owner_b, f"{game[:5]}B", game=game)
    m = match_services.do_queue_match(game, [a.latest_version, b.latest_version], rated=True, seed=seed)
    engine = get_game(game)
    rec = Recorder(engine, m.config, m.seed, [a.name, b.name], meta={"match_id": m.pk})
    policies = [RandomPolicy(11), RandomPolicy(12)]
    while rec.outcome() is None:
        d = rec.match.to_move()
        assert d is not None
        rec.apply(policies[d.seat].choose(d, rec.match.observe(d.seat), rec.match.legal_options()), think_ms=5)
    return results.do_finish_match(m.pk, rec.finish())


def board_html(page: Page) -> str:
    return page.inner_html("#board")


def step_until_board_changes(page: Page, limit: int = 60) -> int:
    before = board_html(page)
    for n in range(1, limit + 1):
        page.keyboard.press("ArrowRight")
        if board_html(page) != before:
            return n
    raise AssertionError(f"the board did not change in {limit} steps")


def test_leaderboard_renders_with_chart(live_server, page: Page, make_bot, author, other, organizer) -> None:
    bots = [make_bot(u, n) for u, n in ((author, "alpha"), (other, "beta"), (organizer, "gamma"))]
    for j in range(9):
        x, y = bots[j % 3], bots[(j + 1) % 3]
        m = match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=True)
        results.do_finish_match(m.pk, forced_replay(m, (1, 2) if j % 4 else (2, 1)))
    page.goto(f"{live_server.url}/games/{GAME}/")
    page.wait_for_selector("svg.rating-chart polyline.series")
    assert page.locator("svg.rating-chart polyline.series").count() == 3
    assert page.locator("table.leaderboard tbody tr").count() == 3
    assert page.locator("td.trend svg polyline").count() == 3
    shot(page, "leaderboard.png")
    page.goto(f"{live_server.url}/bots/{bots[0].pk}/")
    page.wait_for_selector("svg.rating-chart circle.peak")
    docs_shot(page, "bot-page.png")


@pytest.mark.parametrize(
    ("game", "piece"), [("superfantasybrawl", ".piece-champion"), ("scrumbrawl", ".piece-creature")]
)
def test_replay_viewer_steps_through_a_real_match(
    live_server, page: Page, make_bot, author, other, game, piece
) -> None:
    match = real_match(game, 5, make_bot, author, other)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_selector("#viewer[data-loaded='1']")
    assert page.get_attribute("#viewer", "data-frame") == "0"
    steps = step_until_board_changes(page)
    assert page.get_attribute("#viewer", "data-frame") == str(steps)
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("#viewer", "data-frame") == str(steps - 1)
    page.keyboard.press("End")
    last = int(page.get_attribute("#seek", "max") or 0)
    assert last > 10 and page.get_attribute("#viewer", "data-frame") == str(last)
    assert page.locator(f"#board {piece}").count() > 0
    assert page.locator("#event-log li").count() > last  # one line per decision plus the events
    page.keyboard.press("Home")
    page.select_option("#speed", "60")
    page.click("#play-btn")
    page.wait_for_function("Number(document.getElementById('viewer').dataset.frame) >= 5")
    page.click("#play-btn")
    page.eval_on_selector("#seek", "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", str(last // 2))
    assert page.get_attribute("#viewer", "data-frame") == str(last // 2)
    shot(page, f"replay-{game}.png")


def test_live_mode_loads_the_replay_when_the_match_finishes(live_server, page: Page, make_bot, author, other) -> None:
    a, b = make_bot(author, "live1"), make_bot(other, "live2")
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False)
    match_services.do_start_match(m.pk, "ref-live")
    page.goto(f"{live_server.url}/matches/{m.pk}/")
    page.wait_for_selector("#viewer-message:has-text('Live')")
    results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    page.wait_for_selector("#viewer[data-loaded='1']", timeout=10_000)
    assert page.inner_text("#match-status") == "finished"


def test_double_elimination_bracket_renders(live_server, page: Page, make_bot, organizer) -> None:
    tour = t_services.do_create_tournament(organizer, name="Winter Double", game=GAME, format="double_elim")
    t_services.do_open_registration(tour)
    for i in range(6):
        owner = User.objects.create_user(f"de{i}")
        bot = make_bot(owner, f"de-bot-{i}")
        t_services.do_approve_entrant(t_services.do_register_entrant(tour, bot.latest_version), True, seed=i + 1)
    t_services.do_start_tournament(tour)
    t_services.do_publish_tournament(tour)
    play_out(tour)
    page.goto(f"{live_server.url}/tournaments/{tour.pk}/")
    page.wait_for_selector("svg#bracket")
    labels = page.eval_on_selector_all("svg#bracket text.section-label", "els => els.map(e => e.textContent)")
    assert labels[:3] == ["Winners' bracket", "Losers' bracket", "Grand final"]
    series = page.locator("svg#bracket g.series").count()
    assert series == Match.objects.filter(tournament=tour).values("tournament_slot").distinct().count()
    assert page.locator("svg#bracket g.series.decided").count() == series
    assert (
        page.locator("table.standings tr >> nth=1").locator("td >> nth=-1").text_content() or ""
    ).strip() == "champion"
    docs_shot(page, "bracket-double-elim.png")
    page.click("svg#bracket g.series >> nth=0")
    page.wait_for_selector("#viewer")


def test_author_signs_up_creates_a_bot_and_sees_the_token_once(live_server, page: Page) -> None:
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", "newauthor")
    page.fill("#id_password1", "a-long-pass-phrase")
    page.fill("#id_password2", "a-long-pass-phrase")
    page.click("#signup-form button[type=submit]")
    page.wait_for_url("**/me/bots/")
    page.goto(f"{live_server.url}/me/bots/new/")
    page.select_option("#id_game", GAME)
    page.fill("#id_name", "FirstBot")
    page.click("#create-bot-form button[type=submit]")
    token = page.inner_text("#bot-token").strip()
    assert token.startswith("brawl_") and len(token) > 40
    shot(page, "token-once-signup.png")
    bot = Bot.objects.get(name="FirstBot")
    page.goto(f"{live_server.url}/me/bots/")
    assert token not in page.content() and bot.tokens.get().prefix in page.content()
    page.goto(f"{live_server.url}/me/bots/{bot.pk}/")
    assert token not in page.content()
