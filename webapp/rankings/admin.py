"""Admin for ratings (editable by staff) and rating history (read-only: it is append-only)."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from django.contrib import admin
from django.http import HttpRequest

from webapp.rankings.models import Rating, RatingHistory


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["bot_version", "game", "elo", "glicko_rd", "games", "wins", "losses", "draws", "last_played"]
    list_filter = ["game"]
    raw_id_fields = ["bot_version"]
    list_select_related = ["bot_version__bot"]


@admin.register(RatingHistory)
class RatingHistoryAdmin(admin.ModelAdmin):
    list_display = ["id", "match", "bot_version", "game", "elo_before", "elo_after", "rank", "created"]
    list_filter = ["game"]
    raw_id_fields = ["match", "bot_version"]
    list_select_related = ["bot_version__bot"]

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
