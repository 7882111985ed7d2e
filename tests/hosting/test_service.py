"""Uploads through the API and the bot host end to end: validation, a ladder match on a real referee
(database tokens, the host's proxy and sandbox) against a connected bot, the author's logs, quotas
and cleanup."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from referee.server.match import MatchState
from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink
from tests.referee.bots import FirstBot
from tests.referee.harness import FAST
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.bots.token_store import DjangoTokenStore
from webapp.hosting import services
from webapp.hosting.models import HostedMatchLog, HostedRun, HostedUpload, UploadStatus
from workers.hosting import sandbox
from workers.hosting.host import BotHost, HostSettings, _close_db

UPLOADS = Path(__file__).parent / "uploads"
GAME = "scrumbrawl"
needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0, reason="needs bubblewrap and root"
)


@pytest.fixture
def storage(tmp_path: Path) -> Any:
    root = tmp_path / "hosted"
    with override_settings(BRAWL_HOSTED_DIR=str(root)):
        yield root
    for folder in root.rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)


def _client(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _upload(client: APIClient, bot: Bot, name: str, data: bytes, entry: str) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        f"/api/v1/bots/{bot.pk}/upload/",
        {"file": SimpleUploadedFile(name, data), "entry": entry, "notes": "test"},
        format="multipart",
    )


@pytest.mark.django_db
def test_upload_api_accepts_refuses_and_keeps_logs_for_the_author(storage: Path) -> None:
    alice = User.objects.create_user("alice-h", password="x")
    bob = User.objects.create_user("bob-h", password="x")
    bot, _ = bot_services.do_create_bot(alice, GAME, "Hosted-First")
    good = (UPLOADS / "first_bot.py").read_bytes()
    answer = _upload(_client(alice), bot, "first_bot.py", good, "first_bot:FirstBot")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["status"] == "pending" and len(body["sha256"]) == 64
    assert (storage / body["sha256"][:2] / body["sha256"] / "first_bot.py").read_bytes() == good
    # Refusals: a syntax error (400, nothing stored), another author's bot (403).
    bad = _upload(_client(alice), bot, "bad.py", b"def x(:\n", "bad:Bot")
    assert bad.status_code == 400 and "does not compile" in bad.json()["detail"]
    assert _upload(_client(bob), bot, "first_bot.py", good, "first_bot:FirstBot").status_code == 403
    assert HostedUpload.objects.count() == 1
    # The detail with logs is the author's only.
    assert _client(alice).get(f"/api/v1/hosted-uploads/{body['id']}/").json()["validation_log"] == ""
    assert _client(bob).get(f"/api/v1/hosted-uploads/{body['id']}/").status_code == 404


@pytest.mark.django_db
def test_daily_upload_quota_is_refused_with_429(storage: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "UPLOADS_PER_DAY", 2)
    alice = User.objects.create_user("alice-q", password="x")
    bot, _ = bot_services.do_create_bot(alice, GAME, "Quota")
    data = (UPLOADS / "first_bot.py").read_bytes()
    assert _upload(_client(alice), bot, "first_bot.py", data, "first_bot:FirstBot").status_code == 201
    assert _upload(_client(alice), bot, "first_bot.py", data, "first_bot:FirstBot").status_code == 201
    third = _upload(_client(alice), bot, "first_bot.py", data, "first_bot:FirstBot")
    assert third.status_code == 429 and "uploads per author" in third.json()["detail"]


@pytest.mark.django_db
def test_storage_quota_and_cleanup_keep_what_replays_need(storage: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alice = User.objects.create_user("alice-c", password="x")
    bot, _ = bot_services.do_create_bot(alice, GAME, "Cleanup")
    one = services.do_upload(alice, bot, "first_bot.py", (UPLOADS / "first_bot.py").read_bytes(), "first_bot:FirstBot")
    two = services.do_upload(alice, bot, "b.py", b"class Bot:\n    pass\n", "b:Bot")
    services.do_record_validation(one, True, "ok", "")
    services.do_record_validation(two, False, "import failed", "")
    report = services.do_cleanup()
    assert report.removable_uploads == 1  # the rejected one
    assert not (storage / two.sha256[:2] / two.sha256).exists()
    assert (storage / one.sha256[:2] / one.sha256).exists()  # the bot's latest version
    assert report.stored_bytes == one.stored_bytes
    monkeypatch.setattr(services, "STORED_BYTES_PER_AUTHOR", one.stored_bytes + 10)
    from webapp.api import InvalidInput

    with pytest.raises(InvalidInput, match="the limit is"):
        services.do_upload(alice, bot, "c.py", b"x = 1\n" * 10, "c:Bot")


@needs_sandbox
@pytest.mark.django_db(transaction=True)
def test_host_validates_an_upload_then_runs_it_on_the_ladder_against_a_connected_bot(storage: Path) -> None:
    """Upload -> validation match -> new latest version -> the host connects it -> a match against a
    connected bot -> the run's verdict and log are kept for the author."""
    alice = User.objects.create_user("alice-e", password="x")
    bot, _ = bot_services.do_create_bot(alice, GAME, "Hosted-E2E")
    rival, rival_token = bot_services.do_create_bot(alice, GAME, "Connected-E2E")
    first_version = bot.latest_version_id
    row = services.do_upload(alice, bot, "first_bot.py", (UPLOADS / "first_bot.py").read_bytes(), "first_bot:FirstBot")

    matches: list[Any] = []

    async def scenario() -> None:
        from referee.sdk import BotClient

        server = create_server("127.0.0.1:0", tokens=DjangoTokenStore(), sink=MemoryResultSink(), secret="s" * 32)
        await server.start()
        host = BotHost(HostSettings(referee=f"127.0.0.1:{server.port}", poll=0.2, max_running=2))
        rival_client = BotClient(FirstBot, f"127.0.0.1:{server.port}", rival_token.token, max_matches=4)
        rival_task = asyncio.create_task(rival_client.run())
        try:
            await host.tick()  # validates, then starts the new version
            refreshed = await asyncio.to_thread(lambda: HostedUpload.objects.get(pk=row.pk))
            assert refreshed.status == UploadStatus.READY, (refreshed.summary, refreshed.validation_log)
            assert refreshed.version_id != first_version
            assert len(host.running) == 1
            assert host.disk is not None and host.disk.stored_bytes >= row.stored_bytes  # cleanup ran, use reported
            ids = {str(bot.pk), str(rival.pk)}

            async def connected() -> None:
                while {s.identity.bot_id for s in server.referee.sessions.values()} < ids:
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(connected(), 30)

            def queue_two() -> list[Any]:
                from webapp.matches import services as match_services

                bot.refresh_from_db()
                rival.refresh_from_db()
                out = []
                for _ in range(2):
                    m = match_services.do_queue_match(GAME, [bot.latest_version, rival.latest_version], rated=False)
                    match_services.do_start_match(m.pk, "ref-test")
                    out.append(m)
                return out

            matches.extend(await asyncio.to_thread(_close_db, queue_two))
            from referee.core.ids import BotId
            from referee.server.match import SeatSpec

            # Two matches one after the other on the same run: each gets its own slice of the output.
            for match, seed in zip(matches, (3, 4), strict=True):
                runner = server.referee.start_match(
                    game=GAME,
                    seats=[SeatSpec(bot_id=BotId(str(bot.pk))), SeatSpec(bot_id=BotId(str(rival.pk)))],
                    seed=seed,
                    time_control=FAST.to_proto(),
                    match_id=match.referee_match_id(),
                )
                await asyncio.wait_for(runner.wait(), 120)
                assert runner.state is MatchState.SUCCEEDED and runner.replay is not None
                assert not runner.replay.incidents
            # The referee is done once it sent MatchEnd; wait until the sandboxed bot has read both.
            (running,) = host.running.values()
            played = {m.referee_match_id() for m in matches}

            async def ended() -> None:
                while not all(
                    running.run.matches.slices.get(i) and running.run.matches.slices[i].ended for i in played
                ):
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(ended(), 30)
        finally:
            host.stop()
            await host.serve()  # returns at once, stopping every run and recording it
            rival_client.stop()
            await asyncio.gather(rival_task, return_exceptions=True)
            await server.stop(0.5)

    asyncio.run(scenario())
    run = HostedRun.objects.get(upload_id=row.pk)
    assert run.verdict == "stopped by the host"
    assert "hosted bot starts match" in run.log and "\x1e" not in run.log  # tags removed from the run's log
    first, second = (m.referee_match_id() for m in matches)
    assert f"starts match {first}\n" in run.log and f"starts match {second}\n" in run.log
    # Each match's slice holds that match's line and not the other's; both ended normally.
    for mine, other in ((first, second), (second, first)):
        piece = HostedMatchLog.objects.get(run=run, match_id=mine)
        assert f"hosted bot starts match {mine}\n" in piece.log and f"match {other}\n" not in piece.log
        assert piece.ended is not None and piece.verdict == ""
    # The match page and the API show the author exactly that match's slice; others see nothing.
    from django.test import Client

    author = Client()
    author.force_login(alice)
    bob = User.objects.create_user("bob-e", password="x")
    stranger = Client()
    stranger.force_login(bob)
    for match, mine, other in ((matches[0], first, second), (matches[1], second, first)):
        page = author.get(f"/matches/{match.pk}/").content.decode()
        assert f"hosted bot starts match {mine}\n" in page and f"starts match {other}\n" not in page
        entries = _client(alice).get(f"/api/v1/matches/{match.pk}/hosted-logs/").json()["runs"]
        assert len(entries) == 1 and entries[0]["verdict"] == "played to its end" and not entries[0]["whole_run"]
        assert f"starts match {mine}\n" in entries[0]["log"] and f"starts match {other}\n" not in entries[0]["log"]
        assert "hosted bot starts match" not in stranger.get(f"/matches/{match.pk}/").content.decode()
        assert _client(bob).get(f"/api/v1/matches/{match.pk}/hosted-logs/").json() == {"runs": []}
    # The run's token was revoked when it ended.
    assert bot.tokens.count() == 2 and bot.tokens.filter(revoked_at__isnull=True).count() == 1
    assert len(run.log.encode()) - 200 <= sandbox.LOG_LIMIT


