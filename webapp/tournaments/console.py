"""The organizer's console: pages to create and run tournaments from the browser.

Every write goes through :mod:`webapp.tournaments.services` (the API calls the same functions), so
the lifecycle checks are the same whichever door is used. Only users with the organizer role
(:mod:`webapp.roles`) get past :func:`organizer_required`; others get a 403 page.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from rest_framework.exceptions import APIException

from referee.core.registry import game_names
from webapp.api import InvalidInput
from webapp.bots.models import Bot
from webapp.errors import error_response
from webapp.games import game_info
from webapp.matches.models import Match, MatchStatus
from webapp.permissions import signed_in_user
from webapp.rankings.farming import RULE, farming_flags
from webapp.roles import is_organizer
from webapp.tournaments import services
from webapp.tournaments.bracket import bracket_data
from webapp.tournaments.models import Seeding, Tournament, TournamentEntrant, TournamentFormat, TournamentStatus


def organizer_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Lets only organizers in: others logged in get a 403 page, visitors the login page."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not is_organizer(request.user):
            return error_response(request, 403, "Only organizers may use the console.")
        return view(request, *args, **kwargs)

    return wrapped


class TournamentForm(forms.Form):
    """A new tournament: every format and its options."""

    name = forms.CharField(max_length=services.NAME_MAX_CHARS)
    game = forms.ChoiceField(choices=())
    format = forms.ChoiceField(choices=TournamentFormat.choices)
    best_of = forms.IntegerField(min_value=1, max_value=services.MAX_BEST_OF, initial=1, help_text="odd: 1, 3, 5...")
    rounds = forms.IntegerField(
        min_value=1, max_value=services.MAX_ROUNDS, required=False, help_text="Swiss only; empty: enough for a winner"
    )
    seeding = forms.ChoiceField(choices=Seeding.choices, initial=Seeding.RATING)
    per_decision_ms = forms.IntegerField(
        min_value=1, required=False, help_text="time per decision (ms); empty: the game's default"
    )
    bank_ms = forms.IntegerField(min_value=0, required=False, help_text="time bank (ms); empty: the game's default")
    registration_closes = forms.DateTimeField(
        required=False, help_text="UTC, YYYY-MM-DD HH:MM; empty: open until start"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g, game_info(g)["title"]) for g in game_names()]  # type: ignore[attr-defined]

    def clean_best_of(self) -> int:
        value = int(self.cleaned_data["best_of"])
        if value % 2 == 0:
            raise forms.ValidationError("A series needs an odd number of games (1, 3, 5...).")
        return value


@organizer_required
def console_index(request: HttpRequest) -> HttpResponse:
    """Every tournament by state, and the form to create one."""
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        time_control = {k: data[k] for k in ("per_decision_ms", "bank_ms") if data.get(k) is not None}
        try:
            t = services.do_create_tournament(
                signed_in_user(request),
                name=data["name"],
                game=data["game"],
                format=data["format"],
                best_of=data["best_of"],
                rounds=data["rounds"],
                seeding=data["seeding"],
                time_control=time_control,
                registration_closes=data["registration_closes"],
            )
        except APIException as exc:
            form.add_error(None, str(exc.detail))
        else:
            messages.info(request, f"Created {t.name} (draft).")
            return redirect("console-tournament", tournament_id=t.pk)
    tournaments = list(Tournament.objects.order_by("-created")[:200])
    context = {"form": form, "tournaments": tournaments, "farming": farming_flags(), "farming_rule": RULE}
    return render(request, "organize/index.html", context)


def _matches(t: Tournament) -> list[Match]:
    return list(
        Match.objects.filter(tournament=t)
        .prefetch_related("seats__bot_version__bot")
        .order_by("tournament_round", "tournament_slot", "game_in_series", "id")
    )


@organizer_required
def console_tournament(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """One tournament's controls: its state, entrants, matches and bracket."""
    t = get_object_or_404(Tournament, pk=tournament_id)
    entrants = list(t.entrants.select_related("bot_version__bot__owner").order_by("seed", "id"))
    entered = {e.bot_version.bot_id for e in entrants}
    candidates = [
        b
        for b in Bot.objects.filter(game=t.game, active=True, latest_version__isnull=False)
        .select_related("owner")
        .order_by("-is_house", "name")[:500]
        if b.pk not in entered
    ]
    matches = _matches(t)
    counts = {s: 0 for s in MatchStatus.values}
    for m in matches:
        counts[m.status] += 1
    return render(
        request,
        "organize/tournament.html",
        {
            "t": t,
            "game": game_info(t.game),
            "entrants": entrants,
            "approved": sum(e.approved for e in entrants),
            "candidates": candidates,
            "matches": matches,
            "counts": counts,
            "data": bracket_data(t, for_template=True),
            "state": lifecycle_state(t),
            "steps": LIFECYCLE,
            "done": lifecycle_done(t),
        },
    )


