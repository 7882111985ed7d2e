"""Matches and their seats: what the referee played and recorded.

A match is created queued (by a challenge, the matchmaker or a tournament), run by a referee,
and finished exactly once: ``request_id`` makes starting idempotent and the finishing service
refuses a match that is already final. Rows are written by ``matches.services`` only.
"""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

import json
import uuid
from typing import Any

from django.conf import settings
from django.db import models

from referee.core.fairness import seed_commitment
from referee.core.replay import decompress
from webapp import refs


def new_request_id() -> str:
    """Returns a fresh idempotency key for a match request."""
    return uuid.uuid4().hex


def referee_match_id(pk: int) -> str:
    """Returns the match id string the workers give the referee's ``StartMatch`` for the row ``pk``."""
    return str(pk)


def with_secrets_state(qs: models.QuerySet[Match]) -> models.QuerySet[Match]:
    """Annotates ``secrets_open`` (see :meth:`Match.secrets_revealed`) on every row in one query."""
    unfinished_twin = (
        Match.objects.filter(seed=models.OuterRef("seed"))
        .exclude(pk=models.OuterRef("pk"))
        .exclude(status__in=FINAL_STATUSES)
    )
    return qs.annotate(
        secrets_open=models.Case(
            models.When(models.Q(status__in=FINAL_STATUSES) & ~models.Exists(unfinished_twin), then=models.Value(True)),
            default=models.Value(False),
            output_field=models.BooleanField(),
        )
    )


class MatchStatus(models.TextChoices):
    """Where a match is in its life."""

    QUEUED = "queued"
    """Waiting for a referee."""
    RUNNING = "running"
    """A referee is playing it."""
    FINISHED = "finished"
    """Played to an outcome (including forfeits); final."""
    FAILED = "failed"
    """The referee or infrastructure failed; no result; final."""
    CANCELLED = "cancelled"
    """Withdrawn before it finished; final."""
    RESCHEDULED = "rescheduled"
    """Superseded by a replacement match (a disputed tournament game replayed); final."""


FINAL_STATUSES = frozenset({MatchStatus.FINISHED, MatchStatus.FAILED, MatchStatus.CANCELLED, MatchStatus.RESCHEDULED})
"""Statuses a match never leaves."""


class Match(models.Model):
    """One match between bot versions."""

    game = models.CharField(max_length=64, db_index=True)
    """Registry name of the game."""
    config = models.JSONField(default=dict, blank=True)
    """The game config, as validated by the engine's ``parse_config``."""
    time_control = models.JSONField(default=dict, blank=True)
    """Referee time control (``{"per_decision_ms", "bank_ms", "increment_ms"}``); empty for the default."""
    seed = models.BigIntegerField(db_index=True)
    """Seed of the match's chance; with the config and decisions it reproduces the match.

    Secret until :meth:`secrets_revealed`: with it a player could predict every hidden card. Never
    show it anywhere without asking that method first (serializers, templates and the admin do).
    """
    seed_commitment = models.CharField(max_length=64, blank=True, default="")
    """The published commitment to the seed (``referee.core.fairness.seed_commitment`` of
    :meth:`referee_match_id` and ``seed``), set when the match is created; public from the start."""
    status = models.CharField(max_length=16, choices=MatchStatus.choices, default=MatchStatus.QUEUED, db_index=True)
    """Lifecycle state."""
    rated = models.BooleanField(default=True)
    """Whether the result changes ratings (challenges are unrated)."""
    tournament = models.ForeignKey(
        refs.TOURNAMENT, null=True, blank=True, on_delete=models.CASCADE, related_name="matches"
    )
    """The tournament the match belongs to, if any."""
    tournament_round = models.PositiveIntegerField(null=True, blank=True)
    """Round number within the tournament, from 1."""
    tournament_slot = models.CharField(max_length=32, blank=True, default="")
    """Pairing key within the tournament (``"W1-2"``, ``"L3-1"``, ``"GF"``, ``"R2-4"``); games of a series share it."""
    game_in_series = models.PositiveIntegerField(default=1)
    """1-based number of this game within a best-of series."""
    requested_by = models.ForeignKey(refs.USER, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    """The author who requested a challenge match; ``None`` for ladder and tournament matches."""
    referee_id = models.CharField(max_length=128, blank=True, default="")
    """Id of the referee instance (or its match handle) that ran the match."""
    request_id = models.CharField(max_length=64, unique=True, default=new_request_id)
    """Idempotency key: asking twice to start the same request creates one match."""
    replaces = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="replacements")
    """The disputed match this one replays, if any."""
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    """When the match was queued."""
    started_at = models.DateTimeField(null=True, blank=True)
    """When a referee started it."""
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    """When it reached a final status."""
    outcome = models.JSONField(null=True, blank=True)
    """The outcome (``Outcome.to_json()``: ranks, termination, reason, scores)."""
    replay_gz = models.BinaryField(null=True, blank=True)
    """The replay as gzip-compressed JSON, when small enough to keep in the database."""
    replay_path = models.CharField(max_length=255, blank=True, default="")
    """Path of the replay file under ``REPLAY_DIR`` when it is kept on disk instead."""
    incidents = models.JSONField(default=list, blank=True)
    """The referee's incidents (timeouts, illegal answers, strikes, forfeits) as recorded in the replay."""
    failure = models.TextField(blank=True, default="")
    """Why the match failed or was cancelled, for people."""

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["game", "status", "-created"], name="match_game_status_created")]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game}, {self.status})"

    @property
    def is_final(self) -> bool:
        """Whether the match has reached a status it never leaves."""
        return self.status in FINAL_STATUSES

    def referee_match_id(self) -> str:
        """Returns the id the referee knows this match by (``StartMatch.match_id``), which the commitment hashes."""
        return referee_match_id(self.pk)

    def commit_seed(self) -> None:
        """Sets :attr:`seed_commitment` from the saved row's id and seed (every creator of matches calls it)."""
        if self.pk is None:
            raise ValueError("a match is committed to its seed once it has an id")
        self.seed_commitment = seed_commitment(self.referee_match_id(), self.seed)

    def secrets_revealed(self) -> bool:
        """Whether the seed, the replay and anything derived from them may be shown to anyone.

        The one place that decides it: only once this match is final and so is every other match
        played on the same seed (the other matches of a mirrored set share it, and its deal).
        Querysets from :func:`with_secrets_state` answer from an annotation, without a query.
        """
        annotated = getattr(self, "secrets_open", None)
        if annotated is not None:
            return bool(annotated)
        if not self.is_final:
            return False
        same_seed = Match.objects.filter(seed=self.seed).exclude(pk=self.pk)
        return not same_seed.exclude(status__in=FINAL_STATUSES).exists()

    def revealed_seed(self) -> int | None:
        """The seed once :meth:`secrets_revealed`, else ``None``."""
        return self.seed if self.secrets_revealed() else None

    @property
    def has_replay(self) -> bool:
        """Whether a replay is stored."""
        return bool(self.replay_path) or self.replay_gz is not None

    def replay_stored(self) -> bytes | None:
        """Returns the replay as stored (``Replay.encode``'s gzip, or the JSON of an older file), or ``None``."""
        if self.replay_gz is not None:
            return bytes(self.replay_gz)
        if self.replay_path:
            return (settings.REPLAY_DIR / self.replay_path).read_bytes()
        return None

    def replay_bytes(self) -> bytes | None:
        """Returns the replay JSON text as bytes, or ``None`` when none is stored."""
        raw = self.replay_stored()
        return decompress(raw) if raw is not None else None

    def replay_data(self) -> dict[str, Any] | None:
        """Returns the replay as plain data, or ``None``."""
        raw = self.replay_bytes()
        return json.loads(raw) if raw is not None else None


