"""The hosted-bot panels on the site's pages: the bot page's upload form and versions, an upload's
checks and log, and the match page's logs panel. Each is the bot's author's only: anonymous
visitors, other authors (even one seated in the same match), spectators and organizers see none of
it, on the page and through the API.
"""

from __future__ import annotations

import hashlib
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from webapp.bots import services as bot_services
from webapp.hosting import services
from webapp.hosting.models import HostedUpload, UploadStatus
from webapp.matches import services as match_services
from webapp.roles import make_organizer
from workers.hosting import matchtag, sandbox

UPLOADS = Path(__file__).parent / "uploads"
GAME = "scrumbrawl"
pytestmark = pytest.mark.django_db


@pytest.fixture
def storage(tmp_path: Path) -> Any:
    root = tmp_path / "hosted"
    with override_settings(BRAWL_HOSTED_DIR=str(root)):
        yield root
    for folder in root.rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)


def browser_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_the_author_uploads_from_the_bot_page_and_sees_checks_sha_and_status(storage: Path) -> None:
    alice = User.objects.create_user("alice-p", password="x")
    bob = User.objects.create_user("bob-p", password="x")
    bot, _ = bot_services.do_create_bot(alice, GAME, "Paged")
    page = browser_for(alice).get(f"/bots/{bot.pk}/").content.decode()
    assert 'id="hosted-upload-form"' in page and "No uploads yet." in page
    data = (UPLOADS / "first_bot.py").read_bytes()
    answer = browser_for(alice).post(
        f"/hosted/bots/{bot.pk}/upload/",
        {"file": SimpleUploadedFile("first_bot.py", data), "entry": "first_bot:FirstBot", "notes": "from the page"},
        follow=True,
    )
    text = answer.content.decode()
    sha = hashlib.sha256(data).hexdigest()
    assert answer.redirect_chain[-1][0] == f"/bots/{bot.pk}/#hosted"
    assert f"SHA-256 {sha}" in text  # the message
    row = HostedUpload.objects.get(bot=bot)
    assert row.status == UploadStatus.PENDING and row.notes == "from the page"
    assert f'data-upload="{row.pk}"' in text and "waiting for the bot host" in text
    # A refused upload says why and stores nothing.
    refused = (
        browser_for(alice)
        .post(
            f"/hosted/bots/{bot.pk}/upload/",
            {"file": SimpleUploadedFile("bad.py", b"def x(:\n"), "entry": "bad:Bot"},
            follow=True,
        )
        .content.decode()
    )
    assert "Upload refused" in refused and "does not compile" in refused
    assert HostedUpload.objects.filter(bot=bot).count() == 1
    # The checks and the log: the author's page; a validated upload shows every check passed.
    detail = browser_for(alice).get(f"/hosted/uploads/{row.pk}/").content.decode()
    assert sha in detail and "waiting" in detail and "(not run yet)" in detail
    services.do_record_validation(row, True, "finished a scrumbrawl match (normal)", "import ok\n[sandbox: exited]")
    detail = browser_for(alice).get(f"/hosted/uploads/{row.pk}/").content.decode()
    assert detail.count('class="check passed"') == 4 and "[sandbox: exited]" in detail
    # Nobody else sees the panel or the upload, and nobody else can upload.
    for viewer in (None, bob):
        assert 'id="hosted"' not in browser_for(viewer).get(f"/bots/{bot.pk}/").content.decode()
    assert browser_for(bob).get(f"/hosted/uploads/{row.pk}/").status_code == 404
    assert browser_for(None).get(f"/hosted/uploads/{row.pk}/").status_code == 302  # to the login page
    forged = browser_for(bob).post(
        f"/hosted/bots/{bot.pk}/upload/",
        {"file": SimpleUploadedFile("first_bot.py", data), "entry": "first_bot:FirstBot"},
    )
    assert forged.status_code == 404 and HostedUpload.objects.filter(bot=bot).count() == 1