LIFECYCLE = [
    ("draft", "draft"),
    ("registration", "registration"),
    ("running", "running"),
    ("finished", "finished"),
    ("published", "published"),
]
"""The console's lifecycle strip: each state an organizer moves a tournament through, in order."""


def lifecycle_done(t: Tournament) -> set[str]:
    """The lifecycle steps behind the tournament's state (a draft started directly skips registration)."""
    order = [step for step, _ in LIFECYCLE]
    state = lifecycle_state(t)
    here = order.index("running" if state == "paused" else state)
    return set(order[:here])


def lifecycle_state(t: Tournament) -> str:
    """The state an organizer sees: draft, registration, running, paused, finished or published."""
    if t.status == TournamentStatus.FINISHED and t.published:
        return "published"
    return str(t.status)


def _entrant(t: Tournament, request: HttpRequest) -> TournamentEntrant:
    try:
        entrant_id = int(request.POST.get("entrant", ""))
    except ValueError:
        raise Http404("no such entrant") from None
    return get_object_or_404(TournamentEntrant, pk=entrant_id, tournament=t)


def _seed(request: HttpRequest) -> int | None:
    raw = request.POST.get("seed", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= services.MAX_ENTRANT_SEED:
        raise InvalidInput(f"a seed is a whole number from 1 to {services.MAX_ENTRANT_SEED}, got {raw!r}")
    return int(raw)


def _add_entrants(t: Tournament, request: HttpRequest) -> str:
    ids = request.POST.getlist("bot")
    if request.POST.get("house") == "all":
        bots = list(Bot.objects.filter(game=t.game, is_house=True, active=True, latest_version__isnull=False))
    else:
        bots = list(Bot.objects.filter(pk__in=[int(i) for i in ids if i.isdigit()], game=t.game))
    added = 0
    for bot in bots:
        if bot.latest_version is None:
            continue
        entrant = services.do_add_entrant(t, bot.latest_version)
        added += entrant is not None
    return f"Added and approved {added} entrant(s)."


@organizer_required
@require_POST
def console_action(request: HttpRequest, tournament_id: int, verb: str) -> HttpResponse:
    """Performs one organizer operation and returns to the console with what happened."""
    t = get_object_or_404(Tournament, pk=tournament_id)
    try:
        if verb == "open-registration":
            services.do_open_registration(t)
            messages.info(request, "Registration is open: authors can enter from the tournament page.")
        elif verb == "add-entrants":
            messages.info(request, _add_entrants(t, request))
        elif verb in ("approve", "reject"):
            e = services.do_approve_entrant(_entrant(t, request), verb == "approve", _seed(request))
            messages.info(request, f"{e.bot_version.bot.name}: {'approved' if e.approved else 'not approved'}.")
        elif verb == "start":
            services.do_start_tournament(t)
            messages.info(request, "Started: the first matches are queued.")
        elif verb == "pause":
            services.do_pause_tournament(t)
            messages.info(request, "Paused: matches already queued still run, no new ones start.")
        elif verb == "resume":
            services.do_resume_tournament(t)
            messages.info(request, "Resumed.")
        elif verb == "finish":
            reason = request.POST.get("reason", "").strip()[:200] or f"finished early by {request.user}"
            services.do_finish_tournament(t, reason)
            messages.info(request, "Finished: games still queued or running were cancelled; the standings are final.")
        elif verb == "rerun":
            match = get_object_or_404(Match, pk=int(request.POST.get("match", "0") or 0), tournament=t)
            reason = request.POST.get("reason", "").strip()[:200] or f"re-run by {request.user}"
            new = services.do_replay_match(t, match, reason)
            messages.info(request, f"Match {match.pk} replaced by match {new.pk}.")
        elif verb in ("publish", "unpublish"):
            services.do_publish_tournament(t, verb == "publish")
            messages.info(request, "Published: anyone can see it." if verb == "publish" else "Hidden again.")
        else:
            raise Http404(f"unknown action {verb!r}")
    except APIException as exc:
        messages.error(request, str(exc.detail))
    return redirect("console-tournament", tournament_id=t.pk)
