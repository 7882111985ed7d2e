"""Uploaded bot versions the service runs itself, and the logs their authors see.

An upload is checked when it arrives (size, layout, syntax), then waits for the bot host, which
runs the import check and the validation match in the sandbox. Only an upload that passes becomes a
``BotVersion`` (and the bot's latest, so the ladder seats it); a version is immutable by
construction, since its files are stored read-only under their SHA-256 and never rewritten. Rows
are written by ``hosting.services`` only.
"""

# Django declares options as mutable class attributes (Meta.ordering).
# ruff: noqa: RUF012

from __future__ import annotations

from django.db import models

from webapp import refs


class UploadStatus(models.TextChoices):
    """Where an upload is on its way to the ladder."""

    PENDING = "pending", "waiting for the bot host"
    VALIDATING = "validating", "import check and validation match running"
    READY = "ready", "on the ladder"
    REJECTED = "rejected", "rejected"


class HostedUpload(models.Model):
    """One uploaded bot version."""

    bot = models.ForeignKey(refs.BOT, on_delete=models.CASCADE, related_name="uploads")
    uploaded_by = models.ForeignKey(refs.USER, on_delete=models.PROTECT, related_name="+")
    version = models.OneToOneField(
        refs.BOT_VERSION, null=True, blank=True, on_delete=models.SET_NULL, related_name="hosted"
    )
    """The version it became once validated."""
    kind = models.CharField(max_length=8)
    """``python`` (an SDK class) or ``exec`` (an executable speaking the protocol)."""
    entry = models.CharField(max_length=200)
    """``module:Class`` or the executable's path inside the upload."""
    sha256 = models.CharField(max_length=64, db_index=True)
    """Digest of the bytes as uploaded; also names the stored folder."""
    size_bytes = models.PositiveIntegerField()
    stored_bytes = models.PositiveBigIntegerField()
    """Bytes of the unpacked files on disk (counted against the author's quota)."""
    files_kept = models.BooleanField(default=True)
    """False once the cleanup removed the files (never while a match of the version exists)."""
    notes = models.CharField(max_length=200, blank=True, default="")
    status = models.CharField(max_length=16, choices=UploadStatus.choices, default=UploadStatus.PENDING)
    summary = models.CharField(max_length=300, blank=True, default="")
    """One line: why the upload passed or failed."""
    validation_log = models.TextField(blank=True, default="")
    """The import check's and the validation match's output (bounded), for the author only."""
    created = models.DateTimeField(auto_now_add=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"upload {self.pk} of bot {self.bot_id} ({self.status})"


class HostedRun(models.Model):
    """One run of a hosted version in the sandbox: its verdict and its bounded stdout/stderr."""

    upload = models.ForeignKey(HostedUpload, on_delete=models.CASCADE, related_name="runs")
    started = models.DateTimeField()
    ended = models.DateTimeField(null=True, blank=True)
    verdict = models.CharField(max_length=200, blank=True, default="")
    """How it ended: stopped by the host, out of memory, process limit, crashed (exit status ...)."""
    log = models.TextField(blank=True, default="")
    host = models.CharField(max_length=200, blank=True, default="")
    """Which host ran it (``machine/pid/start`` of a bubblewrap host, ``k8s/namespace`` of a cluster host)."""
    token_id = models.BigIntegerField(null=True, blank=True)
    """The bot token issued for the run (revoked when it ends, or by the next host if its host died)."""

    class Meta:
        ordering = ["-started"]


class HostedMatchLog(models.Model):
    """One match's slice of a run's output (the lines the bot wrote while playing it), for its author only.

    ``match_id`` is the referee's id of the match (``Match.referee_match_id()``); a match that spans
    a restart has a slice in each run. ``verdict`` names how the run ended when it ended during the
    match (a crash, an out-of-memory kill, a forbidden system call), else it is empty.
    """

    run = models.ForeignKey(HostedRun, on_delete=models.CASCADE, related_name="match_logs")
    match_id = models.CharField(max_length=64, db_index=True)
    started = models.DateTimeField()
    ended = models.DateTimeField(null=True, blank=True)
    log = models.TextField(blank=True, default="")
    verdict = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["started"]
        constraints = [models.UniqueConstraint(fields=["run", "match_id"], name="hosting_match_log_once_per_run")]
