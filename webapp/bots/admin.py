"""Admin for bots, versions and tokens (tokens are shown by prefix; issue them from the site or CLI)."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from typing import TYPE_CHECKING

from django.contrib import admin

from webapp.bots.models import Bot, BotToken, BotVersion

# Django's admin classes are generic only in django-stubs (not subscriptable at run time): the type
# checker sees each base with its model, Python the bare class.
if TYPE_CHECKING:
    _BotVersionInlineBase = admin.TabularInline[BotVersion, Bot]
    _BotAdminBase = admin.ModelAdmin[Bot]
    _BotVersionAdminBase = admin.ModelAdmin[BotVersion]
    _BotTokenAdminBase = admin.ModelAdmin[BotToken]
else:
    _BotVersionInlineBase = admin.TabularInline
    _BotAdminBase = admin.ModelAdmin
    _BotVersionAdminBase = admin.ModelAdmin
    _BotTokenAdminBase = admin.ModelAdmin


class BotVersionInline(_BotVersionInlineBase):
    model = BotVersion
    extra = 0
    readonly_fields = ["number", "created"]


@admin.register(Bot)
class BotAdmin(_BotAdminBase):
    list_display = ["name", "game", "owner", "is_house", "active", "created"]
    list_filter = ["game", "is_house", "active"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner", "latest_version"]
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(_BotVersionAdminBase):
    list_display = ["bot", "number", "notes", "created"]
    list_select_related = ["bot"]
    search_fields = ["bot__name"]
    raw_id_fields = ["bot"]


@admin.register(BotToken)
class BotTokenAdmin(_BotTokenAdminBase):
    list_display = ["prefix", "bot", "created", "revoked_at", "last_used_at"]
    list_select_related = ["bot"]
    readonly_fields = ["token_hash", "prefix", "created", "last_used_at"]
    raw_id_fields = ["bot"]