@pytest.mark.django_db
def test_match_logs_are_the_authors_runs_during_that_match_and_nobody_elses(storage: Path) -> None:
    """The author sees the runs (log and verdict) of their hosted version live during the match."""
    from datetime import timedelta

    from django.utils import timezone

    from webapp.matches import services as match_services

    alice = User.objects.create_user("alice-m", password="x")
    bob = User.objects.create_user("bob-m", password="x")
    mine, _ = bot_services.do_create_bot(alice, GAME, "Mine-M")
    theirs, _ = bot_services.do_create_bot(bob, GAME, "Theirs-M")
    row = services.do_upload(alice, mine, "first_bot.py", (UPLOADS / "first_bot.py").read_bytes(), "first_bot:FirstBot")
    row = services.do_record_validation(row, True, "ok", "")
    mine.refresh_from_db()
    theirs.refresh_from_db()
    match = match_services.do_queue_match(GAME, [mine.latest_version, theirs.latest_version], rated=True)
    match_services.do_start_match(match.pk, "ref-test")
    now = timezone.now()
    oom = "out of memory (memory limit reached)"
    run = services.do_record_run(row, now - timedelta(minutes=5), oom, "other match\nMemoryError")
    t = now.timestamp()
    services.do_save_match_logs(
        run.pk,
        [
            services.MatchSlice("elsewhere", t - 300, t - 200, "other match\n"),
            services.MatchSlice(match.referee_match_id(), t - 100, t, "MemoryError", oom),
        ],
    )
    # A marked run that never played this match shows nothing here, even though it was up.
    services.do_record_run(row, now - timedelta(minutes=4), "stopped by the host", "unrelated")
    before = services.do_record_run(row, now - timedelta(hours=3), "stopped by the host", "old run")
    before.ended = now - timedelta(hours=2)
    before.save()
    answer = _client(alice).get(f"/api/v1/matches/{match.pk}/hosted-logs/")
    assert answer.status_code == 200
    runs = answer.json()["runs"]
    assert [r["verdict"] for r in runs] == [oom]  # not the run that ended before
    assert runs[0]["log"] == "MemoryError" and not runs[0]["whole_run"]  # this match's slice, not the run's log
    # An executable bot's output has no match marks: the runs up during the match are given whole.
    row.kind = "exec"
    row.save()
    answer = _client(alice).get(f"/api/v1/matches/{match.pk}/hosted-logs/").json()["runs"]
    assert {(r["log"], r["whole_run"]) for r in answer} == {("MemoryError", False), ("unrelated", True)}
    assert _client(bob).get(f"/api/v1/matches/{match.pk}/hosted-logs/").json() == {"runs": []}
    assert APIClient().get(f"/api/v1/matches/{match.pk}/hosted-logs/").status_code in (401, 403)
