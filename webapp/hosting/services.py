"""The one write path for hosted uploads: accept, validate, run logs, cleanup and disk report.

Quotas (per author): :data:`UPLOADS_PER_DAY` uploads in any 24 hours and :data:`STORED_BYTES_PER_AUTHOR`
bytes of stored files, counted as unpacked; past either the upload is refused with a 429 or 400 and
nothing is kept. Files live under ``BRAWL_VAR_DIR/hosted`` (:func:`storage_root`); the cleanup also
sweeps what a crash in the middle of an upload left there (:data:`STALE_UPLOAD_SECONDS`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from webapp.api import DomainError, InvalidInput, LimitReached
from webapp.bots.models import Bot
from webapp.hosting import checks
from webapp.hosting.models import HostedMatchLog, HostedRun, HostedUpload, UploadStatus

UPLOADS_PER_DAY = 20
"""Uploads one author may make in any 24 hours."""
STORED_BYTES_PER_AUTHOR = 64 * 1024 * 1024
"""Stored (unpacked) bytes one author's uploads may take, files of removed versions not counted."""
STALE_UPLOAD_SECONDS = 3600.0
"""Age after which the cleanup removes a staging folder, or a stored folder no upload row names."""
RUN_LOG_CHARS = 64 * 1024
"""Characters of a run's log kept in the database (the sandbox keeps the first and last 32 KiB)."""


def bounded(log: str) -> str:
    """``log`` cut to :data:`RUN_LOG_CHARS`: its start and its end, with a line saying what was cut.

    The sandbox's own log is already cut to 64 KiB plus its cut line, which is kept whole.
    """
    if len(log) <= RUN_LOG_CHARS + 100:
        return log
    marker = f"\n[... {len(log) - RUN_LOG_CHARS} characters cut ...]\n"
    half = (RUN_LOG_CHARS - len(marker)) // 2
    return log[:half] + marker + log[len(log) - (RUN_LOG_CHARS - len(marker) - half) :]


class NotOwner(DomainError):
    """Only the bot's author may upload versions of it."""

    status_code = 403
    default_code = "permission_denied"


def storage_root() -> Path:
    """Where uploads are stored."""
    root = Path(getattr(settings, "BRAWL_HOSTED_DIR", "") or Path(settings.VAR_DIR) / "hosted")
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    return root


@transaction.atomic
def do_upload(user: User, bot: Bot, filename: str, data: bytes, entry: str, notes: str = "") -> HostedUpload:
    """Checks and stores an upload of a new version of ``bot``; it waits for the host to validate it.

    Raises:
        NotOwner: ``user`` is not the bot's author.
        LimitReached: the author's daily upload quota is spent.
        InvalidInput: the upload breaks a rule (size, layout, syntax, entry) or the storage quota.
    """
    if bot.owner_id != user.pk:
        raise NotOwner("Only the bot's author may upload versions of it.")
    if len(notes) > 200:
        raise InvalidInput(f"notes is {len(notes)} characters; at most 200 are allowed")
    # Lock the author's row so two concurrent uploads cannot both pass the quota.
    User.objects.select_for_update().filter(pk=user.pk).first()
    now = timezone.now()
    recent = HostedUpload.objects.filter(uploaded_by=user, created__gte=now - timedelta(days=1))
    if recent.count() >= UPLOADS_PER_DAY:
        oldest = recent.order_by("created").first()
        assert oldest is not None
        raise LimitReached(
            f"at most {UPLOADS_PER_DAY} uploads per author in 24 hours", oldest.created + timedelta(days=1), now
        )
    root = storage_root()
    try:
        with checks.unpacked(root, filename, data, entry) as checked:
            used = author_stored_bytes(user)
            if used + checked.unpacked_bytes > STORED_BYTES_PER_AUTHOR:
                raise InvalidInput(
                    f"your uploads take {used} bytes; this one adds {checked.unpacked_bytes} and the limit is "
                    f"{STORED_BYTES_PER_AUTHOR} (delete old bots or wait for unused versions to be cleaned up)"
                )
            row = HostedUpload.objects.create(
                bot=bot,
                uploaded_by=user,
                kind=checked.kind,
                entry=checked.entry,
                sha256=checked.sha256,
                size_bytes=checked.size,
                stored_bytes=checked.unpacked_bytes,
                notes=notes,
            )
            checks.store(root, checked)
    except checks.UploadRefused as exc:
        raise InvalidInput(str(exc)) from exc
    return row


def author_stored_bytes(user: User) -> int:
    """Bytes of stored files counted against ``user``'s quota."""
    total = HostedUpload.objects.filter(uploaded_by=user, files_kept=True).aggregate(n=Sum("stored_bytes"))["n"]
    return int(total or 0)


