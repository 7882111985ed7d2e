"""Browser flows of issue 15 on Debian's Chromium (never a downloaded one), driven by Playwright.

The organizer is a user with the organizer role (the ``organizers`` group), staff like the demo's
organizer and not a superuser; every step is a click on the site's own pages. Results come in the
way a referee delivers them (``matches.services.do_finish_match``), between page actions.
Screenshots of each step are written to docs/screenshots/ under ``make screenshots`` (else test-output/), so
the docs show what the tests saw.
"""

from __future__ import annotations

import argparse
import os
import shlex

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, BrowserContext, Page

from referee.sdk import cli as sdk_cli
from referee.sdk.client import load_object
from tests.webapp.conftest import GAME, forced_replay
from tests.webapp.test_browser import docs_shot
from tests.webapp.test_tournaments import play_out
from webapp import results
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus
from webapp.roles import is_organizer, make_organizer
from webapp.tournaments import services as t_services
from webapp.tournaments.models import Tournament, TournamentStatus

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PASSWORD = "correct horse battery"
pytestmark = pytest.mark.django_db(transaction=True)


def shot(page: Page, name: str) -> None:
    """A screenshot the docs show (see ``tests.webapp.test_browser.docs_shot``)."""
    docs_shot(page, name)


def logged_in(browser: Browser, base: str, username: str, errors: list[str]) -> tuple[BrowserContext, Page]:
    """A browser context signed in through the login page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()
    assert "/accounts/login/" not in page.url, f"{username} could not log in"
    return context, page


@pytest.fixture
def demo_organizer(db: object) -> User:
    """Like the demo's organizer: staff, in the organizers group, not a superuser."""
    user = User.objects.create_user("organizer", password=PASSWORD, is_staff=True)
    make_organizer(user)
    return User.objects.get(pk=user.pk)


def test_staff_alone_is_not_an_organizer(client, db) -> None:
    """Finding 1 of issue 15: staff status without the role must not open the console (nor pretend to)."""
    staff = User.objects.create_user("staffonly", password=PASSWORD, is_staff=True)
    assert not is_organizer(staff)
    client.force_login(staff)
    assert client.get("/organize/").status_code == 403
    make_organizer(staff)
    assert is_organizer(User.objects.get(pk=staff.pk))
    assert client.get("/organize/").status_code == 200


