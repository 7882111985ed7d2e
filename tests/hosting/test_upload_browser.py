"""An author uploads a hosted bot from the bot's page in a real browser (Debian's Chromium, driven by
Playwright), and sees it appear, get validated by the real bot host in the real sandbox, and
become the bot's latest version; the checks and the validation log are one click away, and the
match page shows the author the output of the version's run. Another author sees none of it.
Screenshots go to test-output/screenshots/.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone
from playwright.sync_api import Browser, Page

from tests.webapp.test_browser_flows import PASSWORD, logged_in
from webapp.bots import services as bot_services
from webapp.hosting import services
from webapp.hosting.models import HostedUpload, UploadStatus
from webapp.matches import services as match_services
from workers.hosting import sandbox
from workers.hosting.host import BotHost, HostSettings

# Playwright's sync API runs an event loop in this thread; the ORM calls made between page actions
# are ordinary blocking calls, which Django would otherwise refuse there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
UPLOADS = Path(__file__).parent / "uploads"
GAME = "scrumbrawl"
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("bwrap") is None or os.geteuid() != 0, reason="needs bubblewrap and root"),
]


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "hosted"
    with override_settings(BRAWL_HOSTED_DIR=str(root)):
        yield root
    for folder in root.rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)


def log_in(browser: Browser, base: str, username: str, errors: list[str]) -> Page:
    return logged_in(browser, base, username, errors)[1]


def validate_pending() -> None:
    """What the bot host does with a pending upload: the import check and the validation match."""

    async def run() -> None:
        await BotHost(HostSettings()).validate_one()

    with ThreadPoolExecutor(1) as pool:  # not in this thread: Playwright's loop runs here
        pool.submit(asyncio.run, run()).result(timeout=240)


def test_author_uploads_a_python_bot_from_the_bot_page_and_sees_it_validate(
    live_server: Any, browser: Browser, storage: Path
) -> None:
    alice = User.objects.create_user("alice-b", password=PASSWORD)
    User.objects.create_user("bob-b", password=PASSWORD)
    bot, _ = bot_services.do_create_bot(alice, GAME, "Browser-Hosted")
    errors: list[str] = []
    page = log_in(browser, live_server.url, "alice-b", errors)
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    assert page.locator("#hosted").is_visible()
    source = UPLOADS / "first_bot.py"
    page.set_input_files("#hosted-file", str(source))
    page.fill("#hosted-entry", "first_bot:FirstBot")
    page.fill("#hosted-notes", "first hosted version")
    page.click("#hosted-upload")
    page.wait_for_load_state()
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    assert sha in page.locator("ul.messages").inner_text()
    row = HostedUpload.objects.get(bot=bot)
    line = page.locator(f'#hosted-uploads tr[data-upload="{row.pk}"]')
    assert "waiting for the bot host" in line.inner_text() and sha[:16] in line.inner_text()
    assert line.locator("code.sha").get_attribute("title") == sha

    validate_pending()  # the real sandbox, a real validation match against the random house bot
    row.refresh_from_db()
    assert row.status == UploadStatus.READY, (row.summary, row.validation_log[-2000:])

    page.reload()
    line = page.locator(f'#hosted-uploads tr[data-upload="{row.pk}"]')
    assert "on the ladder" in line.inner_text() and "v2" in line.inner_text()
    assert "latest version v2" in page.locator("main").inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "hosted-upload.png"), full_page=True)
    line.locator("a", has_text="checks and log").click()
    page.wait_for_load_state()
    assert page.locator("#upload-sha").inner_text() == sha
    assert page.locator("#upload-checks td.check.passed").count() == 4
    assert "[sandbox: " in page.locator("#validation-log").inner_text()
    page.screenshot(path=str(SHOTS / "hosted-upload-detail.png"), full_page=True)

    # A ladder match of the new version against bob's bot, with a run of it that hit its memory
    # limit: the match page shows alice that run's output and verdict, and bob nothing.
    bob = User.objects.get(username="bob-b")
    rival, _ = bot_services.do_create_bot(bob, GAME, "Browser-Rival")
    bot.refresh_from_db()
    match = match_services.do_queue_match(GAME, [bot.latest_version, rival.latest_version], rated=True)
    match_services.do_start_match(match.pk, "ref-test")
    run = services.do_start_run(row, timezone.now())
    oom = sandbox.verdict(1, "MemoryError", stopped=False)
    services.do_update_run(run.pk, "hosted bot starts match\nMemoryError\n", verdict=oom, ended=True)
    # The host's slice of this match's output, the OOM kill charged to it (it was open at the end).
    now = timezone.now().timestamp()
    services.do_save_match_logs(
        run.pk,
        [services.MatchSlice(match.referee_match_id(), now - 1, now, "hosted bot starts match\nMemoryError\n", oom)],
    )
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    panel = page.locator("#hosted-logs")
    assert panel.is_visible()
    assert "out of memory (memory limit reached)" in panel.locator(".verdict").first.inner_text()
    assert "MemoryError" in panel.locator("pre.hosted-log").first.inner_text()
    page.screenshot(path=str(SHOTS / "hosted-match-logs.png"), full_page=True)

    other = log_in(browser, live_server.url, "bob-b", errors)
    other.goto(f"{live_server.url}/bots/{bot.pk}/")
    assert other.locator("#hosted").count() == 0
    answer = other.goto(f"{live_server.url}/hosted/uploads/{row.pk}/")
    assert answer is not None and answer.status == 404
    other.goto(f"{live_server.url}/matches/{match.pk}/")
    assert other.locator("#match-status").count() == 1 and other.locator("#hosted-logs").count() == 0
    assert "MemoryError" not in other.content()
    assert not errors, errors
