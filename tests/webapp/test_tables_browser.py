"""A person plays a whole short match against a house bot in real Chromium, only by clicking, at phone width.

Partitions: the whole path a person takes (the game's page, the Play link, the table form, the
table page) served by ``brawl asgi`` (daphne, a real subprocess) beside a real referee, worker and
house bot; every decision answered by clicking one of the listed options; a reload in the middle
resumes the same seat and decision; the result shown at the end is the recorded one; the page fits
390 px without scrolling sideways.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from referee.core.registry import get_game
from tests.webapp.tables_stack import (
    TablesStack,
    tables_stack_fixture,  # noqa: F401  (the fixture)
)
from tests.webapp.test_browser import docs_shot
from tests.workers.stack import free_port, wait_until
from webapp.matches.models import Match, MatchStatus
from webapp.tables.models import Table

# Playwright's sync API runs an event loop in this thread; the test's own queries are not async code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

PHONE = {"width": 390, "height": 844}
NEXT = "#options button.option:enabled, #result:not([hidden])"


def serve_asgi(ts: TablesStack) -> str:
    """Starts ``brawl asgi`` on the stack's database and referee; returns its base URL once it answers."""
    import urllib.request

    port = free_port()
    # The page names its socket as brawl run's pages do: its own host name, the ASGI server's port.
    env = {"BRAWL_TABLES_REFEREE": ts.stack.bot_address(), "BRAWL_TABLES_WS_URL": f":{port}"}
    ts.stack.brawl("asgi", "asgi", "--addr", f"127.0.0.1:{port}", env=env)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    wait_until(up, 60, "brawl asgi to answer")
    return url


@pytest.mark.parametrize("game", ["superfantasybrawl", "scrumbrawl"])
def test_a_person_plays_a_whole_match_by_clicking_and_a_reload_resumes(
    tables_stack: TablesStack, browser: Any, game: str
) -> None:
    base = serve_asgi(tables_stack)
    person = User.objects.create_user("ada")
    client = Client()
    client.force_login(person)
    context = browser.new_context(viewport=PHONE)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{base}/games/{game}/")
        page.get_by_role("link", name=f"Play {get_game(game).info.title}").click()
        page.fill("input[name=rounds]", "1")
        page.get_by_role("button", name="Open the table").click()
        page.wait_for_selector("#table")
        table = Table.objects.get(created_by=person)
        clicks, reloaded = 0, False
        while True:
            page.wait_for_selector(NEXT, timeout=60_000)
            if page.is_visible("#result"):
                break
            assert page.text_content("#status") == "Your turn"
            assert "Time:" in (page.text_content("#clock") or "")
            if clicks == 2:
                docs_shot(page, f"table-{game}-phone.png")
                page.set_viewport_size({"width": 1280, "height": 900})
                docs_shot(page, f"table-{game}-desktop.png")
                page.set_viewport_size(PHONE)
            if clicks == 4 and not reloaded:
                options = page.locator("#options button.option").all_text_contents()
                page.reload()
                page.wait_for_selector(NEXT, timeout=60_000)
                assert page.locator("#options button.option").all_text_contents() == options
                reloaded = True
            page.locator("#options button.option:enabled").first.click()
            clicks += 1
        assert reloaded and clicks >= 5
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        result = page.text_content("#result") or ""
        table.refresh_from_db()
        wait_until(
            lambda: Match.objects.filter(pk=table.match_id, status=MatchStatus.FINISHED).exists(), 60, "the recording"
        )
        rank = Match.objects.get(pk=table.match_id).seats.get(seat=0).rank
        assert f"you placed {rank} of 2" in result
    finally:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"