def do_claim_pending() -> HostedUpload | None:
    """Marks the oldest pending upload as validating and returns it (one host claims each)."""
    with transaction.atomic():
        row = (
            HostedUpload.objects.select_for_update(skip_locked=True)
            .filter(status=UploadStatus.PENDING)
            .order_by("created")
            .first()
        )
        if row is None:
            return None
        row.status = UploadStatus.VALIDATING
        row.save(update_fields=["status"])
        return row


@transaction.atomic
def do_record_validation(row: HostedUpload, passed: bool, summary: str, log: str) -> HostedUpload:
    """Stores the validation's outcome; a pass creates the bot's next version and makes it the latest."""
    from webapp.bots.services import do_create_version

    row = HostedUpload.objects.select_for_update().get(pk=row.pk)
    row.summary = summary[:300]
    row.validation_log = bounded(log)
    row.checked_at = timezone.now()
    if passed:
        notes = row.notes or f"hosted upload {row.sha256[:12]}"
        row.version = do_create_version(Bot.objects.get(pk=row.bot_id), notes=notes[:200])
        row.status = UploadStatus.READY
    else:
        row.status = UploadStatus.REJECTED
    row.save()
    return row


def runnable() -> list[HostedUpload]:
    """Validated uploads whose version is its bot's latest and whose bot is active: what the host runs."""
    rows = HostedUpload.objects.filter(status=UploadStatus.READY, bot__active=True, files_kept=True).select_related(
        "bot"
    )
    return [r for r in rows if r.version_id is not None and r.bot.latest_version_id == r.version_id]


def do_record_run(row: HostedUpload, started: datetime, verdict: str, log: str) -> HostedRun:
    """Stores one ended sandbox run's verdict and bounded log."""
    return HostedRun.objects.create(
        upload=row, started=started, ended=timezone.now(), verdict=verdict[:200], log=bounded(log)
    )


def do_start_run(row: HostedUpload, started: datetime, *, host: str = "", token_id: int | None = None) -> HostedRun:
    """Stores a run that has just started (verdict ``running``, no end yet), so its log shows while it runs."""
    return HostedRun.objects.create(
        upload=row, started=started, verdict="running", log="", host=host[:200], token_id=token_id
    )


ORPHAN_VERDICT = "ended with its host (the host stopped without recording the run)"


def do_close_orphan_runs(is_dead: Callable[[str], bool]) -> int:
    """Ends the runs a dead host left open: revokes their tokens and names the end; returns how many.

    ``is_dead(host)`` says whether the host that wrote a run is gone (a starting host knows its own
    machine's processes, or that it is the cluster's only host).
    """
    from webapp.bots.models import BotToken

    closed = 0
    for run in HostedRun.objects.filter(ended__isnull=True).exclude(host=""):
        if not is_dead(run.host):
            continue
        with transaction.atomic():
            if run.token_id is not None:
                BotToken.objects.filter(pk=run.token_id, revoked_at__isnull=True).update(revoked_at=timezone.now())
            HostedRun.objects.filter(pk=run.pk, ended__isnull=True).update(ended=timezone.now(), verdict=ORPHAN_VERDICT)
        closed += 1
    return closed


def do_update_run(run_id: int, log: str, *, verdict: str | None = None, ended: bool = False) -> None:
    """Writes a run's log so far; with ``ended`` (and its ``verdict``) the run is over."""
    fields: dict[str, object] = {"log": bounded(log)}
    if verdict is not None:
        fields["verdict"] = verdict[:200]
    if ended:
        fields["ended"] = timezone.now()
    HostedRun.objects.filter(pk=run_id).update(**fields)


MATCH_LOG_CHARS = 32 * 1024
"""Characters of one match's slice of a run's log kept (the sandbox keeps its first and last 16 KiB)."""


@dataclass(frozen=True)
class MatchSlice:
    """One match's output in a run, as the host hands it over (times are POSIX seconds)."""

    match_id: str
    started: float
    ended: float | None
    log: str
    verdict: str = ""


def do_save_match_logs(run_id: int, slices: list[MatchSlice]) -> None:
    """Writes (creates or replaces) the per-match slices of run ``run_id``'s log."""
    from datetime import UTC

    def at(t: float) -> datetime:
        return datetime.fromtimestamp(t, UTC)

    for s in slices:
        log = s.log
        if len(log) > MATCH_LOG_CHARS + 100:
            marker = f"\n[... {len(log) - MATCH_LOG_CHARS} characters cut ...]\n"
            half = (MATCH_LOG_CHARS - len(marker)) // 2
            log = log[:half] + marker + log[len(log) - (MATCH_LOG_CHARS - len(marker) - half) :]
        HostedMatchLog.objects.update_or_create(
            run_id=run_id,
            match_id=s.match_id[:64],
            defaults={
                "started": at(s.started),
                "ended": None if s.ended is None else at(s.ended),
                "log": log,
                "verdict": s.verdict[:200],
            },
        )


