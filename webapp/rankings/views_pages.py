"""The expensive parts of the leaderboard page and the bot page, read from precomputed rows and cached.

Each is one cache entry holding its value and the stamp of the data it was computed from, read
before the data (``webapp.cache.read_through``, ``webapp.rankings.stamps``): a request whose stamp
is newer computes the piece afresh, unless a worker is refreshing it after a result
(``webapp.pages.refresh``), in which case the stored piece is served for at most
``BRAWL_PAGE_STALE_SECONDS``. Nothing has to be deleted.

**Leaderboard**: the rendered rows of one page with their trend lines, and the chart of the
leaders, stamped with the game's highest rating-history id (every rated result, and a recompute,
writes new history rows) and the bots generation (a bot's activity, name or new version). The
history queries and the rendering of 50 rows run once per rated result, not once per request.

**Bot page**: the head to head comes from ``BotOpponentStats`` (kept by ``matches.stats`` as results are recorded)
and the whole profile, its head-to-head rows and opponent options rendered, is stamped with the
bot's state: its ``BotStats.revision`` (which every recorded result of the bot raises, in the
transaction that records it), its latest version and the bots generation (``webapp.cache``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.db import connection
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.template.loader import render_to_string

from ladder import plackett_luce as pl
from ladder.glicko2 import Glicko2Rating, conservative, win_chance
from referee.core.registry import get_game
from webapp.bots.models import Bot, BotOpponentStats, BotSeatStats, BotStats
from webapp.cache import at_least, read_through
from webapp.rankings.models import Rating, RatingHistory
from webapp.rankings.stamps import bot_scope, game_scope, leaderboard_stamp, profile_stamp
from webapp.rankings.views import PROVISIONAL_GAMES, leaderboard

CHART_POINTS = 1000
"""Rating changes drawn on the bot's chart (the latest)."""


def profile_key(bot_id: int) -> str:
    """The cache key of bot ``bot_id``'s profile (one entry, stamped: ``webapp.cache.read_through``)."""
    return f"bot-profile:v3:{bot_id}"


def bot_stats(bot: Bot) -> BotStats | None:
    """The bot's counts, or ``None`` before its first finished match (from ``select_related("stats")`` if done)."""
    try:
        return bot.stats
    except BotStats.DoesNotExist:
        return None


def head_to_head(bot: Bot) -> list[dict[str, Any]]:
    """The bot's wins, draws and losses against each opponent, most played first, in one query."""
    rows = BotOpponentStats.objects.filter(bot=bot).values_list(
        "opponent_id", "opponent__name", "wins", "draws", "losses"
    )
    table = [{"bot_id": o, "name": name, "w": w, "d": d, "l": lo} for o, name, w, d, lo in rows]
    return sorted(table, key=lambda r: (-(r["w"] + r["l"] + r["d"]), r["name"]))


H2H_ROWS = 20
"""Opponents shown in a bot page's head to head (``includes/bot_h2h_rows.html`` shows as many)."""


def latest_glicko(game: str, bot_ids: list[int]) -> dict[int, Glicko2Rating]:
    """The Glicko-2 state of each bot's latest version in ``game``, for those that have one, in one query."""
    rows = Rating.objects.filter(
        game=game, bot_version__bot_id__in=bot_ids, bot_version=F("bot_version__bot__latest_version")
    ).values_list("bot_version__bot_id", "glicko_rating", "glicko_rd", "glicko_volatility")
    return {b: Glicko2Rating(r, rd, vol) for b, r, rd, vol in rows}


def add_chances(bot: Bot, rows: list[dict[str, Any]]) -> None:
    """Sets each head-to-head row's ``chance``: the bot's latest version's chance to beat the opponent's (in %).

    Glickman's predicted outcome (``ladder.glicko2.win_chance``) from both latest versions' ratings:
    the chance to win a duel, or to finish ahead of that opponent at a pod. ``None`` where either
    has no rating yet.
    """
    ratings = latest_glicko(bot.game, [bot.pk, *(r["bot_id"] for r in rows)])
    mine = ratings.get(bot.pk)
    for row in rows:
        theirs = ratings.get(row["bot_id"])
        row["chance"] = None if mine is None or theirs is None else round(100 * win_chance(mine, theirs))


