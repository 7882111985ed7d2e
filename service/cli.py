"""The ``brawl`` command line: one entry point whose subcommands live beside what they drive.

Each subcommand module exposes ``add_parser(subparsers)``, which registers its parser and sets
``func`` on it; ``func(args)`` returns the exit status. This module imports them all by name, so a
broken module fails loudly rather than hiding its subcommand, and the import contracts see every
arrow. It is also where the ladder referee is put together: ``brawl referee`` gets its ladder
mode's token store and result sink from :func:`service.refhost.ladder_stores`, since the referee
imports nothing of the workers or the web app.
"""

from __future__ import annotations

import argparse
import sys

from common import logsetup
from referee import gauntlet, league, play, replay_cli
from referee.sdk import cli as sdk_cli
from referee.server import cli as referee_cli
from service import asgi, refhost, supervise
from webapp import cli as web_cli
from webapp.datasets import cli as dataset_cli
from webapp.rankings import cli as rankings_cli
from workers import cli as worker_cli
from workers import housebots
from workers.hosting import host


def _add_ladder_referee(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl ladder-referee``, kept for old scripts: a notice, then ``brawl referee`` (ladder mode)."""
    ref = subparsers.add_parser("ladder-referee", help="deprecated: use `brawl referee` (ladder mode is its default)")
    ref.add_argument("--listen", default="127.0.0.1:50051", metavar="HOST:PORT", help="address to bind")
    ref.add_argument(
        "--internal-listen", default="127.0.0.1:50052", metavar="HOST:PORT", help="address of the internal API"
    )
    ref.add_argument("--grace", type=float, default=30.0, help="seconds running matches get on shutdown")
    ref.set_defaults(func=cmd_ladder_referee)


def cmd_ladder_referee(args: argparse.Namespace) -> int:
    """Prints a deprecation notice and runs ``brawl referee`` (ladder mode) with the same options."""
    argv = ["referee", "--listen", args.listen, "--internal-listen", args.internal_listen, "--grace", str(args.grace)]
    print(f"brawl ladder-referee is deprecated; running: brawl {' '.join(argv)}", file=sys.stderr)
    return main(argv)


def build_parser() -> argparse.ArgumentParser:
    """Returns the full ``brawl`` argument parser, its subcommands in the order ``brawl --help`` lists them."""
    parser = argparse.ArgumentParser(prog="brawl", description="Brawl Ladder: bots, referees, ladders and tournaments.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    supervise.add_parser(subparsers)
    replay_cli.add_parser(subparsers)
    referee_cli.add_parser(subparsers, ladder=refhost.ladder_stores)
    gauntlet.add_parser(sdk_cli.add_parser(subparsers))
    play.add_parser(subparsers)
    league.add_parser(subparsers)
    web_cli.add_parser(subparsers)
    asgi.add_parser(subparsers)
    rankings_cli.add_parser(subparsers)
    dataset_cli.add_parser(subparsers)
    worker_cli.add_parser(subparsers)
    _add_ladder_referee(subparsers)
    housebots.add_parser(subparsers)
    host.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs the ``brawl`` command line and returns its exit status."""
    args = build_parser().parse_args(argv)
    # One logging set-up for every process ``brawl`` starts (referee, worker, web, bots); the
    # subcommands set up no logging of their own.
    try:
        logsetup.configure(args.command, verbose=bool(getattr(args, "verbose", False)))
    except ValueError as exc:
        print(f"brawl: {exc}", file=sys.stderr)
        return 2
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
