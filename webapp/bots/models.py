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
    plays_people = models.BooleanField(default=False)
    """Whether its author offers it as an opponent at people's tables (``webapp.tables``); off by default."""
    is_person = models.BooleanField(default=False)
    """Whether this row is a person's seat identity at people's tables, not a program.

    A person's seat in a referee match is a seat like any other, so it needs a bot identity: one
    per person and game, created by ``webapp.tables``, never active (no matchmaking, no default
    leaderboard); its tokens are accepted all the same (``token_store.lookup``)."""
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


class BotStats(models.Model):
    """A bot's results over its finished matches (all versions, rated or not), kept as results are recorded.

    A precomputed count, so the bot page and the leaderboard never count matches on a request.
    ``matches.stats`` adds a match when ``matches.services`` records its result, in the same
    transaction, and takes it away again if the match is later rescheduled; the counts always
    equal a recount of the ``finished`` matches (``matches.stats.recount``). Win, draw and loss mean
    what the matches API's ``result`` filter means: first alone, first with another bot, not first.
    """

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, primary_key=True, related_name="stats")
    """The bot."""
    games = models.PositiveIntegerField(default=0)
    """Finished matches the bot played."""
    wins = models.PositiveIntegerField(default=0)
    """Finished matches it ranked first in, alone."""
    draws = models.PositiveIntegerField(default=0)
    """Finished matches in which it shared first place with another bot."""
    losses = models.PositiveIntegerField(default=0)
    """Finished matches it did not rank first in."""
    last_match = models.ForeignKey(refs.MATCH, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    """The finished match with the highest id (``None`` before the first)."""
    last_played = models.DateTimeField(null=True, blank=True)
    """When the latest of its finished matches finished."""
    revision = models.PositiveBigIntegerField(default=0)
    """Goes up by one with every change of these counts, never down: cached pieces of the bot page key on it."""

    class Meta:
        verbose_name_plural = "bot stats"

    def __str__(self) -> str:
        return f"bot {self.bot_id}: {self.wins}-{self.draws}-{self.losses}"


class BotOpponentStats(models.Model):
    """A bot's head-to-head record against one other bot over finished matches (seat against seat)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="opponent_stats")
    """The bot whose record this is."""
    opponent = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    """The other bot."""
    wins = models.PositiveIntegerField(default=0)
    """Matches in which the bot ranked better than the opponent."""
    draws = models.PositiveIntegerField(default=0)
    """Matches in which they ranked the same."""
    losses = models.PositiveIntegerField(default=0)
    """Matches in which the opponent ranked better."""

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "opponent"], name="bot_opponent_stats_unique")]

    def __str__(self) -> str:
        return f"bot {self.bot_id} v {self.opponent_id}: {self.wins}-{self.draws}-{self.losses}"


class BotSeatStats(models.Model):
    """A bot's results from one seat of one table size, over finished matches (all versions, rated or not).

    Written by ``matches.stats`` with the other counts, in the transaction that records a result;
    each seat counts on its own (a win: ranked first alone; a draw: first with another seat; else a loss).
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="seat_stats")
    """The bot."""
    table_size = models.PositiveSmallIntegerField()
    """Seats at the table."""
    seat = models.PositiveSmallIntegerField()
    """The seat, from 0 (seat 0 moves first)."""
    games = models.PositiveIntegerField(default=0)
    """Finished matches the bot played from this seat at this table size."""
    wins = models.PositiveIntegerField(default=0)
    """Of those, ranked first alone."""
    draws = models.PositiveIntegerField(default=0)
    """Of those, first with another seat."""
    losses = models.PositiveIntegerField(default=0)
    """Of those, not first."""

    class Meta:
        verbose_name_plural = "bot seat stats"
        constraints = [models.UniqueConstraint(fields=["bot", "table_size", "seat"], name="bot_seat_stats_unique")]

    def __str__(self) -> str:
        return f"bot {self.bot_id} seat {self.seat} of {self.table_size}: {self.wins}-{self.draws}-{self.losses}"