def pod_chances(bot: Bot) -> list[dict[str, Any]]:
    """For each table size above two that the game's ladder seats, the bot's chance to finish first at a
    table with the leaderboard's best other bots (in %), from the OpenSkill skills (``plackett_luce.first_chances``:
    the Plackett-Luce model is that of who finishes first). Empty for duel games and unrated bots."""
    try:
        sizes = sorted(n for n in get_game(bot.game).info.table_sizes if n > 2)
    except LookupError:  # a game no longer installed: its bots' pages still show
        return []
    if not sizes:
        return []
    mine = Rating.objects.filter(game=bot.game, bot_version=F("bot_version__bot__latest_version"), bot_version__bot=bot)
    own = mine.values_list("skill_mu", "skill_sigma").first()
    if own is None:
        return []
    top = list(leaderboard(bot.game).exclude(bot_version__bot=bot)[: sizes[-1] - 1])
    out = []
    for n in sizes:
        others = top[: n - 1]
        if len(others) < n - 1:
            continue
        skills = [pl.Skill(*own), *(pl.Skill(r.skill_mu, r.skill_sigma) for r in others)]
        out.append(
            {
                "seats": n,
                "opponents": [{"bot_id": r.bot_version.bot_id, "name": r.bot_version.bot.name} for r in others],
                "chance": round(100 * pl.first_chances(skills)[0]),
            }
        )
    return out


def seat_records(bot: Bot) -> list[dict[str, Any]]:
    """The bot's results per table size and seat (``BotSeatStats``), smallest tables first, in one query."""
    tables: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for n, seat, g, w, d, lo in (
        BotSeatStats.objects.filter(bot=bot, games__gt=0)
        .order_by("table_size", "seat")
        .values_list("table_size", "seat", "games", "wins", "draws", "losses")
    ):
        tables[n].append({"seat": seat, "number": seat + 1, "games": g, "w": w, "d": d, "l": lo})
    return [
        {
            "size": n,
            "seats": rows,
            "games": sum(r["games"] for r in rows),
            "w": sum(r["w"] for r in rows),
            "d": sum(r["d"] for r in rows),
            "l": sum(r["l"] for r in rows),
        }
        for n, rows in sorted(tables.items())
    ]


def compute_profile(bot: Bot) -> dict[str, Any]:
    """Ratings per version, the rating chart, the peak and the head to head of ``bot``, uncached.

    The head to head comes as data (``h2h``) and rendered: its rows (``h2h_html``) and the options
    of the page's opponent filter with none chosen (``opponent_options``).
    """
    ratings = list(
        Rating.objects.filter(bot_version__bot=bot).select_related("bot_version").order_by("-bot_version__number")
    )
    history = list(
        RatingHistory.objects.filter(bot_version__bot=bot)
        .order_by("-id")
        .values_list("created", "glicko_after", "rd_after", "bot_version__number", "match_id")[:CHART_POINTS]
    )
    history.reverse()
    chart = [
        {
            "name": bot.name,
            "points": [
                [created.isoformat(), round(conservative(r, rd), 1), number, match_id]
                for created, r, rd, number, match_id in history
            ],
        }
    ]
    h2h = head_to_head(bot)
    add_chances(bot, h2h[:H2H_ROWS])
    pods = pod_chances(bot)
    by_seat = seat_records(bot)
    return {
        "ratings": ratings,
        "chart": chart,
        "peak": max(ratings, key=lambda r: r.peak_elo, default=None),
        "h2h": h2h,
        "pods": pods,
        "by_seat": by_seat,
        "h2h_html": render_to_string("includes/bot_h2h_rows.html", {"h2h": h2h}),
        "opponent_options": render_to_string(
            "includes/bot_opponent_options.html", {"h2h": h2h, "params": {"opponent": ""}}
        ),
    }


def bot_profile(bot: Bot) -> dict[str, Any]:
    """:func:`compute_profile` of ``bot``, from the cache while the bot's state is unchanged (or being refreshed).

    Adds ``stats`` (the bot's counts, as read now), ``stamp`` (the state of the profile given),
    ``stale`` (whether that is older than the bot's state now: a refresh is on its way) and ``key``
    (the bot and ``stamp``: templates key their cached fragments on it).
    """
    stats = bot_stats(bot)
    current = profile_stamp(bot, stats)
    profile, stamp = read_through(profile_key(bot.pk), current, lambda: compute_profile(bot), scope=bot_scope(bot.pk))
    return {
        **profile,
        "stats": stats,
        "stamp": stamp,
        "stale": not at_least(stamp, current),
        "key": f"{bot.pk}:{':'.join(map(str, stamp))}",
    }


LEADERBOARD_PAGE_SIZE = 50
"""Rows per leaderboard page."""
TREND_POINTS = 12
"""Rating history points in each leaderboard sparkline."""
CHART_BOTS = 8
"""Bots drawn on a leaderboard's rating chart."""
LEADER_CHART_POINTS = 200
"""History points per bot on a leaderboard chart."""


@dataclass(frozen=True)
class PageInfo:
    """What the pager template reads of a Django ``Page``, as plain values that cache well."""

    number: int
    """This page's number, from 1."""
    num_pages: int
    """How many pages there are."""

    @property
    def paginator(self) -> PageInfo:
        return self  # the template says page.paginator.num_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def has_other_pages(self) -> bool:
        return self.num_pages > 1

    def previous_page_number(self) -> int:
        return self.number - 1

    def next_page_number(self) -> int:
        return self.number + 1


