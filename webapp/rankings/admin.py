"""Admin for ratings and rating history.

Both are derived from the rated matches by ``rankings.services``: rating values are read-only
(``brawl ratings recompute`` is the repair) and the append-only history cannot be changed or deleted.
"""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from typing import TYPE_CHECKING

from django.contrib import admin
from django.http import HttpRequest

from webapp.rankings.models import Rating, RatingHistory

# Django's admin classes are generic only in django-stubs (not subscriptable at run time): the type
# checker sees each base with its model, Python the bare class.
if TYPE_CHECKING:
    _RatingAdminBase = admin.ModelAdmin[Rating]
    _RatingHistoryAdminBase = admin.ModelAdmin[RatingHistory]
else:
    _RatingAdminBase = admin.ModelAdmin
    _RatingHistoryAdminBase = admin.ModelAdmin


@admin.register(Rating)
class RatingAdmin(_RatingAdminBase):
    list_display = ["bot_version", "game", "elo", "glicko_rd", "games", "wins", "losses", "draws", "last_played"]
    list_filter = ["game"]
    raw_id_fields = ["bot_version"]
    list_select_related = ["bot_version__bot"]
    # Every value is derived from the rating history; a hand edit would fail `brawl ratings verify`.
    readonly_fields = [f.name for f in Rating._meta.fields if f.name not in {"id", "bot_version", "game"}]


@admin.register(RatingHistory)
class RatingHistoryAdmin(_RatingHistoryAdminBase):
    list_display = ["id", "match", "bot_version", "game", "played_at", "elo_before", "elo_after", "rank", "created"]
    list_filter = ["game"]
    raw_id_fields = ["match", "bot_version", "inherited_from"]
    list_select_related = ["bot_version__bot"]

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
