"""Admin for tournaments and entrants."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from django.contrib import admin

from webapp.tournaments.models import Tournament, TournamentEntrant


class EntrantInline(admin.TabularInline):
    model = TournamentEntrant
    extra = 0
    raw_id_fields = ["bot_version"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "format", "best_of", "status", "published", "created"]
    list_filter = ["game", "format", "status", "published"]
    inlines = [EntrantInline]


@admin.register(TournamentEntrant)
class TournamentEntrantAdmin(admin.ModelAdmin):
    list_display = ["tournament", "bot_version", "seed", "approved"]
    raw_id_fields = ["tournament", "bot_version"]