def recent_history(version_ids: list[int], per_version: int, *, times: bool = True) -> dict[int, list[dict[str, Any]]]:
    """Returns the last ``per_version`` rating changes of each version, oldest first, in one query.

    On PostgreSQL a lateral join reads each version's last rows straight off the
    ``(bot_version, id)`` index, without a window over their whole history; elsewhere a window
    query does the same.
    """
    if not version_ids:
        return {}
    # Each row: its version, id, Glicko-2 rating and deviation after (the published rating is
    # ``glicko_after - 2 rd_after``: :func:`published_after`), and when it was recorded unless ``times``
    # is false (the trend lines need no time: 600 fewer timestamps to parse on a cold leaderboard page).
    columns: tuple[str, ...] = (
        "bot_version_id",
        "id",
        "glicko_after",
        "rd_after",
        *(("created",) if times else ()),
    )
    if connection.vendor == "postgresql":
        table = RatingHistory._meta.db_table
        sql = (
            f"SELECT {', '.join('h.' + c for c in columns)} FROM unnest(%s::bigint[]) AS v(version)"
            f" CROSS JOIN LATERAL (SELECT * FROM {table} WHERE bot_version_id = v.version"
            " ORDER BY id DESC LIMIT %s) AS h"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [list(version_ids), per_version])
            rows = [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]
    else:
        rows = list(
            RatingHistory.objects.filter(bot_version_id__in=version_ids)
            .annotate(n=Window(RowNumber(), partition_by=[F("bot_version_id")], order_by=[F("id").desc()]))
            .filter(n__lte=per_version)
            .values(*columns)
        )
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in sorted(rows, key=lambda r: r["id"]):
        out[r["bot_version_id"]].append(r)
    return out


def published_after(row: dict[str, Any]) -> float:
    """The published rating after the change ``row`` of :func:`recent_history`."""
    return conservative(row["glicko_after"], row["rd_after"])


def sparkline(points: list[float], width: int = 80, height: int = 18) -> str:
    """Returns the SVG polyline points of a small trend line."""
    if len(points) < 2:
        return ""
    lo, hi = min(points), max(points)
    span = (hi - lo) or 1.0
    step = width / (len(points) - 1)
    return " ".join(f"{i * step:.1f},{height - (p - lo) / span * (height - 2) - 1:.1f}" for i, p in enumerate(points))


def leaderboard_key(game: str, active: bool | None, page: int) -> str:
    """The cache key of one leaderboard page's pieces (one entry, stamped: ``webapp.cache.read_through``)."""
    return f"leaderboard:v3:{game}:{active}:{page}"


def compute_leaderboard_page(game: str, active: bool | None, page: int) -> dict[str, Any]:
    """One page of ``game``'s leaderboard, uncached: ``page`` (the pager), ``rows_html``, ``chart`` (its first rows).

    The rows, with their trend lines, are rendered here (``includes/leaderboard_rows.html``), so a
    cached page holds a string rather than 50 pickled ratings with their bots and authors.
    """
    paged = Paginator(leaderboard(game, active=active), LEADERBOARD_PAGE_SIZE).get_page(page)
    rows = list(paged.object_list)
    history = recent_history([r.bot_version_id for r in rows], TREND_POINTS, times=False)
    for r in rows:
        points = [published_after(h) for h in history.get(r.bot_version_id, [])]
        r.trend_points = sparkline(points)  # type: ignore[attr-defined]
        r.trend_delta = (points[-1] - points[0]) if len(points) >= 2 else 0.0  # type: ignore[attr-defined]
    leaders = rows[:CHART_BOTS]
    chart_history = recent_history([r.bot_version_id for r in leaders], LEADER_CHART_POINTS)
    chart = [
        {
            "name": r.bot_version.bot.name,
            "points": [
                [h["created"].isoformat(), round(published_after(h), 1)]
                for h in chart_history.get(r.bot_version_id, [])
            ],
        }
        for r in leaders
    ]
    rows_html = render_to_string(
        "includes/leaderboard_rows.html", {"rows": rows, "provisional_games": PROVISIONAL_GAMES}
    )
    return {"page": PageInfo(paged.number, paged.paginator.num_pages), "rows_html": rows_html, "chart": chart}


def leaderboard_page(game: str, active: bool | None, raw_page: str | None) -> dict[str, Any]:
    """:func:`compute_leaderboard_page` (``page``, ``rows_html``, ``chart``), cached while no rated result or bot
    changed, or while a worker refreshes it after one."""
    try:
        page = max(1, int(raw_page or 1))
    except ValueError:
        page = 1
    board, _ = read_through(
        leaderboard_key(game, active, page),
        leaderboard_stamp(game),
        lambda: compute_leaderboard_page(game, active, page),
        scope=game_scope(game),
    )
    return board
