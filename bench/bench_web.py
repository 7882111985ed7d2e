"""Latency of the web app's heaviest read pages and their API twins, on a seeded database.

Times Django in process (test client: routing, views, templates or serializers, and the database
round trips; no network and no HTTP server), ``--runs`` requests per URL after three warm-ups,
and prints p50/p99 in milliseconds plus the query count of one request, beside a floor measured in
the same run: a bare DRF view answering one ``.values()`` query of the bot's 50 latest matches (the
least any matches page or API must do). Floor requests alternate with each URL's requests, so both
see the same load, and each URL's p50 and p99 are given as multiples of the floor's from its own
turns. Seed first:

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/brawl_bench python -m django migrate --settings=webapp.settings
    DATABASE_URL=... python -m django seed_ladder --bots 1000 --matches 100000 --settings=webapp.settings
    DATABASE_URL=... python bench/bench_web.py [--runs 50] [--out test-output/bench_web.json]

Pages that cache pieces (the leaderboard, the bot page, the ratings API) are timed four ways: warm
(the same URL again: what readers see between two results), cold (the cache cleared before every
request, outside the timed part: the worst case), after a result (a rated result, of the timed
bot for its page, recorded through ``matches.services`` before every request, and the refresh a worker would then
run, ``webapp.pages.refresh``, run here to its end: what readers see once it has run) and stale
(the same result, its refresh queued but not run yet: what readers see in between; the refresh
runs after the timed request). Code without the refresh times the last two the same way: the
result recorded, nothing refreshed. Wall and CPU (``time.process_time``, this process only: not
the database's) milliseconds are both recorded. Before timing, the bench counts the per-bot
aggregates if the loader left them empty (``seed_ladder`` writes matches in bulk, not through the
services that keep them) and, on PostgreSQL, runs ``ANALYZE`` (a freshly loaded table has no
statistics and gets poor plans until autovacuum runs). The results it records stay in the
database: 6 x ``--runs`` matches per run, 2 x ``--runs`` of them the timed bot's (the bot page's
modes; the leaderboard's are random pairs'). For runs that start alike, copy a seeded database
(``createdb -T``) before each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    """Returns the ``q`` quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def floor_request(bot_id: int) -> Callable[[], float]:
    """Returns the floor as a function that times one request of it, in ms.

    The floor: a DRF view, no serializer, one ``.values()`` query of the bot's 50 latest matches.
    """
    from rest_framework.permissions import AllowAny
    from rest_framework.response import Response
    from rest_framework.test import APIRequestFactory
    from rest_framework.views import APIView

    from webapp.matches.models import Match

    class Floor(APIView):
        permission_classes = [AllowAny]  # noqa: RUF012
        authentication_classes = []  # noqa: RUF012
        throttle_classes = []  # noqa: RUF012

        def get(self, request: object) -> Response:
            rows = (
                Match.objects.filter(seats__bot_version__bot_id=bot_id)
                .order_by("-id")
                .values("id", "game", "status", "created", "finished_at")[:50]
            )
            return Response(list(rows))

    view = Floor.as_view()
    factory = APIRequestFactory()

    def one() -> float:
        t0 = time.perf_counter()
        response = view(factory.get("/floor/"))
        response.render()
        elapsed = (time.perf_counter() - t0) * 1000
        assert response.status_code == 200
        return elapsed

    for _ in range(3):
        one()
    return one


