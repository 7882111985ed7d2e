"""Latency of the web app's heaviest read pages and their API twins, on a seeded database.

Times Django in process (test client: routing, views, templates or serializers, and the database
round trips; no network and no HTTP server), ``--runs`` requests per URL after three warm-ups,
and prints p50/p99 in milliseconds plus the query count of one request, beside a floor measured in
the same run: a bare DRF view answering one ``.values()`` query of the bot's 50 latest matches (the
least any matches page or API must do). Seed first:

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/brawl_bench python -m django migrate --settings=webapp.settings
    DATABASE_URL=... python -m django seed_ladder --bots 1000 --matches 100000 --settings=webapp.settings
    DATABASE_URL=... python bench/bench_web.py [--runs 50] [--out test-output/bench_web.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    """Returns the ``q`` quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def floor(bot_id: int, runs: int) -> dict[str, object]:
    """Times the floor: a DRF view, no serializer, one ``.values()`` query of the bot's 50 latest matches."""
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
    for _ in range(3):
        view(factory.get("/floor/")).render()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        response = view(factory.get("/floor/"))
        response.render()
        times.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 200
    return {
        "url": "(in-process DRF view)",
        "p50_ms": round(statistics.median(times), 1),
        "p99_ms": round(percentile(times, 0.99), 1),
        "queries": 1,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("test-output/bench_web.json"))
    args = parser.parse_args(argv)

    # Benchmarks measure the pages, not the rate limits.
    os.environ.setdefault("BRAWL_THROTTLE_ANON", "100000000/hour")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DEBUG", "false")
    import django

    django.setup()
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from webapp.bots.models import Bot
    from webapp.matches.models import Match
    from webapp.rankings.models import Rating

    game = "superfantasybrawl"
    top = Rating.objects.filter(game=game).order_by("-games").select_related("bot_version").first()
    match = Match.objects.filter(game=game).order_by("-id").first()
    if top is None or match is None:
        print("the database has no ratings or matches; run seed_ladder first", file=sys.stderr)
        return 1
    bot_id = top.bot_version.bot_id
    urls = {
        "leaderboard page": f"/games/{game}/",
        "leaderboard API": f"/api/v1/ratings/?game={game}",
        "bot page": f"/bots/{bot_id}/",
        "bot API": f"/api/v1/bots/{bot_id}/",
        "bot matches API": f"/api/v1/matches/?bot={bot_id}",
        "match page": f"/matches/{match.pk}/",
        "match API": f"/api/v1/matches/{match.pk}/",
    }
    client = Client()
    results = {"DRF .values() floor": floor(bot_id, args.runs)}
    print(
        f"{'DRF .values() floor':<18} p50 {results['DRF .values() floor']['p50_ms']:>7.1f} ms   "
        f"p99 {results['DRF .values() floor']['p99_ms']:>7.1f} ms   1 query"
    )
    floor_p99 = max(0.1, float(results["DRF .values() floor"]["p99_ms"]))  # type: ignore[arg-type]
    for name, url in urls.items():
        for _ in range(3):
            assert client.get(url).status_code == 200, url
        reset_queries()
        with CaptureQueriesContext(connection) as ctx:
            client.get(url)
        # Read now: captured_queries slices the live log, which each later request resets.
        queries = len(ctx.captured_queries)
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - t0) * 1000)
            assert response.status_code == 200, url
        results[name] = {
            "url": url,
            "p50_ms": round(statistics.median(times), 1),
            "p99_ms": round(percentile(times, 0.99), 1),
            "queries": queries,
        }
        print(
            f"{name:<18} p50 {results[name]['p50_ms']:>7.1f} ms   p99 {results[name]['p99_ms']:>7.1f} ms   "
            f"{results[name]['queries']} queries   {url}   ({results[name]['p99_ms'] / floor_p99:.0f}x the floor's p99)"
        )
    dataset = {"bots": Bot.objects.count(), "matches": Match.objects.count(), "runs": args.runs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"dataset": dataset, "results": results}, indent=1))
    print(f"dataset: {dataset}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
