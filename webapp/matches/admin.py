"""Admin for matches and seats."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from typing import TYPE_CHECKING

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from webapp.matches import services
from webapp.matches.models import Match, MatchSeat, with_secrets_state

# Django's admin classes are generic only in django-stubs (not subscriptable at run time): the type
# checker sees each base with its model, Python the bare class.
if TYPE_CHECKING:
    _MatchSeatInlineBase = admin.TabularInline[MatchSeat, Match]
    _MatchAdminBase = admin.ModelAdmin[Match]
    _MatchSeatAdminBase = admin.ModelAdmin[MatchSeat]
else:
    _MatchSeatInlineBase = admin.TabularInline
    _MatchAdminBase = admin.ModelAdmin
    _MatchSeatAdminBase = admin.ModelAdmin


class MatchSeatInline(_MatchSeatInlineBase):
    model = MatchSeat
    extra = 0
    raw_id_fields = ["bot_version"]


@admin.register(Match)
class MatchAdmin(_MatchAdminBase):
    list_display = ["id", "game", "status", "rated", "tournament", "created", "finished_at"]
    list_filter = ["game", "status", "rated"]
    raw_id_fields = ["tournament", "requested_by", "replaces"]
    readonly_fields = ["request_id", "created", "seed_commitment", "revealed_seed"]
    # The seed is secret until the match ends, even from staff (a staff member may also be an author):
    # it is shown only through Match.revealed_seed(), never as a form field.
    exclude = ["replay_gz", "seed"]
    inlines = [MatchSeatInline]
    actions = ["cancel"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Matches are created only by matches.services.do_queue_match (seed from the OS, commitment published).
        return False

    @admin.display(description="seed")
    def revealed_seed(self, obj: Match) -> str:
        seed = obj.revealed_seed()
        return str(seed) if seed is not None else "hidden until the match (and any match sharing its seed) has ended"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return with_secrets_state(super().get_queryset(request))

    @admin.action(description="Cancel (matches not yet final)")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        done = 0
        for match in queryset:
            if match.is_final:
                continue
            services.do_cancel_match(match.pk, f"cancelled by {request.user} in the admin")
            done += 1
        self.message_user(request, f"cancelled {done} match(es)", messages.SUCCESS)


@admin.register(MatchSeat)
class MatchSeatAdmin(_MatchSeatAdminBase):
    list_display = ["match", "seat", "bot_version", "rank", "strikes", "timeouts", "illegal_answers"]
    raw_id_fields = ["match", "bot_version"]
