"""The ``brawl`` command line: one entry point whose subcommands live beside what they drive.

Each subcommand module exposes ``add_parser(subparsers)``, which registers its parser and sets
``func`` on it; ``func(args)`` returns the exit status. Modules are imported when the command line
is built, so a broken module fails loudly rather than hiding its subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS: list[str] = [
    "workers.supervise",
    "referee.replay_cli",
    "referee.server.cli",
    "referee.sdk.cli",
    "referee.play",
    "webapp.cli",
    "webapp.rankings.cli",
    "workers.cli",
    "workers.housebots",
    "workers.hosting.host",
]
"""Modules that register subcommands, in the order ``brawl --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """Returns the full ``brawl`` argument parser."""
    parser = argparse.ArgumentParser(prog="brawl", description="Brawl Ladder: bots, referees, ladders and tournaments.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in SUBCOMMANDS:
        importlib.import_module(module_name).add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs the ``brawl`` command line and returns its exit status."""
    args = build_parser().parse_args(argv)
    from referee import logsetup

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
