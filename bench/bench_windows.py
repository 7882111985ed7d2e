"""What ScrumBrawl's out-of-turn windows cost through the real referee, with bots that take 50 ms.

Every seat is the house heuristic behind a real SDK client that sleeps ``--think`` seconds (50 ms)
before each answer, connected to a real referee on loopback. The same seeds are played in three
(or four) ways:

* ``sequential``: the seats of a window asked one after another, nobody opted in (before);
* ``parallel``: every seat of a window asked at once (after);
* ``parallel+auto``: the same, every bot opted in to "pass" answered for it in every window kind;
* ``sequential+auto`` (``--all``): the opt-in without parallel asking.

Per game it prints the decisions recorded, the requests the bots were actually sent, the rounds
(the times the match waited for bots: each request, or each window's requests sent at once; found
by re-simulating the replay), the wait those rounds imply at ``--think`` per round (the wall time
on an idle machine, less the engine's and bots' CPU), and the wall time measured from the first
request to the end. The bots are deterministic, so the decisions of a seed are
the same in every mode (checked). The matches of one mode run at the same time, on one referee in
this process with the bots; a bot's sleep is not CPU, so on a loaded machine the wall time is the
50 ms per round trip plus the engine's and the heuristic's CPU time.

    python -m bench.bench_windows [--seeds 4] [--think 0.05] [--seats 2,4] [--all]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.core import get_game
from referee.core.contract import Decision, JSONDict, Option
from referee.core.ids import BotId
from referee.core.replay import Recorder, Replay
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient
from referee.sdk.house import house_factory
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.match import SeatSpec
from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink

WINDOW_KINDS = ("alter_reality", "dispel_window", "fumble_window", "team_window", "dispel")
"""ScrumBrawl's held-window decision kinds."""

CALM = TimeSettings(decision_time=30, bank_time=300, max_overrun=10, max_strikes=3, reconnect_grace=60)
"""Clocks far beyond the think time: a loaded machine must not turn into timeouts."""


class ThinkingBot:
    """The house heuristic, answering after ``think`` seconds."""

    think: ClassVar[float] = 0.05
    auto_pass_kinds: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.policy = house_factory("scrumbrawl", "heuristic", seed=3)()

    def choose(self, decision: Decision, observation: JSONDict, options: list[Option]) -> str:
        time.sleep(self.think)
        return str(self.policy.choose(decision, observation, options))


class AutoPassBot(ThinkingBot):
    """The same bot, opted in to the auto-pass in every window kind."""

    auto_pass_kinds = WINDOW_KINDS


@dataclass
class Game:
    seed: int
    decisions: int
    requests: int
    rounds: int
    """Times the match waited for bots: a request, or a window's requests sent at once."""
    wall: float
    moves: list[tuple[int, str]]


def rounds(replay: Replay, parallel: bool) -> int:
    """Counts the waits for bots a match had: each asked decision, or (parallel) each window once.

    Re-simulates the replay to find each decision's window id; an auto-passed decision (note
    ``auto-pass``) is no wait. A window whose seats were all auto-passed costs nothing.
    """
    g = get_game(replay.game)
    rec = Recorder(g, replay.config, replay.seed, list(replay.seats), {})
    count = 0
    last_window: str | None = None
    counted_window = False
    for d in replay.decisions:
        pending = rec.match.to_move()
        assert pending is not None
        asked = d.note != "auto-pass"
        if parallel and pending.window is not None:
            if pending.window != last_window:
                last_window, counted_window = pending.window, False
            if asked and not counted_window:
                count += 1
                counted_window = True
        else:
            last_window = None
            count += asked
        rec.apply(d.option_id)
    return count


