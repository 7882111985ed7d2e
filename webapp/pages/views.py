"""Server-rendered pages: thin views that read through querysets and write through services.

Each view fetches what its template shows in a fixed number of queries (``select_related`` and
``prefetch_related``, never a query per row), so the query count does not grow with the data.
"""

from __future__ import annotations

import io
import math
import zipfile
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from rest_framework.exceptions import APIException
from rest_framework.throttling import SimpleRateThrottle

from referee.core.errors import EngineError
from referee.core.registry import UnknownGameError, game_names
from referee.core.replay import Replay, ReplayError
from webapp.api import DomainError, query_id
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.errors import error_response
from webapp.games import all_games, game_info
from webapp.matches import frames
from webapp.matches import services as match_services
from webapp.matches.framestore import replay_digest
from webapp.matches.models import Match, MatchStatus, with_secrets_state
from webapp.matches.pagination import KeysetPage, lazy_keyset_page, page_cursor
from webapp.matches.views import filter_matches, match_queryset, visible_matches
from webapp.notifications import services as notify
from webapp.notifications.models import Delivery, EventKind, Webhook
from webapp.pages.forms import BotForm, LockoutAuthenticationForm, SignUpForm
from webapp.permissions import signed_in_user
from webapp.rankings.models import Rating
from webapp.rankings.views import PROVISIONAL_GAMES, leaderboard
from webapp.rankings.views_pages import bot_profile
from webapp.rankings.views_pages import leaderboard_page as cached_leaderboard_page
from webapp.roles import is_organizer
from webapp.tables.services import people_rating
from webapp.tournaments import services as t_services
from webapp.tournaments.bracket import bracket_data
from webapp.tournaments.console import lifecycle_state
from webapp.tournaments.models import Tournament, TournamentEntrant, TournamentStatus
from webapp.tournaments.views import visible_tournaments

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

MAX_ZIP_IDS = 500
"""Ids read from ``/me/replays.zip?ids=`` (the archive holds at most 500 replays anyway)."""


def home(request: HttpRequest) -> HttpResponse:
    """Games, the top of each leaderboard, matches running now, tournaments in progress."""
    games = all_games()
    for g in games:
        g["top"] = list(leaderboard(g["name"])[:5])
    running = list(visible_matches(request.user).filter(status=MatchStatus.RUNNING).order_by("-started_at", "-id")[:10])
    tournaments = list(
        visible_tournaments(request.user)
        .filter(status__in=[TournamentStatus.RUNNING, TournamentStatus.PAUSED, TournamentStatus.REGISTRATION])
        .order_by("-created")[:10]
    )
    return render(request, "pages/home.html", {"games": games, "running": running, "tournaments": tournaments})


def leaderboard_page(request: HttpRequest, game: str) -> HttpResponse:
    """One game's leaderboard with trends and a rating-history chart of the leaders (cached: rankings.views_pages)."""
    if game not in game_names():
        raise Http404(f"unknown game {game!r}")
    active_param = request.GET.get("active", "true")
    active = {"true": True, "false": False, "all": None}.get(active_param, True)
    board = cached_leaderboard_page(game, active, request.GET.get("page"))
    return render(
        request,
        "pages/leaderboard.html",
        {
            "game": game_info(game),
            "page": board["page"],
            "rows_html": board["rows_html"],
            "chart": board["chart"],
            "active": active_param,
            "provisional_games": PROVISIONAL_GAMES,
        },
    )


BOT_PAGE_MATCHES = 25
"""Matches per page on a bot's page."""


def bot_matches_page(
    user: User | AnonymousUser, bot_id: int, filters: dict[str, str], cursor: str | None
) -> tuple[Any, str]:
    """The page of ``bot_id``'s matches that ``user`` sees (``filters``: the page's opponent, rated and result),
    with the key its rows are cached under (``matches.pagination.lazy_keyset_page``)."""
    qs = filter_matches(visible_matches(user), {**filters, "bot": str(bot_id)})
    return lazy_keyset_page(qs, page_cursor(cursor), BOT_PAGE_MATCHES)