def paired(
    client: object,
    url: str,
    floor: Callable[[], float],
    runs: int,
    before: Callable[[], None] | None = None,
    after: Callable[[], None] | None = None,
) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds of ``runs`` GETs of ``url`` (wall and CPU) and of as many floor requests, taken in turns.

    On a shared machine the load changes from second to second; alternating the two puts both under
    the same load, so their ratio means more than either figure. ``before`` and ``after`` run
    untimed before and after each GET of ``url``.
    """
    times, cpu_times, floor_times = [], [], []
    for _ in range(runs):
        floor_times.append(floor())
        if before is not None:
            before()
        c0, t0 = time.process_time(), time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - t0) * 1000)
        cpu_times.append((time.process_time() - c0) * 1000)
        assert response.status_code == 200, url
        if after is not None:
            after()
    return times, cpu_times, floor_times


class Results:
    """Records rated results, as the recorder does, with or without the refresh.

    With ``bot_id`` every result is that bot's against a random opponent (for its page); without,
    a random pair's (for the leaderboard, so that the timed bot's matches, and with them the floor,
    do not grow with every mode). The web app sends the refresh task after each result's commit
    (``BRAWL_DISPATCH=celery``); here the task is caught where it is sent
    (``webapp.tasks_out.send_task``) and run in this process, at once (:meth:`refreshed`) or after
    the timed request (:meth:`stale`). Code older than the refresh sends none: both then time the
    request right after the result.
    """

    queued: list[list[object]] = []  # noqa: RUF012  (one queue, whichever instance recorded the result)

    def __init__(self, game: str, bot_id: int | None) -> None:
        import random

        from django.conf import settings

        from webapp import tasks_out
        from webapp.bots.models import Bot

        self.game, self.bot_id = game, bot_id
        self.rng = random.Random(14)
        self.opponents = list(
            Bot.objects.filter(game=game, latest_version__isnull=False).exclude(pk=bot_id).values_list("pk", flat=True)
        )
        settings.BRAWL_DISPATCH = "celery"
        tasks_out.send_task = Results._caught  # type: ignore[assignment]

    @staticmethod
    def _caught(name: str, args: list[object] | None = None, **options: object) -> None:
        if name == "workers.tasks.refresh_pages":
            Results.queued.append(list(args or []))

    def record(self) -> None:
        """A rated result of the bot (or of a random pair) against a random opponent, through the services."""
        from referee.core.ids import Seat
        from referee.core.registry import get_game
        from referee.core.replay import Recorder
        from webapp import results as recording
        from webapp.bots.models import Bot
        from webapp.matches import services

        pair = [self.bot_id] if self.bot_id is not None else [self.rng.choice(self.opponents)]
        pair.append(self.rng.choice([o for o in self.opponents if o != pair[0]]))
        bots = Bot.objects.select_related("latest_version").in_bulk(pair)
        versions = [b.latest_version for b in bots.values()]
        match = services.do_queue_match(self.game, versions, rated=True)  # type: ignore[arg-type]
        services.do_start_match(match.pk, "bench")
        rec = Recorder(get_game(self.game), match.config, match.seed, [f"seat{i}" for i in range(len(versions))])
        rec.forfeit([Seat(self.rng.randrange(len(versions)))], "bench result")
        recording.do_finish_match(match.pk, rec.finish())

    def run_queued(self) -> None:
        """Runs the refreshes sent so far, as the worker would."""
        if not self.queued:
            return
        from webapp.pages.refresh import refresh

        while self.queued:
            game, bot_ids = self.queued.pop(0)
            refresh(game, bot_ids)  # type: ignore[arg-type]

    def refreshed(self) -> None:
        """A result, then its refresh to the end."""
        self.record()
        self.run_queued()

    def stale(self) -> None:
        """A result, its refresh queued (run by :meth:`run_queued` after the timed request)."""
        self.record()


def deep_page(before_id: int) -> str:
    """The query of the matches API's fourth page of 50: a cursor, or ``page=4`` in code older than cursors."""
    try:
        from webapp.matches.pagination import Cursor
    except ImportError:
        return "page=4"
    return f"cursor={Cursor(True, before_id).encode()}"


