"""Refreshing the cached pieces of pages that a result changes, in a worker, so that readers do not rebuild them.

A recorded result changes its game's leaderboard (the first page and the ratings API of the game,
when it is rated) and the pages of its bots (profile, head to head, first page of matches). Their
cached pieces are stamped with the state they were computed from (``webapp.cache.read_through``),
so without a refresh the first reader after the result would find them out of date and rebuild
them, at a cost far above a warm request's. Instead, once the result is committed:

1. ``webapp.results.after_commit`` calls :func:`request_refresh` once the result has committed.
   It sets, per scope (the game, each bot), a stale marker naming the scope's stamp from just
   before the result (``webapp.cache.stale_marker_key``; it lives ``BRAWL_PAGE_STALE_SECONDS``)
   and a queued marker; a scope whose queued marker was already set has its refresh coming, so
   many results within ``BRAWL_PAGE_REFRESH_DELAY`` share one.
2. The task ``workers.tasks.refresh_pages(game, bot_ids)`` runs ``BRAWL_PAGE_REFRESH_DELAY`` later
   and calls :func:`refresh`: it clears the queued markers first (a result committed from then on
   queues another refresh), then computes each piece read lately (stored in the cache: most bots'
   pages are read rarely, and computing them for nobody would cost the workers more than it saves)
   at the current state and stores it unless a newer one is there (``webapp.cache.store_if_newer``:
   two refreshes, or a refresh and a reader, never leave the older state behind).
3. Meanwhile a reader gets the stored piece if a stale marker names its stamp: the first result it
   misses, and so every one, is less than ``BRAWL_PAGE_STALE_SECONDS`` old (5 s by default).
   Without such a marker (no refresh queued, a piece older than that, results recorded at the
   same moment whose stamps interleave) it builds the piece itself, as before.

Sent only with ``BRAWL_DISPATCH=celery`` (by name, through ``webapp.tasks_out``): without workers
nothing is marked, and every reader sees every result at once. The task is safe to run twice and
late. This module is not the read models (``webapp.rankings.views_pages``, ``webapp.rankings.views``).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.core.cache.utils import make_template_fragment_key
from django.db.models import Subquery
from django.template.loader import render_to_string

from common.brokerconf import FOLLOWUPS
from webapp import tasks_out
from webapp.bots.models import Bot
from webapp.cache import (
    LOCK_SECONDS,
    PAGE_CACHE_SECONDS,
    Stamp,
    at_least,
    bots_generation,
    is_behind,
    mark_stale,
    queued_marker_key,
    store_if_newer,
    stored_stamp,
)
from webapp.matches.models import MatchSeat
from webapp.pages.views import bot_matches_page, first_matches_key
from webapp.rankings import views_pages
from webapp.rankings.models import RatingHistory
from webapp.rankings.stamps import bot_scope, game_scope, leaderboard_stamp, profile_stamp
from webapp.rankings.views import ratings_body, ratings_key, ratings_query

log = logging.getLogger(__name__)

REFRESH_TASK = "workers.tasks.refresh_pages"
"""The worker task that calls :func:`refresh`."""
QUEUED_SECONDS = 60
"""How long a queued marker lives: a refresh lost on the way (a broker outage) stops holding back others after this."""
MATCH_ROWS_FRAGMENT = "match-rows"
"""The template fragment of a page of match rows (``{% cache 300 match-rows rows_key %}``)."""


def enabled() -> bool:
    """Whether results ask the workers to refresh the pages (``BRAWL_DISPATCH=celery``)."""
    return getattr(settings, "BRAWL_DISPATCH", "none") == "celery"


def scope_floors(match_id: int) -> tuple[str, list[int], dict[str, Stamp]]:
    """The game and bots of a recorded match, and the stamp of each scope it changed from just before it.

    Two queries. The game's scope only when the match is rated (it wrote rating-history rows): the
    game's newest history row older than the match's first. A bot's: its revision less this
    result's one step. Results of the same scope committed at the same moment may give a stamp no
    piece was computed at; the marker then serves nothing.
    """
    seats = list(
        MatchSeat.objects.filter(match_id=match_id).values_list(
            "match__game",
            "match__rated",
            "bot_version__bot_id",
            "bot_version__bot__stats__revision",
            "bot_version__bot__latest_version_id",
        )
    )
    if not seats:
        return "", [], {}
    game, rated = seats[0][0], seats[0][1]
    generation = bots_generation()
    floors: dict[str, Stamp] = {}
    if rated:
        first = RatingHistory.objects.filter(match_id=match_id).order_by("id").values("id")[:1]
        before = (
            RatingHistory.objects.filter(game=game, id__lt=Subquery(first))
            .order_by("-id")
            .values_list("id", flat=True)
            .first()
        )
        floors[game_scope(game)] = (before or 0, generation)
    for _, _, bot_id, revision, latest in seats:
        floors[bot_scope(bot_id)] = (max(0, (revision or 0) - 1), latest or 0, generation)
    return game, sorted({seat[2] for seat in seats}), floors


def request_refresh(match_id: int) -> None:
    """Marks the scopes recorded match ``match_id`` changed and queues one refresh for those not queued yet.

    Runs after the recording transaction commits; a failure here is logged, never raised (the
    readers then rebuild the pieces themselves).
    """
    queued: list[str] = []
    try:
        game, bot_ids, floors = scope_floors(match_id)
        stale_seconds = max(0.0, settings.BRAWL_PAGE_STALE_SECONDS)
        for scope, floor in floors.items():
            mark_stale(scope, floor, stale_seconds)  # the first result from it sets its end
            if cache.add(queued_marker_key(scope), 1, timeout=QUEUED_SECONDS):
                queued.append(scope)
        if not queued:
            return
        refresh_game = game if game_scope(game) in queued else None
        refresh_bots = [b for b in bot_ids if bot_scope(b) in queued]
        tasks_out.send_task(
            REFRESH_TASK,
            args=[refresh_game, refresh_bots],
            countdown=max(0.0, settings.BRAWL_PAGE_REFRESH_DELAY),
            queue=FOLLOWUPS,
        )
    except Exception:  # the result is committed whatever fails here: only its refresh is lost
        log.exception("page refresh not queued", extra={"match_id": match_id})
        if queued:  # the next result of these scopes queues their refresh again
            cache.delete_many([queued_marker_key(s) for s in queued])


def refresh_leaderboard(game: str) -> int:
    """Stores ``game``'s first leaderboard page (active bots) and its ratings API answer at the current state.

    Only the pieces read lately (stored, and older than the current state): nobody waits for the
    others, whose first reader builds them. Returns how many pieces were computed.
    """
    stamp = leaderboard_stamp(game)
    computed = 0
    key = views_pages.leaderboard_key(game, True, 1)
    if is_behind(key, stamp):
        store_if_newer(key, stamp, views_pages.compute_leaderboard_page(game, True, 1), wait=LOCK_SECONDS)
        computed += 1
    query = ratings_query({"game": game})
    key = ratings_key(query)
    if is_behind(key, stamp):
        store_if_newer(key, stamp, ratings_body(query), wait=LOCK_SECONDS)
        computed += 1
    return computed


def refresh_bot(bot_id: int) -> int:
    """Stores bot ``bot_id``'s profile at its current state, and renders its first page of matches (as
    a visitor sees it) into the match-rows fragment; returns how many pieces were computed.

    Only for a page read lately (its profile stored): most bots' pages are read rarely, and their
    first reader builds them.
    """
    bot = Bot.objects.select_related("owner", "latest_version", "stats").filter(pk=bot_id).first()
    if bot is None:
        return 0
    stamp = profile_stamp(bot, views_pages.bot_stats(bot))
    key = views_pages.profile_key(bot.pk)
    stored = stored_stamp(key)
    if stored is None:
        return 0
    computed = 0
    if not at_least(stored, stamp):
        store_if_newer(key, stamp, views_pages.compute_profile(bot), wait=LOCK_SECONDS)
        computed += 1
    page, rows_key = bot_matches_page(AnonymousUser(), bot.pk, {}, None)
    fragment = make_template_fragment_key(MATCH_ROWS_FRAGMENT, [rows_key])
    html = cache.get(fragment)
    if html is None:
        # The rows show nothing that changes without their ids or statuses changing (the key), so
        # any process may render them; the page's {% cache %} tag then finds them.
        html = render_to_string("includes/match_rows.html", {"page": page})
        cache.set(fragment, html, PAGE_CACHE_SECONDS)
        computed += 1
    # Kept with the profile's stamp, for visitors given this profile while the next refresh is on its way.
    rows = {"html": html, "next": page.next_cursor, "previous": page.previous_cursor}
    store_if_newer(first_matches_key(bot.pk), stamp, rows, wait=LOCK_SECONDS)
    return computed


def refresh(game: str | None, bot_ids: list[int]) -> dict[str, int]:
    """Refreshes ``game``'s leaderboard pieces (if given) and the pages of ``bot_ids``; the task's body.

    Clears the queued markers first, so a result committed while this runs queues a refresh of its
    own. Returns the pieces computed per kind.
    """
    scopes = ([game_scope(game)] if game else []) + [bot_scope(b) for b in bot_ids]
    cache.delete_many([queued_marker_key(s) for s in scopes])
    report = {"leaderboard": 0, "bots": 0}
    if game:
        report["leaderboard"] = refresh_leaderboard(game)
    for bot_id in bot_ids:
        report["bots"] += refresh_bot(bot_id)
    return report