def test_match_page_shows_the_authors_hosted_logs_to_the_author_only(storage: Path) -> None:
    alice = User.objects.create_user("alice-l", password="x")
    bob = User.objects.create_user("bob-l", password="x")
    carol = User.objects.create_user("carol-l", password="x")
    olga = User.objects.create_user("olga-l", password="x", is_staff=True)
    make_organizer(olga)
    mine, _ = bot_services.do_create_bot(alice, GAME, "Mine-L")
    theirs, _ = bot_services.do_create_bot(bob, GAME, "Theirs-L")
    row = services.do_upload(alice, mine, "first_bot.py", (UPLOADS / "first_bot.py").read_bytes(), "first_bot:FirstBot")
    row = services.do_record_validation(row, True, "ok", "")
    mine.refresh_from_db()
    match = match_services.do_queue_match(GAME, [mine.latest_version, theirs.latest_version], rated=True)
    match_services.do_start_match(match.pk, "ref-test")
    # A run killed at its memory limit whose output overflowed the kept size: the bounded log the
    # sandbox keeps, the verdict it names.
    splitter = matchtag.Splitter()
    mid = match.referee_match_id()
    raw = f"\x1e{mid}\x1d+\n\x1e{mid}\x1fSECRET-OF-ALICE start\n\x1e{mid}\x1f".encode() + b"x" * 200_000
    log = matchtag.BoundedLog(sandbox.LOG_LIMIT)
    log.add(splitter.feed(b"\x1e9999\x1d+\n\x1e9999\x1fOTHER-MATCH-LINE\n" + raw + b"\nMemoryError\n"))
    started = timezone.now() - timedelta(minutes=1)
    run = services.do_start_run(row, started)
    verdict = sandbox.verdict(1, log.text(), stopped=False)
    services.do_update_run(run.pk, log.text(), verdict=verdict, ended=True)
    services.do_save_match_logs(
        run.pk, [services.MatchSlice(m, p.started, None, p.text(), verdict) for m, p in splitter.slices.items()]
    )
    # A run still going: its slice of this match so far shows too.
    live = services.do_start_run(row, timezone.now())
    services.do_update_run(live.pk, "LIVE-LINE of the running bot\n")
    services.do_save_match_logs(live.pk, [services.MatchSlice(mid, time.time(), None, "LIVE-LINE of the bot\n")])

    page = browser_for(alice).get(f"/matches/{match.pk}/").content.decode()
    assert 'id="hosted-logs"' in page
    assert "out of memory (memory limit reached)" in page and "SECRET-OF-ALICE" in page
    assert "bytes cut" in page and "LIVE-LINE" in page and ">running<" in page
    assert "OTHER-MATCH-LINE" not in page  # the same run's output in another match
    kept = services.HostedRun.objects.get(pk=run.pk).log
    assert len(kept.encode()) <= sandbox.LOG_LIMIT + 100 and kept.endswith("MemoryError\n")
    assert "OTHER-MATCH-LINE" in kept and "\x1e" not in kept  # the run's log: every line, tags removed
    piece = services.HostedMatchLog.objects.get(run=run, match_id=mid).log
    assert len(piece.encode()) <= matchtag.SLICE_LIMIT + 200 and piece.rstrip().endswith("MemoryError")
    # The other author seated in the match, a spectator, an organizer, anonymous: nothing.
    for viewer in (bob, carol, olga, None):
        other = browser_for(viewer).get(f"/matches/{match.pk}/")
        assert other.status_code == 200
        body = other.content.decode()
        assert 'id="hosted-logs"' not in body and "SECRET-OF-ALICE" not in body and "LIVE-LINE" not in body
    # The API: the author's runs; nobody else's.
    api = APIClient()
    api.force_authenticate(alice)
    runs = api.get(f"/api/v1/matches/{match.pk}/hosted-logs/").json()["runs"]
    assert {r["verdict"] for r in runs} == {"out of memory (memory limit reached)", "running"}
    for viewer in (bob, carol, olga):
        api = APIClient()
        api.force_authenticate(viewer)
        assert api.get(f"/api/v1/matches/{match.pk}/hosted-logs/").json() == {"runs": []}
        assert api.get(f"/api/v1/hosted-uploads/{row.pk}/").status_code == 404
    assert APIClient().get(f"/api/v1/matches/{match.pk}/hosted-logs/").status_code in (401, 403)
