"""API shapes of matches and seats."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from rest_framework import serializers

from webapp.matches.models import Match, MatchSeat


class MatchSeatSerializer(serializers.ModelSerializer):
    """A seat: who played it and what the referee recorded."""

    bot_id = serializers.IntegerField(source="bot_version.bot_id", read_only=True)
    bot = serializers.CharField(source="bot_version.bot.name", read_only=True)
    owner = serializers.CharField(source="bot_version.bot.owner.username", read_only=True)
    version = serializers.IntegerField(source="bot_version.number", read_only=True)

    class Meta:
        model = MatchSeat
        fields = [
            "seat",
            "bot_id",
            "bot",
            "owner",
            "version",
            "bot_version",
            "rank",
            "score",
            "strikes",
            "timeouts",
            "illegal_answers",
            "mean_latency_ms",
        ]


class MatchSerializer(serializers.ModelSerializer):
    """A match as listed."""

    seats = MatchSeatSerializer(many=True, read_only=True)
    has_replay = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "status",
            "rated",
            "tournament",
            "tournament_round",
            "tournament_slot",
            "game_in_series",
            "created",
            "started_at",
            "finished_at",
            "outcome",
            "seats",
            "has_replay",
        ]

    def get_has_replay(self, obj: Match) -> bool:
        # Listing querysets defer the replay bytes and annotate this instead of loading them.
        annotated = getattr(obj, "replay_stored", None)
        return bool(annotated) if annotated is not None else obj.has_replay


class MatchDetailSerializer(MatchSerializer):
    """A match with everything the referee recorded."""

    class Meta(MatchSerializer.Meta):
        fields = [
            *MatchSerializer.Meta.fields,
            "config",
            "time_control",
            "seed",
            "referee_id",
            "request_id",
            "incidents",
            "latency",
            "failure",
            "replaces",
        ]


class FramesSerializer(serializers.Serializer):
    """Spectator frames of a replay (see ``matches.frames``)."""

    total = serializers.IntegerField()
    start = serializers.IntegerField()
    game = serializers.CharField()
    seats = serializers.ListField(child=serializers.CharField())
    frames = serializers.ListField(child=serializers.DictField())
    outcome = serializers.DictField(allow_null=True)
    incidents = serializers.ListField(child=serializers.DictField())
    board = serializers.DictField(allow_null=True, help_text="Fixed board layout (arena, statues, zones) or null.")