def first_matches_key(bot_id: int) -> str:
    """The cache key of bot ``bot_id``'s first page of matches as a visitor sees it, rendered by a refresh.

    Stamped like the bot's profile (``webapp.pages.refresh.refresh_bot`` stores both), so that a
    visitor given the previous profile while a refresh is on its way gets the matches of that
    moment with it, without a query.
    """
    return f"bot-first-matches:v1:{bot_id}"


def stale_first_matches(bot_id: int, stamp: tuple[int, ...]) -> tuple[KeysetPage[Any], str] | None:
    """The first page of matches stored with a stale profile of stamp ``stamp`` (its pager, its rows), if any."""
    found = cache.get(first_matches_key(bot_id))
    if not (isinstance(found, tuple) and len(found) == 2 and found[0] == stamp):
        return None
    rows = found[1]
    return KeysetPage([], rows["next"], rows["previous"]), rows["html"]


def bot_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    """A bot: versions and ratings, rating-history chart with peak, recent matches, head to head.

    Everything but the matches comes from precomputed rows through the cache (rankings.views_pages);
    the matches are a keyset page (matches.pagination), newest first.
    """
    bot = get_object_or_404(Bot.objects.select_related("owner", "latest_version", "stats", "people_rating"), pk=bot_id)
    profile = bot_profile(bot)
    params = {k: request.GET.get(k, "") for k in ("opponent", "rated", "result")}
    query = {k: v for k, v in params.items() if v}
    cursor = request.GET.get("cursor")
    rows_key, rows_html, stale = "", "", None
    if profile["stale"] and not query and not cursor and not request.user.is_authenticated:
        # A refresh is on its way: the visitor gets the matches of the profile's moment with it.
        stale = stale_first_matches(bot.pk, profile["stamp"])
    if stale is not None:
        page, rows_html = stale
    else:
        page, rows_key = bot_matches_page(request.user, bot.pk, query, cursor)
    return render(
        request,
        "pages/bot.html",
        {
            "bot": bot,
            "game": game_info(bot.game),
            "ratings": profile["ratings"],
            "chart": profile["chart"],
            "peak": profile["peak"],
            "page": page,
            "params": params,
            "h2h": profile["h2h"],
            "pods": profile["pods"],
            "by_seat": profile["by_seat"],
            "h2h_html": profile["h2h_html"],
            "opponent_options": profile["opponent_options"],
            "profile_key": profile["key"],
            "rows_key": rows_key,
            "rows_html": rows_html,
            "stats": profile["stats"],
            "is_owner": request.user.is_authenticated and request.user.pk == bot.owner_id,
            "people_rating": people_rating(bot),  # read with the bot above: no query of its own
        },
    )


REPLAY_HEAD_CACHE_SECONDS = 7 * 24 * 3600
"""How long the viewer's first screen of a replay (:func:`replay_head`) stays in the cache."""


def replay_head(match: Match) -> dict[str, Any] | None:
    """Frame 0 of ``match``'s replay with its frame count and result, for the page to embed; None if none.

    Only called once the match's secrets are revealed (the same rule as the frames endpoint). Kept
    in the cache under the replay's digest; a replay the engine cannot simulate has no head (the
    viewer then waits for the frames endpoint, which reports the error).
    """
    raw = Match.objects.only("replay_gz", "replay_path").get(pk=match.pk).replay_bytes()
    if raw is None:
        return None
    key = f"frames:head:{match.pk}:{replay_digest(raw)[:16]}"
    head = cache.get(key)
    if head is None:
        try:
            head = frames.replay_head(Replay.loads(raw))
        except (ReplayError, EngineError, UnknownGameError, ImportError):
            return None
        cache.set(key, head, timeout=REPLAY_HEAD_CACHE_SECONDS)
    return cast(dict[str, Any], head)


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """A match: seats and results, the referee's record, and the replay viewer (live while running)."""
    match = get_object_or_404(visible_matches(request.user), pk=match_id)
    revealed = match.secrets_revealed()
    replay_public = revealed and bool(match.replay_stored)
    return render(
        request,
        "pages/match.html",
        {
            "match": match,
            "game": game_info(match.game),
            "seats": list(match.seats.all()),
            # The template never reads match.seed: only this, None until Match.secrets_revealed().
            "seed": match.seed if revealed else None,
            "replay_public": replay_public,
            "replay_head": replay_head(match) if replay_public else None,
        },
    )


