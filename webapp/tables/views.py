"""The tables' pages: open a table from a game's page, follow an invite, sit at the table.

The table page itself is a shell: ``webapp/static/webapp/js/table.js`` opens the table's socket
(``webapp.tables.consumers``) and draws what it is pushed.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from referee.core.registry import UnknownGameError, get_game
from webapp.api import DomainError
from webapp.tables import modes as table_modes
from webapp.tables import services
from webapp.tables.models import Table


def _info(game: str) -> object:
    try:
        return get_game(game).info
    except UnknownGameError as exc:
        raise Http404(f"no game {game!r}") from exc


@login_required
def new_table(request: HttpRequest, game: str) -> HttpResponse:
    """``/tables/new/<game>/``: choose a mode, then the seats and the time control; POST opens the table."""
    info = _info(game)
    all_modes = table_modes.modes(game)
    key = request.POST.get("mode") or request.GET.get("mode") or all_modes[0].key
    mode = table_modes.find_mode(game, key) or all_modes[0]
    bots = list(services.offered_bots(request.user, game).select_related("owner"))  # type: ignore[arg-type]
    cap = table_modes.round_cap(game, mode.seats)
    error = ""
    if request.method == "POST":
        try:
            seats = [services.parse_seat(request.POST.get(f"seat{i}", "")) for i in range(mode.seats)]
            rounds_raw = request.POST.get("rounds", "").strip()
            rounds = services.parse_whole(rounds_raw, "rounds", 1, cap[1]) if cap and rounds_raw else None
            table = services.do_open_table(
                request.user,  # type: ignore[arg-type]
                game,
                mode.key,
                seats,
                decision_seconds=services.parse_whole(
                    request.POST.get("decision_seconds", ""), "seconds per decision", *services.DECISION_SECONDS
                ),
                bank_minutes=services.parse_whole(request.POST.get("bank_minutes", ""), "bank", *services.BANK_MINUTES),
                rounds=rounds,
            )
        except DomainError as exc:
            error = str(exc.detail)
        else:
            return HttpResponseRedirect(reverse("table", args=[table.pk]))
    return render(
        request,
        "tables/new.html",
        {
            "info": info,
            "modes": all_modes,
            "mode": mode,
            "seat_numbers": range(mode.seats),
            "bots": bots,
            "user_id": request.user.pk,
            "round_cap": cap,
            "decision_default": services.DEFAULT_DECISION_SECONDS,
            "decision_range": services.DECISION_SECONDS,
            "bank_default": services.DEFAULT_BANK_MINUTES,
            "bank_range": services.BANK_MINUTES,
            "error": error,
        },
        status=400 if error else 200,
    )


@login_required
def join_table(request: HttpRequest, invite: str) -> HttpResponse:
    """``/tables/join/<invite>/``: GET shows the table and a button; POST takes a free person's seat."""
    table = Table.objects.filter(invite_token=invite).first()
    if table is None:
        raise Http404("no table has this invite link")
    if table.seats.filter(user_id=int(request.user.pk or 0)).exists():
        return HttpResponseRedirect(reverse("table", args=[table.pk]))
    error = ""
    if request.method == "POST":
        try:
            services.do_join(request.user, invite)  # type: ignore[arg-type]
        except DomainError as exc:
            error = str(exc.detail)
        else:
            return HttpResponseRedirect(reverse("table", args=[table.pk]))
    return render(
        request,
        "tables/join.html",
        {"table": table, "info": _info(table.game), "seats": table.seats.select_related("user", "bot"), "error": error},
        status=409 if error else 200,
    )


@login_required
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/``: the table, for a person seated at it; its script does the rest over the socket."""
    table = get_object_or_404(Table, pk=table_id)
    seat = table.seats.filter(user_id=int(request.user.pk or 0)).first()
    if seat is None:
        return render(request, "tables/not_seated.html", {"table": table}, status=403)
    return render(
        request,
        "tables/table.html",
        {"table": table, "info": _info(table.game), "seat": seat, "ws_base": settings.BRAWL_TABLES_WS_URL},
    )
