"""``brawl worker``: a Celery worker, optionally with beat.

The worker reads ``DATABASE_URL``, ``REDIS_URL`` and ``BRAWL_REFEREES`` from the environment (see
``workers.celery``). Run beat in exactly one process of a deployment (``--beat``).
"""

from __future__ import annotations

import argparse
import os
import sys

# Not imported from ``workers.celery``: building the ``brawl`` parser must not load the Celery
# app (which sets the dispatch defaults) in every command.
SCHEDULING = "scheduling"
RECORDING = "recording"
FOLLOWUPS = "followups"


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl worker``."""
    worker = subparsers.add_parser("worker", help="run a Celery worker for the ladder and tournaments")
    worker.add_argument(
        "--queues",
        default=f"{SCHEDULING},{RECORDING},{FOLLOWUPS}",
        help=f"comma-separated queues to consume (default {SCHEDULING},{RECORDING},{FOLLOWUPS})",
    )
    worker.add_argument("--concurrency", type=int, default=2, help="task processes (default 2)")
    worker.add_argument(
        "--pool", default="prefork", choices=["prefork", "solo", "threads"], help="execution pool (default prefork)"
    )
    worker.add_argument("--beat", action="store_true", help="also run the periodic scheduler (one per deployment)")
    worker.add_argument("--hostname", default="", help="worker node name (default celery's)")
    worker.add_argument("--loglevel", default="INFO")
    worker.set_defaults(func=cmd_worker)


def worker_argv(args: argparse.Namespace) -> list[str]:
    """Returns the ``celery worker`` arguments for the parsed options."""
    argv = [
        "worker",
        f"--queues={args.queues}",
        f"--concurrency={args.concurrency}",
        f"--pool={args.pool}",
        f"--loglevel={args.loglevel}",
        "--without-gossip",
        "--without-mingle",
    ]
    if args.beat:
        from common.settings import var_dir

        var = var_dir()
        var.mkdir(parents=True, exist_ok=True)
        argv += ["--beat", f"--schedule-filename={var / 'celerybeat-schedule'}"]
    if args.hostname:
        argv.append(f"--hostname={args.hostname}")
    return argv


def cmd_worker(args: argparse.Namespace) -> int:
    """Runs the worker until SIGTERM (warm shutdown) or SIGQUIT."""
    # A worker is part of a Celery deployment: the matches it queues (ladder rounds, a tournament's
    # next games) go to ``start_match`` once committed, unless the environment says otherwise.
    # Set before the app (and with it Django's settings) is loaded.
    # (``BRAWL_RUN_MATCH_TASK`` already defaults to ``workers.tasks.start_match`` in the settings.)
    os.environ.setdefault("BRAWL_DISPATCH", "celery")
    # Every call a worker makes to a referee needs the internal API's credential: a production
    # worker without it fails now, with the reason, not on its first ladder round.
    from common.credential import InternalTokenError, internal_token

    try:
        internal_token()
    except InternalTokenError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from workers.celery import app

    app.worker_main(argv=worker_argv(args))
    return 0
