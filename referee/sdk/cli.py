"""``brawl bot run module:Class``: connect a bot class to a referee, with reconnection and logging."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from referee.sdk.client import BotConnectionError, load_object, run_bot


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl bot``."""
    parser = subparsers.add_parser("bot", help="run a bot written with the Python SDK")
    sub = parser.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    run = sub.add_parser("run", help="connect a bot class to a referee and play")
    run.add_argument("bot", metavar="MODULE:CLASS", help="the bot class, e.g. examples.python_bots:GreedyBot")
    run.add_argument(
        "--server",
        default="127.0.0.1:50051",
        metavar="HOST:PORT[,HOST:PORT...]",
        help="the referee, or several: a reconnect goes to the next one (a match survives its referee's death)",
    )
    run.add_argument("--token", default=os.environ.get("BRAWL_TOKEN", ""), help="the bot's token (or BRAWL_TOKEN)")
    run.add_argument("--games", nargs="*", default=[], help="games to play (default: every game the token allows)")
    run.add_argument("--max-matches", type=int, default=1, help="seats to accept at once")
    run.add_argument("--matches", type=int, default=None, help="exit after this many matches")
    run.add_argument("--tls", action="store_true", help="connect over TLS (a referee behind a TLS ingress)")
    run.add_argument(
        "--ca", metavar="FILE", help="PEM certificate authority to trust with --tls (default: system roots)"
    )
    run.add_argument(
        "--auto-pass",
        nargs="*",
        default=None,
        metavar="KIND",
        help="window decision kinds (ScrumBrawl: dispel_window, fumble_window, team_window, dispel) the referee "
        "answers 'pass' for when it is the only option (default: the bot class's auto_pass_kinds)",
    )
    run.add_argument("-v", "--verbose", action="store_true")
    run.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    """Runs the bot; returns 2 when the referee refuses it."""
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
    )
    if not args.token:
        print("error: no token (pass --token or set BRAWL_TOKEN)", file=sys.stderr)
        return 2
    if args.ca and not args.tls:
        print("error: --ca needs --tls", file=sys.stderr)
        return 2
    factory = load_object(args.bot)
    try:
        run_bot(
            factory,
            args.server,
            args.token,
            games=args.games,
            max_matches=args.max_matches,
            matches=args.matches,
            tls=args.tls,
            ca=args.ca,
            auto_pass_kinds=args.auto_pass,
        )
    except OSError as exc:
        print(f"error: cannot read the CA file: {exc}", file=sys.stderr)
        return 2
    except BotConnectionError as exc:
        print(f"error: the referee refused the bot: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