def matches_page(request: HttpRequest) -> HttpResponse:
    """Recent matches, filtered by game and status."""
    params = {k: request.GET.get(k, "") for k in ("game", "status", "rated")}
    qs = filter_matches(visible_matches(request.user), {k: v for k, v in params.items() if v})
    page, rows_key = lazy_keyset_page(qs, page_cursor(request.GET.get("cursor")), 50)
    context = {"page": page, "params": params, "statuses": MatchStatus.values, "rows_key": rows_key}
    return render(request, "pages/matches.html", context)


def tournaments_page(request: HttpRequest) -> HttpResponse:
    """Tournaments, newest first."""
    return render(
        request, "pages/tournaments.html", {"tournaments": visible_tournaments(request.user).order_by("-created")[:200]}
    )


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament: bracket (elimination), crosstable (round robin) or standings per round (Swiss)."""
    t = get_object_or_404(visible_tournaments(request.user), pk=tournament_id)
    data = bracket_data(t, for_template=True)
    # Before publication an entrant's author may open only their own bots' games (visible_matches).
    limited = not (t.published or request.user.is_staff or is_organizer(request.user))
    openable: set[int] = set()
    if limited:
        openable = set(visible_matches(request.user).filter(tournament=t).values_list("id", flat=True))
    entrants = list(t.entrants.select_related("bot_version__bot__owner").order_by("seed", "id"))
    can_enter = request.user.is_authenticated and t.status == TournamentStatus.REGISTRATION
    my_bots: list[Bot] = []
    if can_enter:
        entered = {e.bot_version.bot_id for e in entrants}
        my_bots = [
            b
            for b in Bot.objects.filter(
                owner=signed_in_user(request), game=t.game, latest_version__isnull=False, is_person=False
            )
            .select_related("latest_version")
            .order_by("name")
            if b.pk not in entered
        ]
    return render(
        request,
        "pages/tournament.html",
        {
            "t": t,
            "data": data,
            "entrants": entrants,
            "game": game_info(t.game),
            "state": lifecycle_state(t),
            "can_enter": can_enter,
            "my_bots": my_bots,
            "is_organizer": is_organizer(request.user),
            "limited": limited,
            "openable": openable,
        },
    )


@login_required
@require_POST
def enter_tournament(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """An author enters one of their bots (its latest version); the entry waits for the organizer's approval.

    Posted from the tournament page and from the bot's manage page (``next`` says where to return).
    """
    t = get_object_or_404(visible_tournaments(request.user), pk=tournament_id)
    raw = request.POST.get("bot", "")
    bot = get_object_or_404(
        Bot.objects.select_related("latest_version"), pk=int(raw) if raw.isdigit() else 0, owner=request.user
    )
    try:
        if bot.latest_version is None:
            raise DomainError(f"{bot.name} has no version to enter")
        t_services.do_register_entrant(t, bot.latest_version)
    except APIException as exc:
        messages.error(request, str(exc.detail))
    else:
        messages.info(request, f"{bot.name} entered {t.name}; the organizer approves entries before the start.")
    target = request.POST.get("next", "")
    if target == "manage":
        return redirect("manage-bot", bot_id=bot.pk)
    return redirect("tournament", tournament_id=t.pk)


class LoginView(auth_views.LoginView):
    """Django's login page with the sign-in lockout: a locked-out attempt answers 429 and says for how long."""

    authentication_form = LockoutAuthenticationForm

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, "locked_out"):
            response.status_code = 429
        return response


