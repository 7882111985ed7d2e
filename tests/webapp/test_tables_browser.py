"""A person plays a whole short match of each game against a house bot in real Chromium, only by touching the board.

Partitions: the whole path a person takes (the game's page, the Play link, the table form, the
table page) served by ``brawl asgi`` (daphne, a real subprocess) beside a real referee, worker and
house bot; every decision answered by clicking what the page highlights on the board (a cell, a
piece on it or off it, a card of an area), then a highlighted target, then the chooser when several
options share those clicks; the plain list only for a decision none of whose options has a target
on the board; the first half of the match at phone width (390 px, no sideways scrolling), the
second at desktop size; a reload in the middle resumes the same seat and decision; the result shown
at the end is the recorded one. The test counts the decisions that went through the board and the
list (printed; docs/people.md gives one run's figures) and asks that the board answered
every decision it could show.
"""

from __future__ import annotations

import os
import random
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
DESKTOP = {"width": 1280, "height": 900}
NEXT = "#table:not([data-turn='']), #result:not([hidden])"
SHOWN = """() => ({
  status: document.getElementById('status').textContent,
  prompt: !document.getElementById('prompt-box').hidden,
  left: document.getElementById('time-left').textContent,
  clock: document.getElementById('clock').textContent,
  notice: document.getElementById('notice').textContent,
  turn: document.getElementById('table').dataset.turn,
})"""
CLICKABLE = """() => {
  // What a person could tap now: the highlighted board things whose centre is not covered by
  // another element, the ends first once something is selected, then the chooser; each as an index.
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const choices = [...document.querySelectorAll('#chooser:not([hidden]) button.choice')];
  if (choices.length) return {what: 'choice', n: choices.length};
  const acts = [...document.querySelectorAll('#table .act:not(:disabled)')].filter(shown);
  const top = (e) => {
    e.scrollIntoView({block: 'center', inline: 'center'});
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit === e || e.contains(hit);
  };
  const ends = acts.filter((e) => e.classList.contains('end'));
  const pool = ends.length ? ends : acts.filter((e) => !e.classList.contains('selected'));
  const name = (e) => {
    for (const k of ['cell', 'piece', 'card']) {
      const v = e.getAttribute('data-' + k);
      if (v !== null) return `#table .act[data-${k}="${CSS.escape(v)}"]`;
    }
    return null;
  };
  return {what: 'act', selectors: pool.filter(top).map(name).filter(Boolean)};
}"""


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
def test_a_person_plays_a_whole_match_by_touching_the_board_and_a_reload_resumes(
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
    refused: list[str] = []  # the socket's error messages: a tap never sends what the server refuses
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda f: refused.append(str(f)) if '"error"' in str(f) else None),
    )
    rng = random.Random(7)
    try:
        page.goto(f"{base}/games/{game}/")
        page.get_by_role("link", name=f"Play {get_game(game).info.title}").click()
        page.fill("input[name=rounds]", "1")
        page.get_by_role("button", name="Open the table").click()
        page.wait_for_selector("#table")
        table = Table.objects.get(created_by=person)
        decisions, clicks, reloaded, wide = 0, 0, False, False
        phone_fits: list[bool] = []
        answered = {"board": 0, "list": 0, "forced": 0}
        while True:
            page.wait_for_selector(NEXT, timeout=60_000)
            if page.is_visible("#result"):
                break
            decision = page.get_attribute("#table", "data-turn")
            # Whose turn, the prompt with the time left, the clock: one snapshot of the page.
            shown = page.evaluate(SHOWN)
            assert shown["status"] == "Your turn" and shown["prompt"], shown
            assert "s left" in shown["left"] and "Time:" in shown["clock"], shown
            if not wide:
                phone_fits.append(page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"])
            if decisions == 3 and not clicks:
                docs_shot(page, f"table-{game}-phone.png")
            if decisions == 4 and not reloaded:
                listed = page.locator("#options button.option").all_text_contents()
                page.reload()
                page.wait_for_selector(NEXT, timeout=60_000)
                assert page.get_attribute("#table", "data-turn") == decision
                assert page.locator("#options button.option").all_text_contents() == listed
                reloaded = True
            if decisions == 8 and not wide:
                page.set_viewport_size(DESKTOP)
                wide = True
                docs_shot(page, f"table-{game}-desktop.png")
            # One tap: the chooser, a highlighted thing of the board, or (none) the plain list.
            found = page.evaluate(CLICKABLE)
            via = "list" if found["what"] == "act" and not found["selectors"] else "board"
            if via == "list" and page.locator("#options button.option").count() == 1:
                via = "forced"  # one legal option and nothing on the board: a pass-only window
            if found["what"] == "choice":
                page.locator("#chooser button.choice").nth(rng.randrange(found["n"])).click()
            elif found["selectors"]:
                pick = rng.choice(found["selectors"])
                try:
                    page.locator(pick).first.click(timeout=10_000)
                except Exception as exc:
                    raise AssertionError(f"{pick}: {refused} {page.text_content('#notice')}") from exc
            else:
                assert page.locator("#table .act").count() == 0, "a highlighted target could not be tapped"
                assert page.locator("#options button.option:enabled").count(), f"decision {decision}: nothing to tap"
                page.locator("#options button.option:enabled").first.click()
            clicks += 1
            assert clicks < 40, f"decision {decision}: 40 taps did not answer it"
            # Answered (the next decision, the result, or waiting) or still choosing (a selection, the chooser).
            page.wait_for_function(
                """(d) => { const t = document.getElementById('table'); return t.dataset.turn !== d
                   || t.dataset.selected || !document.getElementById('chooser').hidden
                   || !document.getElementById('result').hidden; }""",
                arg=decision,
                timeout=60_000,
            )
            if page.get_attribute("#table", "data-turn") != decision:
                decisions, clicks = decisions + 1, 0
                answered[via] += 1
        assert reloaded and wide and decisions >= 5 and all(phone_fits), (reloaded, wide, decisions, phone_fits)
        board, listed, forced = answered["board"], answered["list"], answered["forced"]
        print(
            f"\n{game}: {decisions} decisions by taps: {board} through the board, {listed} through the list, "
            f"{forced} pass-only prompts"
        )
        # The list answered only decisions none of whose options the board could show (checked at
        # each such tap); a prompt with one option (a pass-only window: ScrumBrawl asks one at each
        # roll) is neither. Of the decisions with a choice, the board answered most.
        assert board > listed, f"the board answered {board} decisions, the list {listed} ({forced} pass-only)"
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
    assert not refused, f"the socket refused: {refused}"
