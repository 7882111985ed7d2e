"""``brawl referee``: run a referee server, and ``brawl referee token``: add a local bot token.

One command, two modes, chosen by the options:

- **ladder mode** (the default): bots authenticate with the tokens the web app issued (stored
  hashed in its database, ``webapp.bots.token_store.DjangoTokenStore``), and finished matches go
  to the workers through ``workers.refhost.StagingSink`` (the replay is staged on the match row
  once, then ``record_match`` is queued). Needs the web app's ``DATABASE_URL`` and the broker's
  ``REDIS_URL``, like the workers.
- **standalone mode** (``--tokens FILE`` and/or ``--replays DIR``): a referee with no database:
  tokens from a JSON file (``brawl referee token``), replays written to a directory (kept in
  memory without ``--replays``).

In both modes the Redis seat relay (``referee.server.relay``) lets a match on this referee seat a
bot connected to another referee. It is on with ``--redis URL``; in ladder mode also when
``REDIS_URL`` is set (every referee and worker of a deployment shares it), unless ``--no-relay``.

This module parses options and picks the stores; the server itself is ``referee.server.service``,
the ladder wiring ``workers.refhost`` (imported by name, so this package never imports Django).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from referee.core.ids import BotId
from referee.server.auth import BotIdentity, JsonFileTokenStore, MemoryTokenStore, TokenStore
from referee.server.hub import RefereeSettings
from referee.server.metrics import serve_metrics
from referee.server.service import serve
from referee.server.sinks import FileResultSink, MemoryResultSink, ResultSink

log = logging.getLogger(__name__)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl referee``."""
    parser = subparsers.add_parser(
        "referee",
        help="run a referee server that connected bots play on (ladder mode unless --tokens/--replays)",
        description=(
            "Without --tokens and --replays the referee runs in ladder mode: bots log in with the web app's "
            "tokens (DATABASE_URL) and results go to the workers (REDIS_URL). --tokens/--replays select the "
            "standalone mode, with a JSON token file and replay files and no database."
        ),
    )
    parser.add_argument("--listen", default="127.0.0.1:50051", metavar="HOST:PORT", help="address to bind")
    parser.add_argument(
        "--tokens", type=Path, metavar="FILE", help="standalone mode: JSON token file (see `brawl referee token`)"
    )
    parser.add_argument(
        "--replays", type=Path, metavar="DIR", help="standalone mode: write replays here (default: keep in memory)"
    )
    parser.add_argument("--grace", type=float, default=30.0, help="seconds running matches get on shutdown")
    parser.add_argument("--max-message-bytes", type=int, default=RefereeSettings.max_message_bytes)
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="relay seats with other referees through this Redis (ladder mode default: $REDIS_URL)",
    )
    parser.add_argument("--no-relay", action="store_true", help="play only bots connected to this referee")
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve Prometheus metrics over HTTP at http://HOST:PORT/metrics (default: off)",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.set_defaults(func=cmd_referee)
    sub = parser.add_subparsers(dest="referee_command", metavar="ACTION")
    tok = sub.add_parser("token", help="issue a token for a bot into a JSON token file (local development)")
    tok.add_argument("--tokens", type=Path, required=True, metavar="FILE")
    tok.add_argument("--bot-id", required=True)
    tok.add_argument("--name", default="")
    tok.add_argument("--games", nargs="*", default=[])
    tok.set_defaults(func=cmd_token)


def is_standalone(args: argparse.Namespace) -> bool:
    """Whether the options select the standalone mode (a token file or a replay directory)."""
    return bool(args.tokens or args.replays)


def relay_url(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> str | None:
    """Returns the Redis URL of the seat relay for these options, or ``None`` when the relay is off."""
    if args.no_relay:
        return None
    if args.redis:
        return str(args.redis)
    if is_standalone(args):
        return None
    env: Mapping[str, str] = os.environ if environ is None else environ
    return env.get("REDIS_URL") or None


def cmd_referee(args: argparse.Namespace) -> int:
    """Runs the referee in the mode the options select until SIGINT/SIGTERM."""
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    settings = RefereeSettings(max_message_bytes=args.max_message_bytes)
    relay = relay_url(args)
    if args.metrics:
        port = serve_metrics(args.metrics)
        log.info("metrics on %s (port %d)", args.metrics, port)
    if not is_standalone(args):
        log.info("ladder mode: database tokens, staging result sink, relay %s", "on" if relay else "off")
        # By name: the ladder wiring needs Django, which the standalone referee never loads.
        refhost = importlib.import_module("workers.refhost")
        refhost.serve_ladder_referee(
            args.listen, grace=args.grace, max_message_bytes=args.max_message_bytes, relay_url=relay
        )
        return 0
    tokens: TokenStore = JsonFileTokenStore(args.tokens) if args.tokens else MemoryTokenStore()
    if not args.tokens:
        print("warning: no --tokens file; no bot can connect (house bots only)", file=sys.stderr)
    sink: ResultSink = FileResultSink(args.replays) if args.replays else MemoryResultSink()
    kept = "replay files" if args.replays else "replays in memory"
    log.info("standalone mode: token file, %s, relay %s", kept, "on" if relay else "off")
    asyncio.run(serve(args.listen, tokens=tokens, sink=sink, settings=settings, grace=args.grace, relay_url=relay))
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    """Adds a token to the file and prints it once."""
    store = JsonFileTokenStore(args.tokens)
    identity = BotIdentity(BotId(args.bot_id), args.name or args.bot_id, games=frozenset(args.games))
    print(store.add(identity))
    return 0