@pytest.mark.parametrize(("fmt", "rounds"), [("swiss", "3"), ("double_elim", "")])
def test_organizer_runs_a_tournament_of_eight_from_the_console(
    live_server, browser: Browser, demo_organizer: User, author: User, make_bot, fmt: str, rounds: str
) -> None:
    assert not demo_organizer.is_superuser and is_organizer(demo_organizer)
    house = User.objects.create_user("house")
    for i in range(7):
        make_bot(house, f"house-{i}", house=True)
    mine = make_bot(author, "AliceBot")
    errors: list[str] = []
    base = live_server.url
    org_ctx, org = logged_in(browser, base, "organizer", errors)
    auth_ctx, alice = logged_in(browser, base, "alice", errors)
    try:
        # Create from the console: draft.
        org.click("header >> text=Organize")
        org.fill("#id_name", f"Winter {fmt}")
        org.select_option("#id_game", GAME)
        org.select_option("#id_format", fmt)
        org.fill("#id_best_of", "1")
        org.fill("#id_rounds", rounds)
        shot(org, f"console-create-{fmt}.png")
        org.click("#create-tournament-form button[type=submit]")
        org.wait_for_selector("#t-status")
        tour = Tournament.objects.get(name=f"Winter {fmt}")
        assert org.inner_text("#t-status") == "draft" and tour.format == fmt
        # Registration opens before the results are public; the house bots fill seven places.
        org.click("#open-registration")
        assert org.inner_text("#t-status") == "registration"
        org.click("#add-house")
        assert org.locator("#console-entrants tbody tr").count() == 7
        assert not Tournament.objects.get(pk=tour.pk).published

        # The author finds it on the tournaments page and enters from the tournament page.
        alice.goto(f"{base}/tournaments/")
        alice.click(f"text=Winter {fmt}")
        alice.select_option("#enter-form select[name=bot]", str(mine.pk))
        alice.click("#enter-form button[type=submit]")
        alice.wait_for_selector("ul.messages li")
        assert "entered" in alice.inner_text("ul.messages")
        shot(alice, f"author-entered-{fmt}.png")

        # The organizer approves the entry, seeds and starts.
        org.reload()
        waiting = org.locator("#console-entrants button.approve")
        assert waiting.count() == 1
        waiting.click()
        assert org.locator("#console-entrants button.approve").count() == 0
        org.click("#start")
        assert org.inner_text("#t-status") == "running"
        assert Match.objects.filter(tournament=tour, status=MatchStatus.QUEUED).count() == 4
        # Pause and resume from the console; the lifecycle strip says where the tournament is.
        org.click("#pause")
        assert org.inner_text("#t-status") == "paused" and org.inner_text("#lifecycle li.now") == "paused"
        assert Tournament.objects.get(pk=tour.pk).status == TournamentStatus.PAUSED
        org.click("#resume")
        assert org.inner_text("#t-status") == "running" and org.inner_text("#lifecycle li.now") == "running"
        assert org.locator("#lifecycle li.done").all_inner_texts() == ["draft", "registration"]
        org.wait_for_selector("#console-matches")
        shot(org, f"console-running-{fmt}.png")

        # The author sees the upcoming match on the bot's page.
        alice.goto(f"{base}/me/bots/{mine.pk}/")
        assert alice.locator("#upcoming-matches tbody tr .status.queued").count() == 1

        # A match fails (its referee lost it); the console shows it without a reload and the
        # organizer re-runs it: a fresh match takes its place.
        lost = Match.objects.filter(tournament=tour, status=MatchStatus.QUEUED).order_by("id").first()
        assert lost is not None
        match_services.do_fail_match(lost.pk, "referee lost")
        org.wait_for_selector("#console-matches .status.failed", timeout=20_000)
        org.fill("#console-matches tr:has(.status.failed) input[name=reason]", "referee crashed")
        org.click("#console-matches tr:has(.status.failed) button.rerun")
        org.wait_for_selector("ul.messages li")
        assert f"Match {lost.pk} replaced" in org.inner_text("ul.messages")
        lost.refresh_from_db()
        assert lost.status == MatchStatus.RESCHEDULED and lost.failure == "referee crashed"
        assert lost.replacements.get().status == MatchStatus.QUEUED

        # Results arrive; the console's bracket follows without a reload until the end.
        play_out(tour)
        assert Tournament.objects.get(pk=tour.pk).status == TournamentStatus.FINISHED
        org.wait_for_function("document.getElementById('t-status').textContent === 'finished'", timeout=20_000)
        assert org.get_attribute("#bracket-area", "data-live") == "0"
        finished = Match.objects.filter(tournament=tour, status=MatchStatus.FINISHED).count()
        assert f"{finished} finished" in org.inner_text("#match-counts")
        # The buttons followed the state: no pause or finish for a finished tournament.
        assert org.inner_text("#lifecycle li.now") == "finished" and org.locator("#finish, #pause").count() == 0
        org.click("#publish")
        assert org.inner_text("#t-status") == "published" and org.inner_text("#lifecycle li.now") == "published"
        shot(org, f"console-published-{fmt}.png")
        assert Tournament.objects.get(pk=tour.pk).published
    finally:
        org_ctx.close()
        auth_ctx.close()

    # A visitor now sees the final standings.
    anon = browser.new_context().new_page()
    anon.goto(f"{base}/tournaments/{tour.pk}/")
    if fmt == "double_elim":
        anon.wait_for_selector("svg#bracket g.series.decided")
        assert "champion" in anon.inner_text("table.standings")
    else:
        assert anon.locator("details.round-standings").count() == 3
    shot(anon, f"tournament-published-{fmt}.png")
    anon.context.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_organizer_finishes_a_swiss_early_from_the_console(
    live_server, browser: Browser, demo_organizer: User, make_bot
) -> None:
    """Finish now: after the first round the organizer ends a 4-round Swiss; the games still queued are
    cancelled with the reason typed, the standings stay, and publishing is the next step."""
    house = User.objects.create_user("house")
    bots = [make_bot(house, f"house-{i}", house=True) for i in range(4)]
    tour = t_services.do_create_tournament(demo_organizer, name="Cut short", game=GAME, format="swiss", rounds=4)
    for b in bots:
        t_services.do_add_entrant(tour, b.latest_version)
    t_services.do_start_tournament(tour)
    first, second = Match.objects.filter(tournament=tour).order_by("id")
    results.do_finish_match(first.pk, forced_replay(first, (1, 2)))
    errors: list[str] = []
    ctx, org = logged_in(browser, live_server.url, "organizer", errors)
    try:
        org.goto(f"{live_server.url}/organize/tournaments/{tour.pk}/")
        dialogs: list[str] = []
        org.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
        org.fill("#finish-form input[name=reason]", "the venue closes")
        org.click("#finish")
        org.wait_for_selector("ul.messages li")
        assert dialogs and "cancelled" in dialogs[0]
        assert org.inner_text("#t-status") == "finished" and org.locator("#finish").count() == 0
        assert "Finished:" in org.inner_text("ul.messages")
        second.refresh_from_db()
        assert second.status == MatchStatus.CANCELLED and second.failure == "the venue closes"
        assert org.locator("#console-matches .status.cancelled").count() == 1
        shot(org, "console-finished-early.png")
        org.click("#publish")
        assert org.inner_text("#t-status") == "published"
    finally:
        ctx.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_token_page_copies_the_token_and_the_exact_run_command(live_server, browser: Browser, author: User) -> None:
    """Issue 15, finding 4: a copy button and the ready ``brawl bot run`` command on the token page."""
    errors: list[str] = []
    context, page = logged_in(browser, live_server.url, "alice", errors)
    # The Clipboard API needs the permission in headless Chromium; the page falls back without it.
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/me/bots/new/")
    page.select_option("#id_game", GAME)
    page.fill("#id_name", "CopyBot")
    page.click("#create-bot-form button[type=submit]")
    token = page.inner_text("#bot-token").strip()
    command = page.inner_text("#run-command").strip()
    assert command == (
        f"brawl bot run referee.sdk.house:RandomBot --server 127.0.0.1:50051 --token {token} --games {GAME}"
    )
    # The command is one the SDK's own parser takes, naming a class that loads.
    parser = argparse.ArgumentParser(prog="brawl")
    sdk_cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(shlex.split(command)[1:])
    assert (args.bot, args.server, args.token, args.games) == (
        "referee.sdk.house:RandomBot",
        "127.0.0.1:50051",
        token,
        [GAME],
    )
    assert callable(load_object(args.bot))
    page.click("#copy-command")
    assert page.evaluate("navigator.clipboard.readText()") == command
    page.click("#copy-token")
    assert page.evaluate("navigator.clipboard.readText()") == token
    assert page.get_attribute("#copy-token", "data-copied") == "1"
    shot(page, "token-once.png")
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
