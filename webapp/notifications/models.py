"""Author notifications: what happened to a bot (events), where to tell (webhooks), and each attempt.

An event row is written in the same transaction as the change it reports (a match's result, a
rating), so a notification is never sent for something that was rolled back and never lost for
something that was committed. The API's feed reads the event rows; each active webhook that wants
the event gets a delivery row, which the workers send and retry (``workers/webhooks.py``).
"""

# ruff: noqa: RUF012

from __future__ import annotations

from django.db import models


class EventKind(models.TextChoices):
    """What a notification reports."""

    MATCH_FINISHED = "match.finished"
    """A match of the bot ended with a result (ranks, scores, termination)."""
    MATCH_ERRORED = "match.errored"
    """A match failed or was forfeited: the reason, and the last decisions when there are any."""
    RATING_CHANGED = "rating.changed"
    """A rated match moved the bot's rating."""
    TOURNAMENT_MATCH_SCHEDULED = "tournament.match_scheduled"
    """A tournament queued a match with the bot in it."""


class DeliveryStatus(models.TextChoices):
    """Where a delivery stands."""

    PENDING = "pending"
    """Not yet accepted by the receiver; will be (re)tried at ``next_attempt_at``."""
    DELIVERED = "delivered"
    """The receiver answered 2xx."""
    FAILED = "failed"
    """Given up after the last attempt."""


class BotEvent(models.Model):
    """One notification about one bot; the feed is these rows by increasing id."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=40, choices=EventKind.choices)
    payload = models.JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["bot", "id"], name="botevent_bot_id")]


class Webhook(models.Model):
    """An author's receiver for one bot's events, signed with its own secret."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64)
    """Hex HMAC-SHA256 key; shown to the bot's author only."""
    events = models.JSONField(default=list)
    """Event kinds sent to this receiver (every kind when empty)."""
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    def wants(self, kind: str) -> bool:
        """Whether this receiver subscribed to ``kind``."""
        return self.active and (not self.events or kind in self.events)


class Delivery(models.Model):
    """One event to one webhook, with its attempts."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(BotEvent, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(
        max_length=12, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(db_index=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    delivered_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["webhook", "event"], name="delivery_once_per_webhook")]
