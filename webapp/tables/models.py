"""People's tables: a table of one game, its seats (people or bots), and the people's rating pools.

A table is created by a signed-in person with a size and mode the game's ``GameInfo`` offers
(``webapp.tables.modes``); each seat is a person (the creator, or whoever follows the invite link)
or a bot (a house bot, a bot whose author opted it in with ``Bot.plays_people``, or the creator's
own bot, which makes the table an unrated test table). When every seat is filled and every
person's seat client is connected, the table queues a referee match (``matches.services``), and
from then on its match is the truth: the table only points at it. Rows are written by
``tables.services`` only.
"""

# Django declares options as mutable class attributes (Meta.constraints).
# ruff: noqa: RUF012

from __future__ import annotations

from django.db import models

from webapp import refs


class TableStatus(models.TextChoices):
    """Where a table is in its life."""

    OPEN = "open"
    """Waiting for seats to be filled (or for people's seat clients to connect)."""
    PLAYING = "playing"
    """Its match is queued or running."""
    FINISHED = "finished"
    """Its match reached a final status."""


class Table(models.Model):
    """One people's table."""

    game = models.CharField(max_length=64, db_index=True)
    """Registry name of the game."""
    mode = models.CharField(max_length=32)
    """The mode's key (``webapp.tables.modes``): the size, and ``-teams`` for a team split that is a choice."""
    seats_count = models.PositiveSmallIntegerField()
    """Seats at the table."""
    config = models.JSONField(default=dict, blank=True)
    """The match config the mode implies (``{}`` or the team split's boolean field)."""
    decision_seconds = models.PositiveIntegerField()
    """Free think time per decision, seconds."""
    bank_seconds = models.PositiveIntegerField()
    """Each seat's time bank for the whole match, seconds."""
    created_by = models.ForeignKey(refs.USER, on_delete=models.PROTECT, related_name="tables")
    """The person who opened the table."""
    invite_token = models.CharField(max_length=64, unique=True)
    """The secret of the invite link (``/tables/join/<token>/``)."""
    rated = models.BooleanField(default=True)
    """Whether the result counts in the people's ratings: false for a test table (a person's own bot sits)."""
    status = models.CharField(max_length=16, choices=TableStatus.choices, default=TableStatus.OPEN, db_index=True)
    """Lifecycle state."""
    match = models.OneToOneField(refs.MATCH, null=True, blank=True, on_delete=models.SET_NULL, related_name="table")
    """The referee match, once the table started."""
    settled = models.BooleanField(default=False)
    """Whether the result was applied to the people's ratings (once)."""
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"table {self.pk} ({self.game} {self.mode})"


class SeatKind(models.TextChoices):
    """Who sits in a seat."""

    PERSON = "person"
    BOT = "bot"


class TableSeat(models.Model):
    """One seat of a table: a person (``user``, once someone sits) or a bot."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    """Seat number in the match, from 0."""
    kind = models.CharField(max_length=8, choices=SeatKind.choices)
    user = models.ForeignKey(refs.USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    """The person sitting here (``None`` while a person's seat is free)."""
    bot = models.ForeignKey(refs.BOT, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    """The bot playing this seat: the chosen bot, or the person's seat identity (``Bot.is_person``)."""

    class Meta:
        ordering = ["table_id", "seat"]
        constraints = [models.UniqueConstraint(fields=["table", "seat"], name="table_seat_unique")]

    def __str__(self) -> str:
        return f"table {self.table_id} seat {self.seat}"


class PersonRating(models.Model):
    """A person's rating in one game's people pool (Elo, the ladder's maths)."""

    user = models.ForeignKey(refs.USER, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=64)
    rating = models.FloatField()
    games = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="person_rating_unique")]


class BotPeopleRating(models.Model):
    """A bot's rating from its rated results against people, kept apart from its ladder rating."""

    bot = models.OneToOneField(refs.BOT, on_delete=models.CASCADE, related_name="people_rating")
    """The bot (its page reads this row with the bot's own query: ``select_related("people_rating")``)."""
    rating = models.FloatField()
    games = models.PositiveIntegerField(default=0)


class RatingChange(models.Model):
    """One participant's change of a settled table: the history both pools are folded from."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rating_changes")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(refs.USER, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    bot = models.ForeignKey(refs.BOT, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    before = models.FloatField()
    after = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "seat"], name="table_rating_change_unique")]
