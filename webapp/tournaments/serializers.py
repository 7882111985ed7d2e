"""API shapes of tournaments, entrants and organizer requests."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from webapp.api import MAX_ID
from webapp.tournaments.models import Seeding, Tournament, TournamentEntrant, TournamentFormat
from webapp.tournaments.services import MAX_BEST_OF, MAX_ENTRANT_SEED, MAX_ROUNDS, NAME_MAX_CHARS


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    """A tournament."""

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "game",
            "format",
            "best_of",
            "time_control",
            "seeding",
            "rounds",
            "registration_opens",
            "registration_closes",
            "status",
            "published",
            "created",
        ]
        read_only_fields = ["id", "status", "published", "created"]


class TournamentDetailSerializer(TournamentSerializer):
    """A tournament with the format's state."""

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "state"]


class TournamentCreateSerializer(serializers.Serializer[dict[str, Any]]):
    """What an organizer sends to create a tournament."""

    name = serializers.CharField(max_length=NAME_MAX_CHARS)
    game = serializers.CharField(max_length=64)
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    best_of = serializers.IntegerField(min_value=1, max_value=MAX_BEST_OF, default=1)
    time_control = serializers.DictField(
        required=False,
        default=dict,
        help_text="``per_decision_ms`` (1 to 60000), ``bank_ms`` (0 to 3600000), ``increment_ms`` (0 to 60000).",
    )
    seeding = serializers.ChoiceField(choices=Seeding.choices, default=Seeding.RATING)
    rounds = serializers.IntegerField(min_value=1, max_value=MAX_ROUNDS, required=False, allow_null=True)
    registration_opens = serializers.DateTimeField(required=False, allow_null=True)
    registration_closes = serializers.DateTimeField(required=False, allow_null=True)


class EntrantSerializer(serializers.ModelSerializer[TournamentEntrant]):
    """An entry."""

    bot_id = serializers.IntegerField(source="bot_version.bot_id", read_only=True)
    bot = serializers.CharField(source="bot_version.bot.name", read_only=True)
    owner = serializers.CharField(source="bot_version.bot.owner.username", read_only=True)
    version = serializers.IntegerField(source="bot_version.number", read_only=True)

    class Meta:
        model = TournamentEntrant
        fields = ["id", "bot_id", "bot", "owner", "version", "bot_version", "seed", "approved", "registered_at"]
        read_only_fields = ["id", "seed", "approved", "registered_at"]


class RegisterSerializer(serializers.Serializer[dict[str, Any]]):
    """An author enters one of their bots (its latest version unless ``bot_version`` is given)."""

    bot = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    bot_version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)


class ApproveSerializer(serializers.Serializer[dict[str, Any]]):
    """An organizer approves (or rejects) an entry and may set a manual seed."""

    entrant = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    approved = serializers.BooleanField(default=True)
    seed = serializers.IntegerField(min_value=1, max_value=MAX_ENTRANT_SEED, required=False)


class ReplayMatchSerializer(serializers.Serializer[dict[str, Any]]):
    """A disputed game to replay."""

    match = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    reason = serializers.CharField(max_length=500)


class PublishSerializer(serializers.Serializer[dict[str, Any]]):
    """Publish or hide."""

    published = serializers.BooleanField(default=True)


class FinishSerializer(serializers.Serializer[dict[str, Any]]):
    """Finish a tournament now, with the reason its cancelled games carry."""

    reason = serializers.CharField(max_length=200, required=False, allow_blank=True)