class SignupThrottle(SimpleRateThrottle):
    """Sign-up posts per client address (the ``signup`` rate), signed in or not."""

    scope = "signup"

    def get_cache_key(self, request: Any, view: object) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def signup_allowed(request: HttpRequest) -> int:
    """Counts a sign-up attempt from the client's address; returns the seconds to wait (0: allowed)."""
    throttle = SignupThrottle()
    # No API view: the throttle's key (get_cache_key above) reads the address only.
    if throttle.allow_request(cast(Any, request), None):  # type: ignore[arg-type]
        return 0
    return max(1, math.ceil(throttle.wait() or 1))


def signup(request: HttpRequest) -> HttpResponse:
    """Author sign-up; logs the new author in. Sign-up posts are limited per address (``signup`` rate)."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and (wait := signup_allowed(request)):
        response = error_response(request, 429, f"Too many sign-ups from your address; try again in {wait} s.")
        response["Retry-After"] = str(wait)
        return response
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
        return redirect("my-bots")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    """The author's bots with their ratings and tokens (by prefix)."""
    bots = list(
        Bot.objects.filter(owner=signed_in_user(request), is_person=False)
        .select_related("latest_version")
        .prefetch_related("tokens")
        .order_by("game", "name")
    )
    ratings: dict[int | None, Rating] = {
        r.bot_version_id: r
        for r in Rating.objects.filter(bot_version_id__in=[b.latest_version_id for b in bots if b.latest_version_id])
    }
    for b in bots:
        b.rating = ratings.get(b.latest_version_id)  # type: ignore[attr-defined]  # read by the template only
    left, resets_at = match_services.challenges_left(signed_in_user(request))
    return render(request, "pages/my_bots.html", {"bots": bots, "challenges_left": left, "resets_at": resets_at})


@login_required
def create_bot(request: HttpRequest) -> HttpResponse:
    """Register a bot; the answer shows its token once."""
    form = BotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            bot, token = bot_services.do_create_bot(signed_in_user(request), **form.cleaned_data)
        except APIException as exc:
            form.add_error(None, str(exc.detail))
        else:
            return token_page(request, bot, token.token, created=True)
    return render(request, "pages/create_bot.html", {"form": form})


def token_page(request: HttpRequest, bot: Bot, token: str, *, created: bool) -> HttpResponse:
    """The one page that ever shows a plain token; no cache may keep it."""
    response = render(
        request,
        "pages/token_once.html",
        {"bot": bot, "token": token, "created": created, "referee_address": settings.BRAWL_REFEREE_PUBLIC_ADDRESS},
    )
    response["Cache-Control"] = "no-store"
    return response


def _own_bot(request: HttpRequest, bot_id: int) -> Bot:
    return get_object_or_404(Bot.objects.select_related("latest_version"), pk=bot_id, owner=request.user)


@login_required
def manage_bot(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The author's controls for one bot: tokens, versions, activity, challenges."""
    bot = _own_bot(request, bot_id)
    opponents = (
        Bot.objects.filter(game=bot.game, active=True)
        .exclude(pk=bot.pk)
        .select_related("owner")
        .order_by("-is_house", "name")[:200]
    )
    left, resets_at = match_services.challenges_left(signed_in_user(request))
    entered = set(TournamentEntrant.objects.filter(bot_version__bot=bot).values_list("tournament_id", flat=True))
    taking_entries = Tournament.objects.filter(game=bot.game, status=TournamentStatus.REGISTRATION)
    open_tournaments = [t for t in taking_entries.order_by("-created")[:50] if t.pk not in entered]
    upcoming = list(
        match_queryset()
        .filter(seats__bot_version__bot=bot, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING])
        .distinct()
        .order_by("-status", "created", "id")[:50]
    )
    webhooks = list(bot.webhooks.order_by("id"))
    deliveries = list(Delivery.objects.filter(webhook__bot=bot).select_related("event", "webhook").order_by("-id")[:30])
    return render(
        request,
        "pages/manage_bot.html",
        {
            "webhooks": webhooks,
            "deliveries": deliveries,
            "event_kinds": EventKind.choices,
            "open_tournaments": open_tournaments,
            "upcoming": upcoming,
            "bot": bot,
            "tokens": list(bot.tokens.all()),
            "versions": list(bot.versions.order_by("-number")),
            "opponents": opponents,
            "challenges_left": left,
            "resets_at": resets_at,
        },
    )