@dataclass(frozen=True)
class DiskReport:
    """Disk use of hosted uploads."""

    stored_bytes: int
    """Bytes on disk under the storage root."""
    kept_uploads: int
    removable_uploads: int
    stale_removed: int = 0
    """Leftover folders of crashed uploads swept (:data:`STALE_UPLOAD_SECONDS`)."""


def _in_use(row: HostedUpload) -> bool:
    """Whether a version's files must stay: it is some bot's latest, or a match (a replay) refers to it."""
    if row.version_id is None:
        return row.status in (UploadStatus.PENDING, UploadStatus.VALIDATING)
    from webapp.matches.models import MatchSeat

    if Bot.objects.filter(latest_version_id=row.version_id).exists():
        return True
    return MatchSeat.objects.filter(bot_version_id=row.version_id).exists()


def do_cleanup(*, dry_run: bool = False) -> DiskReport:
    """Removes the files of rejected uploads and of superseded versions no replay refers to.

    A folder shared by several uploads (the same bytes) is removed only when none of them needs it.
    It also sweeps, once older than :data:`STALE_UPLOAD_SECONDS`, the staging folders a crash in
    the middle of an upload left and stored folders no upload row names.
    """
    root = storage_root()
    kept = removable = 0
    needed: set[str] = set()
    candidates: list[HostedUpload] = []
    for row in HostedUpload.objects.filter(files_kept=True):
        if _in_use(row):
            needed.add(row.sha256)
            kept += 1
        else:
            candidates.append(row)
    for row in candidates:
        removable += 1
        if dry_run:
            continue
        if row.sha256 not in needed:
            checks.remove(root, row.sha256)
        row.files_kept = False
        row.save(update_fields=["files_kept"])
    stale = 0
    if not dry_run:
        kept_digests = set(HostedUpload.objects.filter(files_kept=True).values_list("sha256", flat=True))
        for path in checks.stale_leftovers(root, kept_digests, time.time() - STALE_UPLOAD_SECONDS):
            checks.discard(path)
            stale += 1
    return DiskReport(checks.disk_usage(root), kept, removable, stale)


def match_logs(user: User, match_id: int) -> list[dict[str, object]]:
    """What ``user``'s hosted versions wrote during match ``match_id``: one entry per run that played it.

    Each entry holds that match's slice of the run's output (never another match's lines), and
    ``verdict`` names a crash, an out-of-memory kill or a forbidden system call when the run ended
    during the match. A run that carries no match marks (an executable bot, a Kubernetes pod) is
    given whole, with ``whole_run`` set. Other authors' runs are never included.
    """
    from webapp.matches.models import Match

    match = Match.objects.get(pk=match_id)
    versions = list(match.seats.filter(bot_version__bot__owner=user).values_list("bot_version_id", flat=True))
    if not versions or match.started_at is None:
        return []
    out: list[dict[str, object]] = []
    slices = HostedMatchLog.objects.filter(
        run__upload__version_id__in=versions, match_id=match.referee_match_id()
    ).select_related("run__upload__version")
    for piece in slices:
        run = piece.run
        out.append(
            {
                "version": run.upload.version.number if run.upload.version else None,
                "upload": run.upload_id,
                "run": run.pk,
                "started": piece.started.isoformat(),
                "ended": piece.ended.isoformat() if piece.ended else None,
                "verdict": piece.verdict or ("played to its end" if piece.ended else run.verdict),
                "run_verdict": run.verdict,
                "whole_run": False,
                "log": piece.log,
            }
        )
    # Runs without marks (no slice at all): their whole log, as the only record of the match.
    runs = HostedRun.objects.filter(upload__version_id__in=versions, started__lte=match.finished_at or timezone.now())
    runs = runs.exclude(ended__lt=match.started_at).filter(match_logs__isnull=True).select_related("upload__version")
    for run in runs:
        if run.upload.kind == "python" and not run.host.startswith("k8s/"):
            continue  # marked, but it did not play this match
        out.append(
            {
                "version": run.upload.version.number if run.upload.version else None,
                "upload": run.upload_id,
                "run": run.pk,
                "started": run.started.isoformat(),
                "ended": run.ended.isoformat() if run.ended else None,
                "verdict": run.verdict,
                "run_verdict": run.verdict,
                "whole_run": True,
                "log": run.log,
            }
        )
    return out
