"""Admin for matches and seats."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from django.contrib import admin

from webapp.matches.models import Match, MatchSeat


class MatchSeatInline(admin.TabularInline):
    model = MatchSeat
    extra = 0
    raw_id_fields = ["bot_version"]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "status", "rated", "tournament", "created", "finished_at"]
    list_filter = ["game", "status", "rated"]
    raw_id_fields = ["tournament", "requested_by", "replaces"]
    readonly_fields = ["request_id", "created"]
    exclude = ["replay_gz"]
    inlines = [MatchSeatInline]


@admin.register(MatchSeat)
class MatchSeatAdmin(admin.ModelAdmin):
    list_display = ["match", "seat", "bot_version", "rank", "strikes", "timeouts", "illegal_answers"]
    raw_id_fields = ["match", "bot_version"]
