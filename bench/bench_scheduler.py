"""Benchmark: how many matches per minute the ladder's scheduler and recorder sustain with instant bots.

Runs the real stack (ladder referee, a bot farm of instant Super Fantasy Brawl bots, Celery
workers with beat on Redis, a PostgreSQL database created for the run and dropped after) and
reports three figures:

1. **End to end**: rated matches recorded per minute while the beat pairs every online bot
   (``--bots`` bots, ``--seats`` seats each, ``--seconds`` of steady state after a warm-up).
   This includes playing the matches, so it is bounded by the engine and the machine's cores.
2. **Recorder alone**: ``record_match`` throughput over ``--records`` staged results (real
   replays from phase 1 staged on fresh running matches), from enqueue to the last commit.
3. **Scheduler alone**: the time of one ``schedule_ladder_round`` (presence from the referee,
   matchmaking, queueing) and how many matches it queues, in-process.

Run ``python -m bench.bench_scheduler`` with ``DATABASE_URL`` (PostgreSQL; a database
``brawl_bench_<pid>`` is created on that server) and ``REDIS_URL`` (database 14 is used and flushed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

POLICIES = ["tests.workers.bots:Heuristic", "tests.workers.bots:Mixed", "tests.workers.bots:Random"]


def _with_path(url: str, path: str) -> str:
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, path, "", ""))


def main(argv: list[str] | None = None) -> int:
    """Runs the benchmark and prints the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=8, help="instant bots online (default 8)")
    parser.add_argument("--seats", type=int, default=4, help="matches each bot plays at once (default 4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="steady-state window of phase 1 (default 60)")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--records", type=int, default=200, help="staged results recorded in phase 2 (default 200)")
    args = parser.parse_args(argv)

    db_url = os.environ.get("DATABASE_URL", "")
    redis_base = os.environ.get("REDIS_URL", "")
    if not db_url.startswith("postgres") or not redis_base:
        print("bench_scheduler needs DATABASE_URL (PostgreSQL) and REDIS_URL; not run")
        return 0
    import psycopg

    name = f"brawl_bench_{os.getpid()}"
    admin = psycopg.connect(db_url, autocommit=True)
    admin.execute(f'CREATE DATABASE "{name}"')
    bench_db = _with_path(db_url, f"/{name}")
    redis_url = _with_path(redis_base, "/14")
    os.environ.update(
        {
            "DATABASE_URL": bench_db,
            "REDIS_URL": redis_url,
            "DJANGO_SETTINGS_MODULE": "webapp.settings",
            "BRAWL_DISPATCH": "celery",
            "BRAWL_RUN_MATCH_TASK": "workers.tasks.start_match",
        }
    )
    try:
        return run(args, bench_db, redis_url)
    finally:
        from django.db import connections

        for conn in connections.all():
            conn.close()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def run(args: argparse.Namespace, bench_db: str, redis_url: str) -> int:
    """Phases 1 to 3 against the bench database; prints the figures."""
    import django
    import redis

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    redis.Redis.from_url(redis_url).flushdb()

    from referee.core.replay import Replay
    from tests.workers.stack import Stack, wait_until
    from webapp.bots import services as bot_services
    from webapp.matches import services as match_services
    from webapp.matches.models import Match, MatchStatus
    from workers.celery import app

    game = "superfantasybrawl"
    owner = User.objects.create_user("bench")
    entries = []
    for i in range(args.bots):
        _bot, issued = bot_services.do_create_bot(owner, game, f"bench{i}", is_house=True)
        entries.append({"bot": POLICIES[i % len(POLICIES)], "token": issued.token, "max_matches": args.seats})
    tmp = tempfile.mkdtemp(prefix="bench-scheduler-")
    ok = False
    stack = Stack(
        Path(tmp),
        {
            "DATABASE_URL": bench_db,
            "REDIS_URL": redis_url,
            "BRAWL_LADDER_GAMES": game,
            "BRAWL_LADDER_INTERVAL": "1",
            "BRAWL_REMATCH_PATIENCE": "1",
            "LOG_LEVEL": "WARNING",
        },
    )
    try:
        stack.start_referee()
        stack.start_bots(entries)

        # Phase 1: end to end.
        stack.start_worker("worker", concurrency=args.concurrency, beat=True)

        def recorded() -> int:
            return Match.objects.filter(status=MatchStatus.FINISHED).count()

        warm = time.monotonic() + 10
        wait_until(lambda: time.monotonic() > warm, 30, "warm-up")
        n0, t0 = recorded(), time.monotonic()
        time.sleep(args.seconds)
        n1, t1 = recorded(), time.monotonic()
        per_min = (n1 - n0) / (t1 - t0) * 60
        decisions = [
            len(Replay.loads(m.replay_bytes() or b"").decisions)
            for m in Match.objects.filter(status=MatchStatus.FINISHED).order_by("-id")[:20]
        ]
        print(
            f"end to end: {n1 - n0} matches recorded in {t1 - t0:.0f} s = {per_min:.0f} matches/min "
            f"({args.bots} instant bots x {args.seats} seats, {args.concurrency} worker processes + beat, "
            f"~{sum(decisions) / max(1, len(decisions)):.0f} decisions/match)"
        )
        stack.terminate("worker")
        # Drain: no more ladder rounds, but the reaper keeps sweeping.
        stack.env["BRAWL_LADDER_GAMES"] = "scrumbrawl"
        stack.start_worker("drain", concurrency=args.concurrency, beat=True)
        wait_until(
            lambda: not Match.objects.filter(status__in=[MatchStatus.RUNNING, MatchStatus.QUEUED]).exists(),
            120,
            "in-flight matches to be recorded",
        )

        # Phase 2: the recorder alone, on real replays staged on fresh running matches.
        sources = list(Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[: args.records])
        staged = []
        from django.test.utils import override_settings

        with override_settings(BRAWL_DISPATCH="none"):
            for i in range(args.records):
                src = sources[i % len(sources)]
                versions = [s.bot_version for s in src.seats.select_related("bot_version").order_by("seat")]
                m = match_services.do_queue_match(game, versions, rated=True, seed=src.seed)
                match_services.do_start_match(m.pk, stack.referee_address)
                match_services.do_stage_result(m.pk, src.replay_stored() or b"")
                staged.append(m.pk)
        t0 = time.monotonic()
        for pk in staged:
            app.send_task("workers.tasks.record_match", args=[pk])
        wait_until(
            lambda: Match.objects.filter(pk__in=staged, status=MatchStatus.FINISHED).count() == len(staged),
            300,
            "the staged results to be recorded",
        )
        dt = time.monotonic() - t0
        print(
            f"recorder alone: {len(staged)} results recorded in {dt:.1f} s = {len(staged) / dt * 60:.0f} "
            f"records/min ({args.concurrency} worker processes; replay, seats, Elo and Glicko-2, history)"
        )
        stack.terminate("drain")

        # Phase 3: one scheduling round, in-process, with every bot online and idle.
        from workers.scheduling import schedule_round

        os.environ["BRAWL_REFEREES"] = stack.referee_address

        times, queued = [], []
        with override_settings(BRAWL_DISPATCH="none"):
            for i in range(5):
                t0 = time.monotonic()
                report = schedule_round(game, f"bench-{i}")
                times.append(time.monotonic() - t0)
                queued.append(len(report.queued))
                for pk in report.queued:
                    match_services.do_cancel_match(pk, "benchmark round, not played")
        best = min(times)
        print(
            f"scheduler alone: one ladder round takes {best * 1000:.0f} ms (best of 5) and queues "
            f"{max(queued)} matches for {args.bots} bots x {args.seats} seats: "
            f"at most {max(queued) / best * 60:.0f} matches/min from one scheduling process"
        )
        ok = True
    finally:
        stack.stop()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"logs kept in {tmp}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
