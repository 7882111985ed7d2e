"""API shapes of ratings and rating history."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from rest_framework import serializers

from webapp.rankings.models import Rating, RatingHistory


class RatingSerializer(serializers.ModelSerializer[Rating]):
    """A leaderboard row."""

    rank = serializers.IntegerField(
        read_only=True, help_text="Position on this leaderboard, 1 best; provisional versions come after the others."
    )
    provisional = serializers.BooleanField(
        read_only=True, default=False, help_text="Fewer than 20 rated games: the rating is still settling."
    )
    rating = serializers.FloatField(
        source="published",
        read_only=True,
        help_text="The published rating the leaderboard sorts by: Glicko-2 rating minus twice its deviation.",
    )
    bot_id = serializers.IntegerField(source="bot_version.bot_id")
    bot = serializers.CharField(source="bot_version.bot.name")
    owner = serializers.CharField(source="bot_version.bot.owner.username")
    is_house = serializers.BooleanField(source="bot_version.bot.is_house")
    active = serializers.BooleanField(source="bot_version.bot.active")
    version = serializers.IntegerField(source="bot_version.number")

    class Meta:
        model = Rating
        fields = [
            "rank",
            "provisional",
            "game",
            "bot_id",
            "bot",
            "owner",
            "is_house",
            "active",
            "version",
            "bot_version",
            "rating",
            "elo",
            "glicko_rating",
            "glicko_rd",
            "glicko_volatility",
            "peak_elo",
            "games",
            "wins",
            "losses",
            "draws",
            "last_played",
            "inherited_from",
        ]


class RatingHistorySerializer(serializers.ModelSerializer[RatingHistory]):
    """One rating change."""

    bot_id = serializers.IntegerField(source="bot_version.bot_id")
    version = serializers.IntegerField(source="bot_version.number")

    class Meta:
        model = RatingHistory
        fields = [
            "id",
            "match",
            "game",
            "bot_id",
            "bot_version",
            "version",
            "seat",
            "rank",
            "score",
            "played_at",
            "k",
            "games_before",
            "elo_before",
            "elo_after",
            "glicko_before",
            "glicko_after",
            "rd_before",
            "rd_after",
            "volatility_before",
            "volatility_after",
            "inherited_from",
            "created",
        ]
