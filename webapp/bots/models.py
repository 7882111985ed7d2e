"""Bots, their versions and the tokens a bot presents to the referee.

A bot belongs to one game and one author. Each upload or rebuild is a new ``BotVersion``: ratings
and matches refer to versions, so a new version starts its own rating. Tokens are stored as SHA-256
hashes only; the plain token is shown once when issued. Rows are written by ``bots.services`` only.
"""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from django.core.validators import MaxLengthValidator
from django.db import models

from webapp import refs

DESCRIPTION_MAX_CHARS = 2000
"""Longest bot description (the services refuse longer ones; pages and API say so first)."""
NOTES_MAX_CHARS = 200
"""Longest version notes (the column's length)."""


class Bot(models.Model):
    """A bot an author enters in one game's ladder."""

    owner = models.ForeignKey(refs.USER, on_delete=models.PROTECT, related_name="bots")
    """The author who owns the bot."""
    game = models.CharField(max_length=64, db_index=True)
    """Registry name of the game the bot plays (``referee.core.registry``)."""
    name = models.CharField(max_length=64)
    """Display name, unique within the game."""
    description = models.TextField(blank=True, default="", validators=[MaxLengthValidator(DESCRIPTION_MAX_CHARS)])
    """Free text from the author."""
    is_house = models.BooleanField(default=False)
    """Whether this is a reference bot run by the organisers, open to challenges from anyone."""
    active = models.BooleanField(default=True)
    """Whether the bot takes part in matchmaking and shows on the default leaderboard."""
    latest_version = models.ForeignKey(
        "bots.BotVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    """The newest version; ladder matches and the default leaderboard use it."""
    created = models.DateTimeField(auto_now_add=True)
    """When the bot was registered."""

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="bot_name_unique_per_game")]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class BotVersion(models.Model):
    """One version of a bot; ratings and match seats point here."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    """The bot."""
    number = models.PositiveIntegerField()
    """1 for the first version, then consecutive."""
    notes = models.CharField(max_length=200, blank=True, default="")
    """What changed, from the author."""
    created = models.DateTimeField(auto_now_add=True)
    """When the version was created."""

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="bot_version_number_unique")]
        ordering = ["bot_id", "-number"]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"


class BotToken(models.Model):
    """A secret a bot presents to the referee; only its hash is stored."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="tokens")
    """The bot the token authenticates."""
    token_hash = models.CharField(max_length=64, unique=True)
    """Hex SHA-256 of the token; the token itself is never stored."""
    prefix = models.CharField(max_length=16)
    """The first characters of the token, to tell tokens apart in lists."""
    created = models.DateTimeField(auto_now_add=True)
    """When the token was issued."""
    revoked_at = models.DateTimeField(null=True, blank=True)
    """When the token was revoked; ``None`` while it is valid."""
    last_used_at = models.DateTimeField(null=True, blank=True)
    """When the referee last accepted the token."""

    class Meta:
        ordering = ["-created"]

    @property
    def is_active(self) -> bool:
        """Whether the token is still accepted."""
        return self.revoked_at is None

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.bot.name})"
