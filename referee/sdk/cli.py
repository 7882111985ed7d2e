"""``brawl bot run module:Class``: connect a bot class to a referee, with reconnection and logging."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from referee.sdk.client import BotConnectionError, load_spec, run_bot
from referee.sdk.house import UnknownHouseBotError, house_factory


def add_parser(subparsers: argparse._SubParsersAction) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    """Registers ``brawl bot``; returns its actions, where the command line adds ``brawl bot gauntlet``."""
    parser = subparsers.add_parser("bot", help="run a bot written with the Python SDK")
    sub: argparse._SubParsersAction = parser.add_subparsers(  # type: ignore[type-arg]
        dest="bot_command", metavar="ACTION", required=True
    )
    run = sub.add_parser("run", help="connect a bot class to a referee and play")
    run.add_argument(
        "bot",
        metavar="MODULE:CLASS",
        help="the bot class, e.g. mybot:MyBot (mybot.py in the current folder) or "
        "examples.python_bots.greedy:GreedyBot, or house:NAME for a house bot of the one game "
        "given with --games (each seat draws its own seed)",
    )
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
        help="window decision kinds (such as dispel_window, fumble_window, team_window, dispel) the referee "
        "answers 'pass' for when it is the only option (default: the bot class's auto_pass_kinds)",
    )
    run.add_argument("-v", "--verbose", action="store_true")
    run.set_defaults(func=cmd_run)
    up = sub.add_parser("upload", help="upload a new version of a bot for the service to host (docs/hosted-bots.md)")
    up.add_argument("bot_id", type=int, metavar="BOT_ID", help="the bot's id (from its page or the API)")
    up.add_argument("file", metavar="FILE", help="a .py file, a .zip of a package, or an executable")
    up.add_argument("--entry", required=True, help="module:Class for Python, or the executable's path in the upload")
    up.add_argument("--notes", default="", help="what changed in this version")
    up.add_argument("--api", default=os.environ.get("BRAWL_API", "http://127.0.0.1:8000"), help="the web site's URL")
    up.add_argument(
        "--api-token", default=os.environ.get("BRAWL_API_TOKEN", ""), help="your API token (or BRAWL_API_TOKEN)"
    )
    up.set_defaults(func=cmd_upload)
    return sub


def bot_factory(spec: str, games: Sequence[str]) -> Callable[[], Any]:
    """Returns what makes one bot per seat for ``brawl bot run SPEC --games GAMES``.

    ``house:NAME`` is the house bot ``NAME`` of the one game in ``games`` (each seat draws its own
    seed); anything else is ``module:Class`` (:func:`referee.sdk.client.load_spec`: the current
    folder is searched too).

    Raises:
        ValueError: a house bot without exactly one game; a ``module:Class`` that cannot be loaded
            (:class:`referee.sdk.client.BotSpecError`, one line).
        UnknownHouseBotError: the game has no house bot of that name.
    """
    if spec.startswith("house:"):
        if len(games) != 1:
            raise ValueError("a house bot plays one game: pass it with --games GAME")
        return house_factory(games[0], spec.removeprefix("house:"))
    factory: Callable[[], Any] = load_spec(spec)
    return factory


def cmd_run(args: argparse.Namespace) -> int:
    """Runs the bot; returns 2 when the referee refuses it."""
    if not args.token:
        print("error: no token (pass --token or set BRAWL_TOKEN)", file=sys.stderr)
        return 2
    if args.ca and not args.tls:
        print("error: --ca needs --tls", file=sys.stderr)
        return 2
    try:
        factory = bot_factory(args.bot, args.games)
    except (UnknownHouseBotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
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


def cmd_upload(args: argparse.Namespace) -> int:
    """Sends the file to ``POST /api/v1/bots/<id>/upload/``; prints the upload's id and status, or the refusal."""
    import json
    import secrets
    import urllib.error
    import urllib.request
    from pathlib import Path

    if not args.api_token:
        print("error: no API token (pass --api-token or set BRAWL_API_TOKEN)", file=sys.stderr)
        return 2
    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    boundary = "brawl-" + secrets.token_hex(12)
    parts = []
    for name, value in (("entry", args.entry), ("notes", args.notes)):
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    filename = Path(args.file).name.replace('"', "")
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{args.api.rstrip('/')}/api/v1/bots/{args.bot_id}/upload/",
        data=b"".join(parts),
        method="POST",
        headers={
            "Authorization": f"Token {args.api_token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read()).get("detail", exc.reason)
        except ValueError:
            detail = exc.reason
        print(f"error: upload refused ({exc.code}): {detail}", file=sys.stderr)
        return 1
    except urllib.error.URLError as exc:
        print(f"error: cannot reach {args.api}: {exc.reason}", file=sys.stderr)
        return 2
    print(f"upload {body['id']}: {body['status']} (sha256 {body['sha256']}); the host validates it next")
    return 0
