"""``brawl referee``: run a referee server, and ``brawl referee token``: add a local bot token."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from referee.core.ids import BotId
from referee.server.auth import BotIdentity, JsonFileTokenStore, MemoryTokenStore, TokenStore
from referee.server.hub import RefereeSettings
from referee.server.service import serve
from referee.server.sinks import FileResultSink, MemoryResultSink, ResultSink


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl referee``."""
    parser = subparsers.add_parser("referee", help="run a referee server that connected bots play on")
    parser.add_argument("--listen", default="127.0.0.1:50051", metavar="HOST:PORT", help="address to bind")
    parser.add_argument("--tokens", type=Path, metavar="FILE", help="JSON token file (see `brawl referee token`)")
    parser.add_argument("--replays", type=Path, metavar="DIR", help="write replays here (default: keep in memory)")
    parser.add_argument("--grace", type=float, default=30.0, help="seconds running matches get on shutdown")
    parser.add_argument("--max-message-bytes", type=int, default=RefereeSettings.max_message_bytes)
    parser.add_argument("--redis", metavar="URL", help="relay seats with other referees through this Redis")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.set_defaults(func=cmd_referee)
    sub = parser.add_subparsers(dest="referee_command", metavar="ACTION")
    tok = sub.add_parser("token", help="issue a token for a bot into a JSON token file (local development)")
    tok.add_argument("--tokens", type=Path, required=True, metavar="FILE")
    tok.add_argument("--bot-id", required=True)
    tok.add_argument("--name", default="")
    tok.add_argument("--games", nargs="*", default=[])
    tok.set_defaults(func=cmd_token)


def cmd_referee(args: argparse.Namespace) -> int:
    """Runs the referee until SIGINT/SIGTERM."""
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )
    tokens: TokenStore = JsonFileTokenStore(args.tokens) if args.tokens else MemoryTokenStore()
    if not args.tokens:
        print("warning: no --tokens file; no bot can connect (house bots only)", file=sys.stderr)
    sink: ResultSink = FileResultSink(args.replays) if args.replays else MemoryResultSink()
    settings = RefereeSettings(max_message_bytes=args.max_message_bytes)
    asyncio.run(serve(args.listen, tokens=tokens, sink=sink, settings=settings, grace=args.grace, relay_url=args.redis))
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    """Adds a token to the file and prints it once."""
    store = JsonFileTokenStore(args.tokens)
    identity = BotIdentity(BotId(args.bot_id), args.name or args.bot_id, games=frozenset(args.games))
    print(store.add(identity))
    return 0
