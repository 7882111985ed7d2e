"""The pages this round changed fit a 390 px phone in real Chromium: the bot page (published rating, head to
head with chances, results by table size and seat, recent matches) and the organizer console (farming flags)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.test import Client

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.matches import services as match_services

# Playwright's sync API runs an event loop in this thread; the test's ORM calls are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PHONE = {"width": 390, "height": 800}


@pytest.mark.django_db(transaction=True)
def test_the_bot_page_and_the_console_fit_a_phone(live_server: Any, browser: Any, make_bot, author, organizer) -> None:
    bots = [make_bot(author, f"a-long-bot-name-{i}") for i in range(3)]
    for i in range(12):  # two of one author meeting one-sidedly: a farming flag; 2- and 3-seat tables
        seated = [bots[0], bots[1]] if i % 3 else bots
        m = match_services.do_queue_match(GAME, [b.latest_version for b in seated], rated=True, seed=i)
        results.do_finish_match(m.pk, forced_replay(m, (1, 2) if len(seated) == 2 else (1, 2, 3)))
    client = Client()
    client.force_login(organizer)
    context = browser.new_context(viewport=PHONE)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for path, part in ((f"/bots/{bots[0].pk}/", "#by-seat"), ("/organize/", "#farming-flags")):
            page.goto(f"{live_server.url}{path}")
            assert page.locator(part).count() == 1, path
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    finally:
        context.close()
    assert not errors, errors