class MatchSeat(models.Model):
    """One seat of a match: who sat there and what the referee recorded about it."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    """The match."""
    seat = models.PositiveSmallIntegerField()
    """Seat index from 0, in the engine's seat order."""
    bot_version = models.ForeignKey(refs.BOT_VERSION, on_delete=models.PROTECT, related_name="seats")
    """The bot version that played the seat."""
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    """Final rank, 1 best, equal ranks tie; ``None`` until finished."""
    score = models.IntegerField(null=True, blank=True)
    """The game's own score (VP, chips), when it has one."""
    strikes = models.PositiveIntegerField(default=0)
    """Strikes the referee gave the seat."""
    timeouts = models.PositiveIntegerField(default=0)
    """Decisions the seat answered late (the default was applied)."""
    illegal_answers = models.PositiveIntegerField(default=0)
    """Answers that named no legal option or could not be parsed."""
    mean_latency_ms = models.FloatField(null=True, blank=True)
    """Mean think time per decision, in milliseconds; ``None`` when the seat timed no decision."""
    p95_latency_ms = models.PositiveIntegerField(null=True, blank=True)
    """The 95th percentile of the seat's think times, in whole milliseconds (as the replay records them)."""
    max_latency_ms = models.PositiveIntegerField(null=True, blank=True)
    """The seat's longest think time, in whole milliseconds."""
    timed_decisions = models.PositiveIntegerField(default=0)
    """Decisions whose think time the referee recorded (what the latency figures are over).

    The seat is the one place latency is stored; the match detail's ``latency`` object is built
    from these columns (``MatchDetailSerializer.get_latency``).
    """

    def latency_summary(self) -> dict[str, float | int | None]:
        """Returns ``{"mean_ms", "p95_ms", "max_ms", "decisions"}``, or ``{}`` when no decision was timed."""
        if self.mean_latency_ms is None:
            return {}
        return {
            "mean_ms": round(self.mean_latency_ms, 1),
            "p95_ms": self.p95_latency_ms,
            "max_ms": self.max_latency_ms,
            "decisions": self.timed_decisions,
        }

    class Meta:
        ordering = ["match_id", "seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="match_seat_unique")]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}"


class MatchFrames(models.Model):
    """The replay viewer's spectator frames of a match, computed once from its replay and kept.

    Re-simulating a long ScrumBrawl match takes about a second; the frames are computed when the
    result is recorded (or on the first request for a match recorded before this table existed)
    and served as stored. They sit in their own table so that match queries never load them.
    """

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="frames_store")
    """The match."""
    replay_digest = models.CharField(max_length=64)
    """SHA-256 of the replay JSON the frames were computed from; another replay makes them stale."""
    frames_gz = models.BinaryField()
    """``spectator_frames(replay)`` as gzip-compressed JSON."""
    created = models.DateTimeField(auto_now_add=True)
    """When they were computed."""

    def __str__(self) -> str:
        return f"frames of match {self.match_id}"