async def run_mode(seats: int, seeds: list[int], parallel: bool, auto: bool) -> list[Game]:
    """Plays every seed at once through one referee; returns each game's figures."""
    store = MemoryTokenStore()
    server = create_server(
        "127.0.0.1:0",
        tokens=store,
        sink=MemoryResultSink(),
        settings=RefereeSettings(ping_interval=1.0, parallel_windows=parallel),
        secret="bench-windows",
    )
    await server.start()
    clients: list[tuple[BotClient, asyncio.Task[None]]] = []
    try:
        ids = [f"bench{i}" for i in range(seats)]
        for bot_id in ids:
            token = store.issue(BotIdentity(BotId(bot_id), bot_id, "v1", "bench", frozenset()))
            client = BotClient(
                AutoPassBot if auto else ThinkingBot,
                f"127.0.0.1:{server.port}",
                token,
                games=["scrumbrawl"],
                max_matches=len(seeds),
            )
            clients.append((client, asyncio.create_task(client.run())))
        ref = server.referee
        while sum(1 for s in ref.sessions.values()) < seats:
            await asyncio.sleep(0.02)
        config: dict[str, Any] = {"teams": True} if seats == 4 else {}
        runners = [
            ref.start_match(
                game="scrumbrawl",
                seats=[SeatSpec(bot_id=BotId(b)) for b in ids],
                config=config,
                seed=seed,
                time_control=CALM.to_proto(),
            )
            for seed in seeds
        ]
        await asyncio.gather(*(r.wait() for r in runners))
        out = []
        for seed, r in zip(seeds, runners, strict=True):
            replay = r.replay
            if replay is None or r.start_time is None or r.end_time is None:
                raise RuntimeError(f"seed {seed}: the match failed: {r.error}")
            if replay.incidents:
                raise RuntimeError(f"seed {seed}: incidents {replay.incidents[:3]!r}")
            auto_n = sum(1 for d in replay.decisions if d.note == "auto-pass")
            out.append(
                Game(
                    seed,
                    len(replay.decisions),
                    len(replay.decisions) - auto_n,
                    rounds(replay, parallel),
                    r.end_time - r.start_time,
                    [(int(d.seat), d.option_id) for d in replay.decisions],
                )
            )
        return out
    finally:
        for client, _ in clients:
            client.stop()
        await asyncio.gather(*(t for _, t in clients), return_exceptions=True)
        await server.stop(0.5)


async def main_async(args: argparse.Namespace) -> None:
    # Every seat of every concurrent match may be thinking at once: one thread each.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=256))
    ThinkingBot.think = args.think
    seeds = list(range(args.seeds))
    modes = [("sequential", False, False), ("parallel", True, False), ("parallel+auto", True, True)]
    if args.all:
        modes.insert(1, ("sequential+auto", False, True))
    print(f"ScrumBrawl, house heuristic bots thinking {args.think * 1000:g} ms, seeds {seeds[0]}..{seeds[-1]}")
    print(
        f"{'seats':<10} {'mode':<16} {'decisions':>10} {'requests':>9} {'rounds':>7} {'rounds x think':>14} "
        f"{'wall s':>8} {'vs before':>9}"
    )
    for seats in args.seats:
        base: list[Game] | None = None
        for name, parallel, auto in modes:
            games = await run_mode(seats, seeds, parallel, auto)
            if base is None:
                base = games
            elif [g.moves for g in games] != [g.moves for g in base]:
                raise RuntimeError(f"{name}: the decisions differ from sequential asking")
            wall = statistics.mean(g.wall for g in games)
            ratio = wall / statistics.mean(g.wall for g in base)
            label = "2 players" if seats == 2 else "2v2"
            waits = statistics.mean(g.rounds for g in games)
            print(
                f"{label:<10} {name:<16} {statistics.mean(g.decisions for g in games):>10.1f} "
                f"{statistics.mean(g.requests for g in games):>9.1f} {waits:>7.1f} {waits * args.think:>14.2f} "
                f"{wall:>8.2f} {ratio:>9.2f}",
                flush=True,
            )


def main() -> None:
    """Parses the arguments and prints the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seeds", type=int, default=4, help="games per mode and seat count (seeds 0..N-1)")
    parser.add_argument("--think", type=float, default=0.05, help="each bot's time per answer, seconds")
    parser.add_argument(
        "--seats", type=lambda s: [int(x) for x in s.split(",")], default=[2, 4], help="2 players and/or 2v2 (4)"
    )
    parser.add_argument("--all", action="store_true", help="also the auto-pass opt-in without parallel asking")
    args = parser.parse_args()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