def prepare() -> None:
    """Counts the per-bot aggregates when the loader left them empty, and gathers planner statistics."""
    from django.db import connection

    from webapp.matches.models import Match, MatchStatus

    try:  # absent from code older than the aggregates (to time it with this bench, for a before/after)
        from webapp.bots.models import BotStats
        from webapp.matches.stats import recount_bots
    except ImportError:
        BotStats = None
    if (
        BotStats is not None
        and not BotStats.objects.exists()
        and Match.objects.filter(status=MatchStatus.FINISHED).exists()
    ):
        t0 = time.perf_counter()
        rows = recount_bots()
        print(f"counted the aggregates of {rows} bots in {time.perf_counter() - t0:.1f} s")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("test-output/bench_web.json"))
    parser.add_argument("--game", default="superfantasybrawl", help="the leaderboard and bots to time")
    parser.add_argument("--only", nargs="*", default=[], help="time only the URLs whose name contains one of these")
    args = parser.parse_args(argv)

    # Benchmarks measure the pages, not the rate limits.
    os.environ.setdefault("BRAWL_THROTTLE_ANON", "100000000/hour")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DEBUG", "false")
    import django

    django.setup()
    from django.core.cache import cache
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from webapp.bots.models import Bot
    from webapp.matches.models import Match
    from webapp.rankings.models import Rating

    prepare()
    game = args.game
    top = Rating.objects.filter(game=game).order_by("-games").select_related("bot_version").first()
    match = Match.objects.filter(game=game).order_by("-id").first()
    if top is None or match is None:
        print("the database has no ratings or matches; run seed_ladder first", file=sys.stderr)
        return 1
    bot_id = top.bot_version.bot_id
    # A cursor three pages deep into the bot's matches (keyset pages cost the same at any depth).
    mine = Match.objects.filter(seats__bot_version__bot_id=bot_id).order_by("-id").values_list("id", flat=True)
    deep = mine[149] if mine.count() > 150 else mine.last()
    urls = {
        "leaderboard page": (f"/games/{game}/", True),
        "leaderboard API": (f"/api/v1/ratings/?game={game}", True),
        "bot page": (f"/bots/{bot_id}/", True),
        "bot API": (f"/api/v1/bots/{bot_id}/", False),
        "bot matches API": (f"/api/v1/matches/?bot={bot_id}", False),
        "bot matches, p4": (f"/api/v1/matches/?bot={bot_id}&{deep_page(int(deep or 1))}", False),
        "matches API": ("/api/v1/matches/", False),
        "matches page": ("/matches/", False),
        "match page": (f"/matches/{match.pk}/", False),
        "match API": (f"/api/v1/matches/{match.pk}/", False),
    }
    client = Client()
    floor = floor_request(bot_id)
    results: dict[str, dict[str, object]] = {}
    recorders = {"bot": Results(game, bot_id), "any": Results(game, None)}
    for name, (url, caches) in urls.items():
        if args.only and not any(word in name for word in args.only):
            continue
        for _ in range(3):
            assert client.get(url).status_code == 200, url
        reset_queries()
        with CaptureQueriesContext(connection) as ctx:
            client.get(url)
        # Read now: captured_queries slices the live log, which each later request resets.
        queries = len(ctx.captured_queries)
        runs = [(name, *paired(client, url, floor, args.runs))]
        if caches:
            runs.append((f"{name} (cold)", *paired(client, url, floor, args.runs, before=cache.clear)))
            recorder = recorders["bot" if name.startswith("bot") else "any"]
            recorder.run_queued()
            runs.append((f"{name} (after result)", *paired(client, url, floor, args.runs, before=recorder.refreshed)))
            runs.append(
                (
                    f"{name} (stale)",
                    *paired(client, url, floor, args.runs, before=recorder.stale, after=recorder.run_queued),
                )
            )
        for label, times, cpu_times, floor_times in runs:
            row: dict[str, object] = {
                "url": url,
                "p50_ms": round(statistics.median(times), 1),
                "p99_ms": round(percentile(times, 0.99), 1),
                "cpu_p50_ms": round(statistics.median(cpu_times), 1),
                "cpu_p99_ms": round(percentile(cpu_times, 0.99), 1),
                "queries": queries,
                "floor_p50_ms": round(statistics.median(floor_times), 1),
                "floor_p99_ms": round(percentile(floor_times, 0.99), 1),
                "p50_x_floor": round(statistics.median(times) / statistics.median(floor_times), 1),
                "p99_x_floor": round(percentile(times, 0.99) / percentile(floor_times, 0.99), 1),
            }
            results[label] = row
            print(
                f"{label:<31} p50 {row['p50_ms']:>6.1f} ms ({row['p50_x_floor']:>4}x floor {row['floor_p50_ms']:>4.1f})"
                f"   p99 {row['p99_ms']:>6.1f} ms ({row['p99_x_floor']:>4}x floor {row['floor_p99_ms']:>5.1f})"
                f"   cpu p50 {row['cpu_p50_ms']:>5.1f}   {queries} q   {url}"
            )
    dataset = {"bots": Bot.objects.count(), "matches": Match.objects.count(), "runs": args.runs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"dataset": dataset, "results": results}, indent=1))
    print(f"dataset: {dataset}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
