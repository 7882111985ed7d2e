"""House bots of several strengths, and a farm that connects many of them from one process.

Each strength is an SDK bot class that plays any game: on its first turn of a match it builds the
game's ``heuristic`` house policy (``referee/games/<game>/bots.py``) and, with probability
``epsilon``, plays a uniformly random legal option instead. ``epsilon`` 0 is the full heuristic, 1
is pure random, so the ladder has bots of known, ordered strength. Each instance (one per match
and seat) draws its own seed from :func:`common.seeding.new_bot_seed`: the farm builds them with
no arguments, and a constant default would let an opponent with the source predict every random
move.

The farm (``brawl bot farm SPEC.json``) runs one real :class:`referee.sdk.BotClient` per entry, each
with its own gRPC stream and token, in one asyncio loop: cheaper than a process per bot on one
machine, and the same protocol as any remote bot.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common.seeding import new_bot_seed
from referee.core.bots import RandomPolicy
from referee.core.chance import SeededChance
from referee.sdk.house import house_factory


class _Mixed:
    """Plays the game's heuristic house bot, diluted with random moves.

    Args:
        seed: The bot's own seed, for a reproducible local experiment; by default a fresh one. Never
            a match seed, nor derived from one.
    """

    epsilon = 0.0

    def __init__(self, seed: int | None = None) -> None:
        seed = new_bot_seed() if seed is None else seed
        self._seed = seed
        self._coin = SeededChance(seed ^ 0xC0FFEE)
        self._random = RandomPolicy(seed)
        self._policy: Any = None

    def choose_turn(self, turn: Any) -> str:
        """Returns the heuristic's option, or a random one with probability ``epsilon``."""
        if self._policy is None:
            self._policy = house_factory(turn.game, "heuristic", self._seed)()
        if self.epsilon and self._coin.below(1000) < self.epsilon * 1000:
            return self._random.choose(turn.decision, turn.observation, turn.options)
        choice: str = self._policy.choose(turn.decision, turn.observation, turn.options)
        return choice

    def choose(self, decision: Any, observation: Any, options: Sequence[Any]) -> str:
        """Unused: :meth:`choose_turn` takes precedence; kept for the Bot protocol."""
        return self._random.choose(decision, observation, options)


class HeuristicBot(_Mixed):
    """The strongest house bot: the game's heuristic, always."""

    epsilon = 0.0


class SharpBot(_Mixed):
    """The heuristic with one move in ten random."""

    epsilon = 0.1


class SteadyBot(_Mixed):
    """The heuristic with one move in five random."""

    epsilon = 0.2


class WobblyBot(_Mixed):
    """The heuristic with two moves in five random."""

    epsilon = 0.4


class ErraticBot(_Mixed):
    """The heuristic with three moves in five random."""

    epsilon = 0.6


class WildBot(_Mixed):
    """The heuristic with four moves in five random."""

    epsilon = 0.8


class RandomBot(_Mixed):
    """The weakest house bot: uniformly random legal options."""

    epsilon = 1.0


STRENGTHS: dict[str, type[_Mixed]] = {
    "heuristic": HeuristicBot,
    "sharp": SharpBot,
    "steady": SteadyBot,
    "wobbly": WobblyBot,
    "erratic": ErraticBot,
    "wild": WildBot,
    "random": RandomBot,
}
"""House bots from strongest to weakest, by the name they carry on the ladder.

Seven, so that with the hosted house bot the demo has eight bots a game: enough to fill an 8-bot
tournament from house bots alone (issue 15)."""


async def run_farm(server: str, spec: Sequence[dict[str, Any]], stop: asyncio.Event | None = None) -> None:
    """Runs one SDK client per spec entry until ``stop`` is set (or SIGINT/SIGTERM)."""
    from referee.sdk import BotClient
    from referee.sdk.client import load_object

    clients = [
        BotClient(
            load_object(str(entry["bot"])),
            server,
            str(entry["token"]),
            max_matches=int(entry.get("max_matches", 4)),
            threaded=False,
        )
        for entry in spec
    ]
    tasks = [asyncio.create_task(c.run()) for c in clients]
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for c in clients:
        c.stop()
    await asyncio.gather(*tasks, return_exceptions=True)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl farm``."""
    parser = subparsers.add_parser("farm", help="connect many SDK bots from one process (house bots)")
    parser.add_argument("spec", type=Path, help='JSON list of {"bot": "module:Class", "token": ..., "max_matches": n}')
    parser.add_argument("--server", default="127.0.0.1:50051", metavar="HOST:PORT")
    parser.set_defaults(func=cmd_farm)


def cmd_farm(args: argparse.Namespace) -> int:
    """Runs the farm until interrupted."""
    spec = json.loads(args.spec.read_text())
    print(f"farm: {len(spec)} bots connecting to {args.server}", flush=True)
    asyncio.run(run_farm(args.server, spec))
    return 0
