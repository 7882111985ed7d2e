"""A spectator steps a replay of each game to its result banner, on a desktop and on a 390 px phone.

Headless Debian Chromium driven by Playwright, against pytest-django's ``live_server``, on real
matches of both games played by random bots and recorded through the services (the frames are
computed when the result is recorded). Issue 15, finding 3: the log reads in plain words with the
pieces' names under the decision that caused them, the counter counts decisions, the page never
scrolls by itself, a result banner ends the replay, keys, buttons and swipes step, the board keeps
its size on a phone, and the caption of the pieces off the board overlaps no label. The
screenshots in docs/screenshots/ are refreshed by these tests under ``make screenshots``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.webapp.test_browser import docs_shot, real_match
from webapp import results
from webapp.matches.frames import PATCH_VERSION

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
}


@pytest.fixture(params=sorted(VIEWPORTS))
def device(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[str, Page]]:
    context = browser.new_context(**VIEWPORTS[request.param])
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield request.param, pg
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


OPENS = 5
"""How many fresh opens of a replay the open time is the median of."""


def open_replay(chromium: Browser, kind: str, url: str) -> tuple[int, int, int, int, int, int, str]:
    """Opens ``url`` in a fresh context; returns the ms after navigation when the first frame was drawn (from
    the page's embedded head), when every frame was loaded and the viewer stepped, when the frames were asked
    and received, their bytes and decoded bytes, and the viewer's timing. The page's preload and the viewer's
    fetch make one frames request."""
    context = chromium.new_context(**VIEWPORTS[kind])
    try:
        pg = context.new_page()
        pg.goto(url)
        pg.wait_for_selector("#viewer[data-loaded='1']")
        fetched = pg.evaluate(
            "() => performance.getEntriesByType('resource').filter(e => e.name.includes('/frames/'))"
            ".map(e => [Math.round(e.startTime), Math.round(e.responseEnd), e.encodedBodySize, e.decodedBodySize])"
        )
        assert len(fetched) == 1, fetched  # the preloaded response is the one the viewer reads
        drawn = int(pg.get_attribute("#viewer", "data-drawn-ms") or 0)
        ready = int(pg.get_attribute("#viewer", "data-ready-ms") or 0)
        assert 0 < drawn <= ready
        return (drawn, ready, *fetched[0], pg.get_attribute("#viewer", "data-timing") or "")
    finally:
        context.close()


def open_floor(chromium: Browser, kind: str, url: str) -> int:
    """Opens ``url`` (a page of the site with no script) in a fresh context; ms from navigation to its
    DOMContentLoaded: the floor the replay's open time is compared with, measured in the same run."""
    context = chromium.new_context(**VIEWPORTS[kind])
    try:
        pg = context.new_page()
        pg.goto(url)
        return int(pg.evaluate("() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"))
    finally:
        context.close()


def frame(page: Page) -> int:
    return int(page.get_attribute("#viewer", "data-frame") or -1)


def seek_to(page: Page, n: int) -> None:
    page.eval_on_selector("#seek", "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", str(n))


def swipe(page: Page, dx: int) -> None:
    """A one-finger horizontal swipe of ``dx`` CSS pixels across the board, as real touch events."""
    page.eval_on_selector(
        "#board",
        """(el, dx) => {
          const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
          const t = (cx) => new Touch({identifier: 1, target: el, clientX: cx, clientY: y});
          el.dispatchEvent(new TouchEvent('touchstart', {touches: [t(x)], changedTouches: [t(x)], bubbles: true}));
          el.dispatchEvent(new TouchEvent('touchend', {touches: [], changedTouches: [t(x + dx)], bubbles: true}));
        }""",
        dx,
    )


def gate_caption_overlaps(page: Page) -> tuple[int, int]:
    """Steps through every frame; returns (frames with an "Off the board:" caption, frames it overlaps a label in)."""
    return tuple(
        page.evaluate(
            """() => {
              const seek = document.getElementById('seek'), last = Number(seek.max);
              let shown = 0, overlaps = 0;
              for (let i = 0; i <= last; i++) {
                seek.value = String(i); seek.dispatchEvent(new Event('input'));
                const cap = document.querySelector('#board text.offboard-caption');
                if (!cap) continue;
                shown++;
                const a = cap.getBoundingClientRect();
                for (const t of document.querySelectorAll('#board text:not(.offboard-caption)')) {
                  const b = t.getBoundingClientRect();
                  const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
                  if (b.width && !apart) { overlaps++; break; }
                }
              }
              return [shown, overlaps];
            }"""
        )
    )


@pytest.mark.parametrize("game", ["superfantasybrawl", "scrumbrawl"])
def test_spectator_steps_a_replay_to_its_result_banner(
    live_server,
    browser: Browser,
    device: tuple[str, Page],
    make_bot,
    author,
    other,
    game: str,
) -> None:
    kind, page = device
    match = real_match(game, 5, make_bot, author, other)
    seats = [s.bot_version.bot.name for s in match.seats.select_related("bot_version__bot").order_by("seat")]
    # Opened first to warm the test server (its first request also pays start-up: templates, imports, the
    # database connection), then OPENS times, each in a fresh browser context (an empty cache), as a new
    # spectator of a running site sees it; the median is printed (docs/benchmarks.md, "Replay viewer").
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.wait_for_selector("#viewer[data-loaded='1']")
    opens, floors = [], []
    for _ in range(OPENS):
        opens.append(open_replay(browser, kind, f"{live_server.url}/matches/{match.pk}/"))
        floors.append(open_floor(browser, kind, f"{live_server.url}/accounts/login/"))
    floor = sorted(floors)[OPENS // 2]
    drawn, ready, asked, received = (sorted(o[i] for o in opens)[OPENS // 2] for i in range(4))
    last = int(page.get_attribute("#seek", "max") or 0)
    print(
        f"\n{game} {kind}: {last} decisions; medians of {OPENS} fresh opens, ms after navigation: first frame"
        f" drawn {drawn} {sorted(o[0] for o in opens)}, every frame loaded {ready} {sorted(o[1] for o in opens)};"
        f" frames asked at {asked}, received at {received} ({opens[0][4]} bytes for {opens[0][5]}); {opens[0][6]};"
        f" floor (the sign-in page, no script) {floor} {sorted(floors)}: drawn {drawn / floor:.1f}x,"
        f" loaded {ready / floor:.1f}x; load average {os.getloadavg()[0]:.1f}"
    )

    # The counter counts decisions, and says the same as the message under the viewer.
    assert page.inner_text("#frame-label") == f"start / {last}"
    assert page.inner_text("#viewer-message") == f"{last} decisions."
    assert page.locator("#result-banner").is_hidden()

    # Stepping: keys on the desktop; on the phone, the buttons and a swipe on the board.
    if kind == "desktop":
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert frame(page) == 2
        page.keyboard.press("ArrowLeft")
    else:
        page.tap("button[data-act='forward']")
        swipe(page, -120)  # leftwards: forward
        assert frame(page) == 2
        swipe(page, 120)  # rightwards: back
        swipe(page, 10)  # too short to be a swipe
    assert frame(page) == 1
    assert page.inner_text("#frame-label") == f"decision 1 / {last}"

    # The log: one item per decision, in plain words, naming the bot and the pieces, events nested under it.
    current = page.locator("#event-log > li.current")
    assert current.count() == 1 and current.get_attribute("data-frame") == "1"
    assert current.locator(".decision").inner_text().startswith("1. ")
    assert f"{seats[0]} (seat 0) chose" in page.inner_text("#event-log") or f"{seats[1]} (seat 1) chose" in (
        page.inner_text("#event-log")
    )

    # Near the end, then step to it: the banner appears only on the last decision, and names the winner.
    seek_to(page, last - 3)
    page.keyboard.press("ArrowRight") if kind == "desktop" else page.tap("button[data-act='forward']")
    scrolled = page.evaluate("window.scrollY")  # where the spectator put the page (a tap scrolls to its button)
    for n in range(2):
        assert page.locator("#result-banner").is_hidden()
        if n == 1:
            # Stepping never scrolled the page: the log scrolls in its own box, so the score table stays put.
            # (The last step shows the banner, and the browser's scroll anchoring may then keep the buttons still.)
            assert page.evaluate("window.scrollY") == scrolled
        if kind == "desktop":
            page.keyboard.press("ArrowRight")
        else:
            page.tap("button[data-act='forward']")
    assert frame(page) == last and page.inner_text("#frame-label") == f"decision {last} / {last}"
    banner = page.locator("#result-banner")
    assert banner.is_visible()
    ranks = [s.rank for s in match.seats.order_by("seat")]
    text = banner.inner_text()
    if len(set(ranks)) == 1:
        assert text.startswith("Draw")
    else:
        assert text.startswith(f"Winner: {seats[ranks.index(1)]} (seat {ranks.index(1)})")
    assert "1st" in text and (match.outcome or {}).get("reason", "") in text

    # Every event is a sentence: no raw "key=value", no snake_case kinds, no JSON.
    log_text = page.inner_text("#event-log")
    assert "=" not in log_text and "{" not in log_text
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", log_text), re.search(r"\b[a-z]+_[a-z_]+\b", log_text)
    if game == "scrumbrawl":
        # Creatures by name (ScrumBrawl's observations say "k23"; the log says what k23 is).
        assert re.search(r"(places|summons) [A-Z][a-z]+", log_text)
    else:
        assert re.search(r"(deploys|picks) [A-Z][a-z]+", log_text)

    assert page.eval_on_selector("#event-log", "el => el.scrollTop") > 0

    board = page.locator("#board svg").bounding_box()
    assert board is not None
    # The banner is in view without scrolling: beside the board on a desktop, above the buttons on a phone.
    box = banner.bounding_box()
    height = VIEWPORTS[kind]["viewport"]["height"]  # type: ignore[index]
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height
    if kind == "phone":
        # The board takes the phone's width (it shrank to about 90 px before), with no sideways scroll of the page.
        assert board["width"] >= 340
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    else:
        assert board["width"] >= 600

    suffix = "" if kind == "desktop" else "-phone"
    docs_shot(page, f"replay-{game}{suffix}.png")

    if game == "superfantasybrawl" and kind == "desktop":
        shown, overlaps = gate_caption_overlaps(page)
        print(f"Off-the-board caption shown in {shown} frames, overlapping a label in {overlaps}")
        assert overlaps == 0


def test_leaderboard_marks_provisional_bots_and_explains_itself(
    live_server,
    browser: Browser,
    make_bot,
    author,
    other,
) -> None:
    """A bot with one game is listed last, unranked and tagged; the legend and the titles are on the page."""
    from tests.webapp.conftest import GAME, forced_replay
    from webapp.matches import services as match_services
    from webapp.rankings.views import PROVISIONAL_GAMES

    def play(x: Any, y: Any, ranks: tuple[int, int]) -> None:
        m = match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=True)
        results.do_finish_match(m.pk, forced_replay(m, ranks))

    strong, weak, new = make_bot(author, "Ülkü"), make_bot(other, "Зверь"), make_bot(author, "newcomer")
    for i in range(PROVISIONAL_GAMES):
        play(strong, weak, (1, 2) if i % 3 else (2, 1))
    play(new, weak, (1, 2))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/games/{GAME}/")
    page.wait_for_selector("svg.rating-chart polyline.series")
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == 3
    assert rows.nth(2).get_attribute("class") == "provisional" and "newcomer" in rows.nth(2).inner_text()
    assert rows.nth(2).locator("td").first.inner_text() == "—"
    assert [rows.nth(i).locator("td").first.inner_text() for i in range(2)] == ["1", "2"]
    assert page.locator("thead abbr[title]").count() >= 4
    assert f"fewer than {PROVISIONAL_GAMES} rated games" in page.inner_text("#leaderboard-legend")
    docs_shot(page, "leaderboard.png")
    context.close()


UNPATCH_CHECK = """async ([code, url]) => {
  const unpatch = new Function(code + "; return unpatch;")();
  const [patched, whole] = await Promise.all([fetch(url + "?form=patch"), fetch(url)].map(p => p.then(r => r.json())));
  const form = [patched.form, patched.patch_version];
  const same = (a, b) => {
    if (a === b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every(k => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]));
  };
  const lists = patched.frames.filter(f => (f.patch || []).some(op => op.length === 3)).length;
  const rebuilt = unpatch(patched).frames;
  const wrong = whole.frames.filter((f, i) => !same(rebuilt[i].observation, f.observation)).map(f => f.index);
  return { form, lists, frames: rebuilt.length, whole: whole.frames.length, wrong };
}"""


@pytest.mark.parametrize("game", ["superfantasybrawl", "scrumbrawl"])
def test_the_viewer_rebuilds_every_frame_from_the_patch_form(
    live_server, page: Page, make_bot, author, other, game: str
) -> None:
    """viewer.js's own rebuild, run in Chromium on a long replay, gives every observation of the whole frames."""
    match = real_match(game, 5, make_bot, author, other)
    source = (Path(__file__).parents[2] / "webapp/static/webapp/js/viewer.js").read_text()
    code = source[source.index("  function rebuild(") : source.index("  // The first screen:")]
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    result = page.evaluate(UNPATCH_CHECK, [code, f"/api/v1/matches/{match.pk}/frames/"])
    assert result["form"] == ["patch", PATCH_VERSION]
    assert result["frames"] == result["whole"] > 100
    assert result["lists"] > 0  # the list rebuilds are exercised, not only sets and removes
    assert result["wrong"] == []
