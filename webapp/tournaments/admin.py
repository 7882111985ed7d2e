"""Admin for tournaments and entrants, with the organizer operations as admin actions.

The actions call ``tournaments.services``, the same write path as the API, and report refusals
(a wrong status, too few entrants) as messages instead of failing the whole batch.
"""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from rest_framework.exceptions import APIException

from webapp.tournaments import services
from webapp.tournaments.models import Tournament, TournamentEntrant

# Django's admin classes are generic only in django-stubs (not subscriptable at run time): the type
# checker sees each base with its model, Python the bare class.
if TYPE_CHECKING:
    _EntrantInlineBase = admin.TabularInline[TournamentEntrant, Tournament]
    _TournamentAdminBase = admin.ModelAdmin[Tournament]
    _TournamentEntrantAdminBase = admin.ModelAdmin[TournamentEntrant]
else:
    _EntrantInlineBase = admin.TabularInline
    _TournamentAdminBase = admin.ModelAdmin
    _TournamentEntrantAdminBase = admin.ModelAdmin


def _each(
    request: HttpRequest, queryset: QuerySet[Any], operation: Callable[[Any], object], done: str, admin_obj: Any
) -> None:
    ok = 0
    for obj in queryset:
        try:
            operation(obj)
            ok += 1
        except APIException as exc:
            admin_obj.message_user(request, f"{obj}: {exc.detail}", messages.ERROR)
    if ok:
        admin_obj.message_user(request, f"{done}: {ok}", messages.SUCCESS)


class EntrantInline(_EntrantInlineBase):
    model = TournamentEntrant
    extra = 0
    raw_id_fields = ["bot_version"]


@admin.register(Tournament)
class TournamentAdmin(_TournamentAdminBase):
    list_display = ["name", "game", "format", "best_of", "status", "published", "created"]
    list_filter = ["game", "format", "status", "published"]
    readonly_fields = ["status", "state"]
    inlines = [EntrantInline]
    actions = ["open_registration", "start", "pause", "resume", "publish", "unpublish"]

    @admin.action(description="Open registration")
    def open_registration(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(request, queryset, services.do_open_registration, "registration opened", self)

    @admin.action(description="Start (seed approved entrants, queue the first games)")
    def start(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(request, queryset, services.do_start_tournament, "started", self)

    @admin.action(description="Pause")
    def pause(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(request, queryset, services.do_pause_tournament, "paused", self)

    @admin.action(description="Resume")
    def resume(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(request, queryset, services.do_resume_tournament, "resumed", self)

    @admin.action(description="Publish")
    def publish(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(request, queryset, services.do_publish_tournament, "published", self)

    @admin.action(description="Unpublish")
    def unpublish(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _each(request, queryset, lambda t: services.do_publish_tournament(t, False), "hidden", self)


@admin.register(TournamentEntrant)
class TournamentEntrantAdmin(_TournamentEntrantAdminBase):
    list_display = ["tournament", "bot_version", "seed", "approved"]
    list_filter = ["approved"]
    raw_id_fields = ["tournament", "bot_version"]
    actions = ["approve", "reject"]

    @admin.action(description="Approve")
    def approve(self, request: HttpRequest, queryset: QuerySet[TournamentEntrant]) -> None:
        _each(request, queryset, lambda e: services.do_approve_entrant(e, True), "approved", self)

    @admin.action(description="Reject")
    def reject(self, request: HttpRequest, queryset: QuerySet[TournamentEntrant]) -> None:
        _each(request, queryset, lambda e: services.do_approve_entrant(e, False), "rejected", self)
