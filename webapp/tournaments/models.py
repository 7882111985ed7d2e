"""Tournaments and their entrants.

The format's progress is held in ``Tournament.state``: the plain data the pure functions in
``ladder/`` take and return, so a tournament can be resumed and audited. Matches of a tournament
are ordinary ``matches.Match`` rows pointing back here. Rows are written by ``tournaments.services``.
"""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from django.db import models

from webapp import refs


class TournamentFormat(models.TextChoices):
    """How pairings are made."""

    SINGLE_ELIM = "single_elim"
    """Knockout: one series lost and you are out."""
    DOUBLE_ELIM = "double_elim"
    """Knockout with a losers' bracket: two series lost and you are out."""
    ROUND_ROBIN = "round_robin"
    """Everyone meets everyone."""
    SWISS = "swiss"
    """A fixed number of rounds pairing entrants with equal scores."""
    PODS = "pods"
    """Multi-seat pods (for games of more than two seats), best placings advance."""


class Seeding(models.TextChoices):
    """How initial seeds are chosen."""

    RATING = "rating"
    """By current Elo, best first."""
    MANUAL = "manual"
    """As the organizer set them."""


class TournamentStatus(models.TextChoices):
    """Lifecycle of a tournament."""

    DRAFT = "draft"
    """Being set up; not open to entries."""
    REGISTRATION = "registration"
    """Open to entries until the registration window closes."""
    RUNNING = "running"
    """Matches are being played."""
    PAUSED = "paused"
    """Running, but no new matches are started."""
    FINISHED = "finished"
    """All matches played; standings final."""


class Tournament(models.Model):
    """A tournament in one game."""

    name = models.CharField(max_length=120)
    """Display name."""
    game = models.CharField(max_length=64, db_index=True)
    """Registry name of the game."""
    format = models.CharField(max_length=16, choices=TournamentFormat.choices)
    """Pairing format."""
    best_of = models.PositiveSmallIntegerField(default=1)
    """Games per series (odd: 1, 3, 5...)."""
    time_control = models.JSONField(default=dict, blank=True)
    """Referee time control: ``{"per_decision_ms": .., "bank_ms": .., "increment_ms": ..}``."""
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    """How seeds are assigned at start."""
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    """Number of Swiss rounds; ignored by other formats."""
    registration_opens = models.DateTimeField(null=True, blank=True)
    """When entries open."""
    registration_closes = models.DateTimeField(null=True, blank=True)
    """When entries close."""
    status = models.CharField(
        max_length=16, choices=TournamentStatus.choices, default=TournamentStatus.DRAFT, db_index=True
    )
    """Lifecycle state."""
    published = models.BooleanField(default=False)
    """Whether anonymous visitors can see it."""
    state = models.JSONField(default=dict, blank=True)
    """The format's state as plain data, owned by the pure functions in ``ladder/``."""
    created_by = models.ForeignKey(refs.USER, null=True, on_delete=models.SET_NULL, related_name="+")
    """The organizer who created it."""
    created = models.DateTimeField(auto_now_add=True)
    """When it was created."""

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name


class TournamentEntrant(models.Model):
    """A bot version entered in a tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    """The tournament."""
    bot_version = models.ForeignKey(refs.BOT_VERSION, on_delete=models.PROTECT, related_name="entries")
    """The entered bot version."""
    seed = models.PositiveIntegerField(null=True, blank=True)
    """Seed number, 1 best; set at start (or by the organizer for manual seeding)."""
    approved = models.BooleanField(default=False)
    """Whether the organizer accepted the entry."""
    registered_at = models.DateTimeField(auto_now_add=True)
    """When the entry was made."""

    class Meta:
        ordering = ["tournament_id", "seed", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot_version"], name="entrant_unique_per_tournament")
        ]

    def __str__(self) -> str:
        return f"{self.bot_version} in {self.tournament}"
