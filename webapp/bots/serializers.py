"""API shapes of bots, versions and tokens."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

import unicodedata
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from webapp.api import MAX_ID
from webapp.bots.models import DESCRIPTION_MAX_CHARS, Bot, BotStats, BotToken, BotVersion
from webapp.bots.services import bot_name_problem


class BotVersionSerializer(serializers.ModelSerializer[BotVersion]):
    """One version of a bot."""

    class Meta:
        model = BotVersion
        fields = ["id", "number", "notes", "created"]
        read_only_fields = ["id", "number", "created"]


class BotRecordSerializer(serializers.ModelSerializer[BotStats]):
    """A bot's results over its finished matches, rated or not, all versions (kept as results are recorded)."""

    class Meta:
        model = BotStats
        fields = ["games", "wins", "draws", "losses", "last_played"]
        read_only_fields = fields


class BotSerializer(serializers.ModelSerializer[Bot]):
    """A bot, with its author, latest version and record."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    latest_version = BotVersionSerializer(read_only=True)
    record = serializers.SerializerMethodField(
        help_text="Finished matches, wins (first alone), draws (first with another bot), losses and when it last "
        "played, over every finished match of the bot; zeros before the first."
    )

    class Meta:
        model = Bot
        fields = [
            "id",
            "name",
            "game",
            "description",
            "owner",
            "is_house",
            "active",
            "plays_people",
            "latest_version",
            "record",
            "created",
        ]
        read_only_fields = ["id", "owner", "is_house", "plays_people", "latest_version", "created"]

    @extend_schema_field(BotRecordSerializer)
    def get_record(self, obj: Bot) -> dict[str, object]:
        try:
            stats = obj.stats
        except BotStats.DoesNotExist:
            stats = BotStats(bot=obj)
        return dict(BotRecordSerializer(stats).data)


def api_bot_name(value: str) -> None:
    """Refuses a bot name with the reason in words (letters of any script are allowed)."""
    problem = bot_name_problem(unicodedata.normalize("NFC", value))
    if problem is not None:
        raise serializers.ValidationError(problem)


class BotCreateSerializer(serializers.Serializer[dict[str, Any]]):
    """What an author sends to register a bot."""

    game = serializers.CharField(max_length=64)
    name = serializers.CharField(max_length=64, trim_whitespace=False, validators=[api_bot_name])
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=DESCRIPTION_MAX_CHARS)


class BotUpdateSerializer(serializers.Serializer[dict[str, Any]]):
    """What an author may change on a bot."""

    description = serializers.CharField(required=False, allow_blank=True, max_length=DESCRIPTION_MAX_CHARS)
    active = serializers.BooleanField(required=False)
    plays_people = serializers.BooleanField(
        required=False, help_text="Offer the bot to people at their tables (docs/people.md); off by default."
    )


class BotTokenSerializer(serializers.ModelSerializer[BotToken]):
    """A token as listed: its prefix only, never the token."""

    class Meta:
        model = BotToken
        fields = ["id", "prefix", "created", "revoked_at", "last_used_at", "is_active"]


class IssuedTokenSerializer(serializers.Serializer[dict[str, Any]]):
    """A newly issued token: ``token`` is shown this once and cannot be retrieved again."""

    token = serializers.CharField()
    id = serializers.IntegerField()
    prefix = serializers.CharField()
    warning = serializers.CharField()


class BotCreatedSerializer(serializers.Serializer[dict[str, Any]]):
    """Answer to creating a bot: the bot and its first token (shown once)."""

    bot = BotSerializer()
    token = IssuedTokenSerializer()


class RevokeTokenSerializer(serializers.Serializer[dict[str, Any]]):
    """Which token to revoke; omit ``token_id`` to revoke all."""

    token_id = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)


class ChallengeSerializer(serializers.Serializer[dict[str, Any]]):
    """An unrated challenge against any active bot (house bots included)."""

    opponent = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Id of the bot to challenge.")


class TeamSplitSerializer(serializers.Serializer[dict[str, Any]]):
    """How the seats of one table size form teams."""

    seats = serializers.IntegerField()
    team_of_seat = serializers.ListField(child=serializers.IntegerField())
    when = serializers.CharField(allow_null=True)


class TimeControlSerializer(serializers.Serializer[dict[str, Any]]):
    """A game's default time control, in seconds."""

    decision_time = serializers.FloatField()
    bank_time = serializers.FloatField()
    max_overrun = serializers.FloatField()
    max_strikes = serializers.IntegerField()
    reconnect_grace = serializers.FloatField()
    max_rtt_credit = serializers.FloatField()


class GameSerializer(serializers.Serializer[dict[str, Any]]):
    """A game from the registry."""

    name = serializers.CharField()
    title = serializers.CharField()
    rules_version = serializers.CharField()
    seat_counts = serializers.ListField(
        child=serializers.IntegerField(), help_text="Every table size a match of the game may have, ascending."
    )
    seats_text = serializers.CharField(help_text='The seat counts in words: "2 or 4".')
    min_seats = serializers.IntegerField(help_text="The smallest of seat_counts.")
    max_seats = serializers.IntegerField(help_text="The largest of seat_counts.")
    has_chance = serializers.BooleanField()
    has_hidden_information = serializers.BooleanField()
    table_sizes = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seats per ladder table, preferred first."
    )
    free_for_all = serializers.BooleanField()
    teams = TeamSplitSerializer(many=True)
    time_control = TimeControlSerializer(allow_null=True)
    board_kind = serializers.CharField(
        allow_null=True, help_text='The board the viewer draws: "hex", "square" or null.'
    )
    available = serializers.BooleanField()