@login_required
@require_POST
def bot_action(request: HttpRequest, bot_id: int, verb: str) -> HttpResponse:
    """Performs an author action from the manage page: rotate/revoke tokens, new version, toggle, challenge."""
    bot = _own_bot(request, bot_id)
    try:
        if verb == "rotate-token":
            token = bot_services.do_issue_token(bot, revoke_others=True)
            return token_page(request, bot, token.token, created=False)
        if verb == "revoke-tokens":
            n = bot_services.do_revoke_all_tokens(bot)
            messages.info(request, f"Revoked {n} token(s).")
        elif verb == "new-version":
            v = bot_services.do_create_version(bot, notes=request.POST.get("notes", "")[:200])
            messages.info(request, f"Created version {v.number}.")
        elif verb == "add-webhook":
            hook = notify.do_create_webhook(bot, request.POST.get("url", ""), request.POST.getlist("events"))
            messages.info(request, f"Webhook added; sign-check its deliveries with the secret shown (id {hook.pk}).")
        elif verb == "delete-webhook":
            raw = request.POST.get("webhook", "")
            hook = get_object_or_404(Webhook, pk=int(raw) if raw.isdigit() else 0, bot=bot)
            notify.do_delete_webhook(hook)
            messages.info(request, "Webhook removed.")
        elif verb == "toggle-active":
            bot_services.do_update_bot(bot, active=not bot.active)
        elif verb == "toggle-plays-people":
            bot_services.do_update_bot(bot, plays_people=not bot.plays_people)
        elif verb == "challenge":
            opponent = get_object_or_404(
                Bot.objects.select_related("latest_version"), pk=int(request.POST.get("opponent", 0))
            )
            match = match_services.do_request_challenge(signed_in_user(request), bot, opponent)
            return redirect("match", match_id=match.pk)
        else:
            raise Http404(f"unknown action {verb!r}")
    except APIException as exc:
        messages.error(request, str(exc.detail))
    return redirect("manage-bot", bot_id=bot.pk)


@login_required
def my_matches(request: HttpRequest) -> HttpResponse:
    """Matches of the author's bots with everything the referee recorded about each seat."""
    params = {k: request.GET.get(k, "") for k in ("game", "status", "rated")}
    query = {k: v for k, v in params.items() if v}
    query["owner"] = request.user.username
    qs = filter_matches(match_queryset(), query).order_by("-created", "-id")
    page = Paginator(qs, 25).get_page(request.GET.get("page"))
    return render(request, "pages/my_matches.html", {"page": page, "params": params, "statuses": MatchStatus.values})


@login_required
def my_replays_zip(request: HttpRequest) -> HttpResponse:
    """A zip of the replays of the author's finished matches (newest 500, or the ``ids`` given)."""
    # Only replays whose secrets are revealed: a replay staged while the match (or a mirrored twin)
    # still runs holds the seed.
    qs = with_secrets_state(
        Match.objects.filter(
            Q(replay_gz__isnull=False) | ~Q(replay_path=""),
            seats__bot_version__bot__owner=signed_in_user(request),
        ).distinct()
    ).filter(secrets_open=True)  # type: ignore[misc]  # with_secrets_state's annotation: the plugin sees no further
    if request.GET.get("game"):
        qs = qs.filter(game=request.GET["game"])
    if request.GET.get("ids"):
        ids = [query_id(x, "ids") for x in request.GET["ids"].split(",")[:MAX_ZIP_IDS] if x.strip()]
        qs = qs.filter(pk__in=cast(list[int], ids))  # a non-blank id parses to an int or raises
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for m in qs.order_by("-id")[:500].iterator(chunk_size=50):
            raw = m.replay_bytes()
            if raw is not None:
                archive.writestr(f"{m.game}/match-{m.pk}.json", raw)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="replays.zip"'
    return response
