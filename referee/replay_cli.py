"""``brawl replay``: check and inspect recorded replays."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.core.errors import EngineError
from referee.core.registry import UnknownGameError
from referee.core.replay import Replay, ReplayError, verify, verify_commitment


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl replay`` and its subcommands."""
    parser = subparsers.add_parser("replay", help="verify and inspect replay files")
    sub = parser.add_subparsers(dest="replay_command", metavar="ACTION", required=True)
    v = sub.add_parser(
        "verify",
        help="re-simulate replays, check they reproduce exactly and that the seed matches its commitment",
    )
    v.add_argument("files", nargs="+", type=Path, metavar="FILE")
    v.add_argument(
        "--commitment",
        metavar="HEX",
        help="check the seed against this published commitment (one file) instead of the replay's own copy",
    )
    v.set_defaults(func=cmd_verify)
    s = sub.add_parser("show", help="print a replay's header, decisions and outcome")
    s.add_argument("file", type=Path, metavar="FILE")
    s.set_defaults(func=cmd_show)


def cmd_verify(args: argparse.Namespace) -> int:
    """Verifies each file; prints one line per file; returns 1 if any fails."""
    failed = 0
    if args.commitment and len(args.files) != 1:
        print("error: --commitment checks one file", file=sys.stderr)
        return 2
    for path in args.files:
        try:
            replay = Replay.load(path)
            match = verify(replay)
            commitment = verify_commitment(replay, args.commitment)
        except (OSError, ReplayError, UnknownGameError, EngineError) as exc:
            failed += 1
            print(f"FAIL {path}: {exc}")
            continue
        outcome = replay.outcome
        print(
            f"ok   {path}: {replay.game} rules {replay.rules_version}, {len(replay.decisions)} decisions, "
            f"{len(match.events())} events, {outcome.termination.value if outcome else '?'}"
            f" ranks {list(outcome.ranks) if outcome else '?'}, "
            + (f"seed matches commitment {commitment}" if commitment else "no seed commitment to check")
        )
    if len(args.files) > 1:
        print(f"{len(args.files) - failed} verified, {failed} failed")
    return 1 if failed else 0


def cmd_show(args: argparse.Namespace) -> int:
    """Prints a readable summary of one replay."""
    try:
        replay = Replay.load(args.file)
    except (OSError, ReplayError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"game       {replay.game} (rules {replay.rules_version})")
    print(f"seed       {replay.seed}")
    print(f"seats      {', '.join(f'{i}:{n}' for i, n in enumerate(replay.seats))}")
    print(f"config     {replay.config}")
    for n, d in enumerate(replay.decisions):
        extra = f"  [{d.source}]" if d.source != "bot" else ""
        note = f"  # {d.note}" if d.note else ""
        print(f"{n:5d}  seat {d.seat}  {d.option_id}{extra}{note}")
    for inc in replay.incidents:
        print(f"incident at {inc.at}: seat {inc.seat} {inc.kind}: {inc.detail}")
    if replay.outcome:
        o = replay.outcome
        print(f"outcome    {o.termination.value}: ranks {list(o.ranks)} {o.reason}")
    return 0
