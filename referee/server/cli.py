"""``brawl referee``: run a referee server; ``brawl referee token``: add a local bot token;
``brawl referee start``: start a match between connected bots through the internal API.

A referee listens twice: ``--listen`` is the bot port (``BotService`` and health, TLS with
``--tls-cert``/``--tls-key``), ``--internal-listen`` the internal API (``RefereeService``, loopback
by default), which needs the service credential (``BRAWL_INTERNAL_TOKEN``, or on embedded
defaults the secret generated in ``$BRAWL_VAR_DIR/internal-token``; see ``common.credential``).

One command, two modes, chosen by the options:

- **ladder mode** (the default): bots authenticate with the tokens the web app issued, checked by
  the web tier's internal API at ``BRAWL_WEB_INTERNAL_URL`` (``referee.server.auth.WebTokenStore``
  calling ``webapp.internal`` with the service credential), and finished matches go to the workers
  as a ``record_result`` message on the broker (``service.refhost``, passed in as ``ladder``). Needs the broker
  (``REDIS_URL``, or the embedded one under ``BRAWL_VAR_DIR``), never database credentials.
- **standalone mode** (``--tokens FILE`` and/or ``--replays DIR``): a referee with no database:
  tokens from a JSON file (``brawl referee token``), replays written to a directory (kept in
  memory without ``--replays``).

In both modes the Redis seat relay (``referee.server.relay``) lets a match on this referee seat a
bot connected to another referee. It is on with ``--redis URL``; in ladder mode also when
``REDIS_URL`` is set (every referee and worker of a deployment shares it), unless ``--no-relay``.

This module parses options and picks the stores; the server itself is ``referee.server.service``.
The ladder mode's stores come from whoever builds the command line (``service.cli`` passes
``service.refhost.ladder_stores``), so the referee imports nothing above it; neither imports Django.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import logging
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from common import settings as env_settings
from common.credential import InternalTokenError, internal_token
from referee.core.ids import BotId, IdKind, InvalidIdError, check_id
from referee.core.registry import shipped_game_names
from referee.server.auth import (
    BotIdentity,
    JsonFileTokenStore,
    MemoryTokenStore,
    TokenStore,
)
from referee.server.hub import RefereeSettings
from referee.server.metrics import serve_metrics
from referee.server.service import TlsFiles, serve
from referee.server.sinks import FileResultSink, MemoryResultSink, ResultSink

LadderStores = Callable[[], tuple[TokenStore, ResultSink]]
"""Builds the ladder mode's token store and result sink (the service's wiring, ``service.refhost``)."""

DEFAULT_INTERNAL = "127.0.0.1:50052"
"""Where the internal API listens unless told: loopback, never the bot port."""

log = logging.getLogger(__name__)


def _id_argument(kind: IdKind, *, house: bool = False, optional: bool = False) -> Any:
    """Returns an argparse ``type`` that refuses an invalid id of ``kind`` (:func:`referee.core.ids.id_problem`).

    With ``house``, ``house:NAME`` passes (a house seat); with ``optional``, an empty value passes
    (the referee chooses).
    """

    def parse(value: str) -> str:
        if (house and value.startswith("house:")) or (optional and not value):
            return value
        try:
            return check_id(kind, value)
        except InvalidIdError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc

    return parse


def add_parser(subparsers: argparse._SubParsersAction, ladder: LadderStores | None = None) -> None:  # type: ignore[type-arg]
    """Registers ``brawl referee``.

    Args:
        subparsers: The ``brawl`` command line's subcommands.
        ladder: Builds the ladder mode's token store and result sink (``service.refhost.ladder_stores``);
            this package imports nothing of the workers, so whoever assembles the command line passes it.
    """
    parser = subparsers.add_parser(
        "referee",
        help="run a referee server that connected bots play on (ladder mode unless --tokens/--replays)",
        description=(
            "Without --tokens and --replays the referee runs in ladder mode: bots log in with the web app's "
            "tokens, checked by the web tier (BRAWL_WEB_INTERNAL_URL), and results go to the workers (REDIS_URL). "
            "--tokens/--replays select the "
            "standalone mode, with a JSON token file and replay files and no database."
        ),
    )
    parser.add_argument("--listen", default="127.0.0.1:50051", metavar="HOST:PORT", help="the bot port to bind")
    parser.add_argument(
        "--internal-listen",
        default=DEFAULT_INTERNAL,
        metavar="HOST:PORT",
        help="the internal API (workers, web tier; needs BRAWL_INTERNAL_TOKEN) (default: %(default)s)",
    )
    parser.add_argument("--tls-cert", type=Path, metavar="FILE", help="PEM certificate chain: serve bots over TLS")
    parser.add_argument("--tls-key", type=Path, metavar="FILE", help="PEM private key of --tls-cert")
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
        "--reuse-port",
        action="store_true",
        help="share the bot port with other referee processes on this machine (SO_REUSEPORT; each needs its "
        "own --internal-listen, and the relay joins bots that land on different processes)",
    )
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve Prometheus metrics over HTTP at http://HOST:PORT/metrics (default: off)",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.set_defaults(func=functools.partial(cmd_referee, ladder=ladder))
    sub = parser.add_subparsers(dest="referee_command", metavar="ACTION")
    tok = sub.add_parser("token", help="issue a token for a bot into a JSON token file (local development)")
    tok.add_argument("--tokens", type=Path, required=True, metavar="FILE")
    tok.add_argument("--bot-id", required=True, type=_id_argument(IdKind.BOT))
    tok.add_argument("--name", default="")
    tok.add_argument("--games", nargs="*", default=[])
    tok.set_defaults(func=cmd_token)
    start = sub.add_parser(
        "start",
        help="start a match between bots connected to a referee, through its internal API",
        description=(
            "Starts one match on a running referee (standalone or ladder) between bots connected to it, and "
            "waits for its end unless --no-wait. Run it where the internal listener is reachable (loopback by "
            "default) with the same BRAWL_INTERNAL_TOKEN, or the same BRAWL_VAR_DIR on embedded defaults."
        ),
    )
    start.add_argument("--internal", default=DEFAULT_INTERNAL, metavar="HOST:PORT", help="the referee's internal API")
    start.add_argument("--game", required=True, help=f"registry name: {' or '.join(shipped_game_names())}")
    start.add_argument(
        "--bot",
        action="append",
        required=True,
        metavar="BOT_ID",
        type=_id_argument(IdKind.BOT, house=True),
        help="a seat, in order: a bot id or house:NAME",
    )
    start.add_argument(
        "--match-id",
        default="",
        type=_id_argument(IdKind.MATCH, optional=True),
        help="match id (default: the referee chooses)",
    )
    start.add_argument("--seed", type=int, default=None, help="match seed (default: a fresh secret one)")
    start.add_argument("--config", default="{}", metavar="JSON", help="config overrides, a JSON object")
    start.add_argument("--decision-ms", type=int, default=0, help="free think time per decision (default: the game's)")
    start.add_argument("--join-timeout", type=float, default=60.0, help="seconds to wait for the bots to be connected")
    start.add_argument("--no-wait", action="store_true", help="return once the referee accepted the match")
    start.set_defaults(func=cmd_start)


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
    return env_settings.redis_url(environ)


def cmd_referee(args: argparse.Namespace, ladder: LadderStores | None = None) -> int:
    """Runs the referee in the mode the options select until SIGINT/SIGTERM.

    Args:
        args: The parsed options.
        ladder: Builds the ladder mode's token store and result sink; ``None`` leaves the ladder
            mode out (the standalone options are then required).
    """
    if ladder is None and not is_standalone(args):
        print("error: this command line has no ladder mode; give --tokens and/or --replays", file=sys.stderr)
        return 2
    settings = RefereeSettings(max_message_bytes=args.max_message_bytes)
    relay = relay_url(args)
    if args.reuse_port and not relay:
        log.warning("--reuse-port without the relay: a match whose bots land on different processes never starts")
    if bool(args.tls_cert) != bool(args.tls_key):
        print("error: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    tls = TlsFiles(args.tls_cert, args.tls_key) if args.tls_cert else None
    try:
        internal_token()  # fail at start, with the reason, rather than on the first call
    except InternalTokenError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.metrics:
        port = serve_metrics(args.metrics)
        log.info("metrics on %s (port %d)", args.metrics, port)
    if is_standalone(args):
        tokens: TokenStore = JsonFileTokenStore(args.tokens) if args.tokens else MemoryTokenStore()
        if not args.tokens:
            print("warning: no --tokens file; no bot can connect (house bots only)", file=sys.stderr)
        sink: ResultSink = FileResultSink(args.replays) if args.replays else MemoryResultSink()
        kept = "replay files" if args.replays else "replays in memory"
        log.info("standalone mode: token file, %s, relay %s", kept, "on" if relay else "off")
    else:
        assert ladder is not None  # checked above
        tokens, sink = ladder()
        log.info("ladder mode: web tier checks tokens, results to the broker, relay %s", "on" if relay else "off")
    asyncio.run(
        serve(
            args.listen,
            tokens=tokens,
            sink=sink,
            settings=settings,
            grace=args.grace,
            relay_url=relay,
            internal_address=args.internal_listen,
            tls=tls,
            reuse_port=args.reuse_port,
        )
    )
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    """Adds a token to the file and prints it once."""
    store = JsonFileTokenStore(args.tokens)
    identity = BotIdentity(BotId(args.bot_id), args.name or args.bot_id, games=frozenset(args.games))
    print(store.add(identity))
    return 0


def cmd_start(args: argparse.Namespace) -> int:
    """Starts a match on a referee's internal API; prints its id, then (unless ``--no-wait``) its end.

    Returns 0 when the match was accepted (and, waiting, ended as succeeded or cancelled), 1 when it
    failed, 2 when the referee refused it or cannot be reached.
    """
    import grpc
    from brawl.referee.v1 import referee_pb2, referee_pb2_grpc
    from google.protobuf import struct_pb2

    try:
        config = json.loads(args.config)
        if not isinstance(config, dict):
            raise ValueError("not an object")
        secret = internal_token()
    except (ValueError, InternalTokenError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seats = [
        referee_pb2.Seat(house_bot=b[6:]) if b.startswith("house:") else referee_pb2.Seat(bot_id=b, display_name=b)
        for b in args.bot
    ]
    struct = struct_pb2.Struct()
    struct.update(config)
    request = referee_pb2.StartMatchRequest(
        request_id=f"cli-{os.getpid()}-{os.urandom(4).hex()}",
        match_id=args.match_id,
        game=args.game,
        seats=seats,
        config=struct,
        join_timeout_seconds=args.join_timeout,
    )
    if args.seed is not None:
        request.seed = args.seed
    if args.decision_ms:
        request.time_control.decision_time.FromMilliseconds(args.decision_ms)
    metadata = (("authorization", f"Bearer {secret}"),)
    ended = {
        referee_pb2.Match.STATE_SUCCEEDED: 0,
        referee_pb2.Match.STATE_CANCELLED: 0,
        referee_pb2.Match.STATE_FAILED: 1,
    }
    with grpc.insecure_channel(args.internal) as channel:
        generated: Any = referee_pb2_grpc  # generated code carries no annotations
        api = generated.RefereeServiceStub(channel)
        try:
            match = api.StartMatch(request, metadata=metadata, timeout=10).match
            print(f"match {match.match_id} started; seed commitment {match.seed_commitment}")
            if args.no_wait:
                return 0
            for update in api.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match.match_id), metadata=metadata):
                if update.state in ended:
                    break
            final = api.GetMatch(referee_pb2.GetMatchRequest(match_id=match.match_id), metadata=metadata, timeout=10)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            detail = exc.details() if hasattr(exc, "details") else str(exc)
            print(
                f"error: the referee at {args.internal} answered {getattr(code, 'name', code)}: {detail}",
                file=sys.stderr,
            )
            return 2
    m = final.match
    state = referee_pb2.Match.State.Name(m.state)
    ranks = list(m.outcome.ranks)
    print(f"match {m.match_id} {state}: ranks {ranks} {m.outcome.reason}; seed {m.seed}; replay {m.replay_uri}")
    return ended.get(m.state, 1)
