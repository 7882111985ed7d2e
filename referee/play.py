"""``brawl play``: run matches between local bots through the referee's own code path.

    brawl play --game scrumbrawl random heuristic --games 20 --seed 1 --out replays/

Each bot is ``random`` or another house-bot name of the game, or ``module:Class`` (an SDK bot).
Matches are played by the referee hub (:class:`referee.server.hub.Referee`) with in-process seat
links instead of network sessions: the same match runner, clocks, strikes and replay recording as
on a server. Seats rotate from one match to the next so every bot plays every seat. A progress bar
goes to stderr, a result table to stdout; replays are written to ``--out`` when given.

``--game`` also accepts ``module:Class`` naming a :class:`referee.core.Game` to register first
(test-only games).

``--seed`` gives the match seeds; the house bots' own randomness is fresh in every instance unless
``--bot-seed`` is given, and it is never derived from ``--seed``: pass both to repeat an experiment
exactly. A replay never needs the bot seed (the bots' choices are in its decision log).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from brawl.bot.v1 import bot_pb2

from referee.core.contract import Game
from referee.core.registry import UnknownGameError, get_game, register
from referee.core.replay import Replay
from referee.protocol.timecontrol import TimeSettings, defaults_for
from referee.sdk.client import load_spec
from referee.sdk.house import UnknownHouseBotError, house_factory
from referee.server.auth import MemoryTokenStore
from referee.server.hub import Referee, StartError
from referee.server.match import SeatSpec
from referee.server.service import tune_gc
from referee.server.sinks import FileResultSink, MemoryResultSink, ResultSink


@dataclass
class BotTally:
    """One bot's results over a series."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rank_sum: int = 0
    incidents: dict[str, int] = field(default_factory=dict)


PRACTICE_SEEDS = (101, 202, 303, 404, 505, 606, 707, 808, 909, 1010, 1111, 1212)
"""The practice suite: fixed, public match seeds, the same for every game (docs/writing-a-bot.md, "The
practice suite"). ``brawl play --practice`` plays each with every seat rotation, so two versions of a
bot can be compared deal for deal. Public on purpose: the ladder's seeds are secret and drawn afresh,
so nothing tuned to these helps there."""


@dataclass
class Series:
    """The result of ``brawl play``."""

    tallies: list[BotTally]
    replays: list[Replay]
    seconds: float


def resolve_game(spec: str) -> Game:
    """Returns the game named ``spec``, registering a ``module:Class`` game first.

    Raises:
        UnknownGameError: no such game.
    """
    if ":" in spec:
        game: Game = load_spec(spec, what="game")()
        register(game)
        return game
    return get_game(spec)


def bot_factory(game: str, spec: str, seed: int | None = None) -> tuple[Callable[[], Any], bool]:
    """Returns (factory, threaded) for a bot spec: a house-bot name or ``module:Class``.

    ``seed`` is a house bot's own seed (``None``: a fresh one per instance); an SDK class is built
    with no arguments.

    Raises:
        UnknownHouseBotError: no house bot of that name.
        BotSpecError: the ``module:Class`` cannot be loaded (one line saying why).
    """
    if ":" in spec:
        return load_spec(spec), True
    return house_factory(game, spec, seed), False


def short_names(specs: Sequence[str]) -> list[str]:
    """Display names of bot specs: ``pkg.mod:Class`` shows as ``Class``, repeats numbered ``Class#2``."""
    short = [b.rsplit(":", 1)[-1].rsplit(".", 1)[-1] for b in specs]
    return [n if short.count(n) == 1 else f"{n}#{i + 1}" for i, n in enumerate(short)]


async def run_match(
    referee: Referee,
    game_name: str,
    specs: Sequence[str],
    names: Sequence[str],
    *,
    seed: int,
    match_id: str,
    time_control: bot_pb2.TimeControl,
    config: dict[str, Any] | None = None,
    bot_seeds: Sequence[int | None] | None = None,
) -> Replay | None:
    """Plays one match in-process, seat ``s`` by the bot ``specs[s]`` (a house-bot name or ``module:Class``).

    ``bot_seeds[s]`` is seat ``s``'s own seed for a house bot (``None``: fresh); it must never be
    derived from ``seed``. Returns the replay (``None`` when the match did not end with an outcome).

    Raises:
        StartError: a bot or the game config is refused.
    """
    factories = {}
    for seat, spec in enumerate(specs):
        own = None if bot_seeds is None else bot_seeds[seat]
        factories[seat] = bot_factory(game_name, spec, own)
    runner = referee.start_match(
        game=game_name,
        seats=[SeatSpec(name=name) for name in names],
        config=config,
        seed=seed,
        time_control=time_control,
        match_id=match_id,
        local_factories={s: f for s, (f, _) in factories.items()},
        threaded_local=any(t for _, t in factories.values()),
    )
    return await runner.wait()


def progress_bar(out: TextIO, done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // max(1, total)
    rate = done / max(1e-9, time.monotonic() - started)
    out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} matches  {rate:.1f}/s")
    if done == total:
        out.write("\n")
    out.flush()


async def play_series(
    game_name: str,
    bots: Sequence[str],
    *,
    games: int = 1,
    seed: int = 0,
    out: Path | None = None,
    time_control: TimeSettings | None = None,
    parallel: int = 4,
    progress: TextIO | None = None,
    config: dict[str, Any] | None = None,
    bot_seed: int | None = None,
    seeds: Sequence[int] | None = None,
) -> Series:
    """Plays ``games`` matches between ``bots`` and returns the tallies and replays.

    Match ``n`` is played on the seed ``seed + n``, or, with ``seeds`` (the practice suite), on
    ``seeds[n // len(bots)]`` with the seats rotated ``n % len(bots)`` places (``games`` is then
    ``len(seeds) * len(bots)``). ``bot_seed`` seeds the house bots' own
    randomness for a reproducible experiment (match ``n``, seat ``s``: ``bot_seed + n * 7919 + s``),
    chosen by the caller apart from ``seed``; ``None`` gives every instance a fresh seed.

    Raises:
        StartError: a bot or the game config is refused.
    """
    sink: ResultSink = FileResultSink(out) if out else MemoryResultSink()
    referee = Referee(tokens=MemoryTokenStore(), sink=sink)
    tc = (time_control or defaults_for(game_name)).to_proto()
    names = short_names(bots)
    tallies = [BotTally(n) for n in names]
    replays: list[Replay] = []
    started = time.monotonic()
    gate = asyncio.Semaphore(max(1, parallel))
    done = 0

    if seeds is not None:
        games = len(seeds) * len(bots)

    async def one(n: int) -> None:
        nonlocal done
        order = [(n + k) % len(bots) for k in range(len(bots))]  # bot index per seat
        match_seed = seed + n if seeds is None else seeds[n // len(bots)]
        own = None if bot_seed is None else [bot_seed + n * 7919 + seat for seat in range(len(order))]
        async with gate:
            replay = await run_match(
                referee,
                game_name,
                [bots[b] for b in order],
                [names[b] for b in order],
                seed=match_seed,
                match_id=f"play-{seed}-{n}" if seeds is None else f"practice-{match_seed}-{n % len(bots)}",
                time_control=tc,
                config=config,
                bot_seeds=own,
            )
        if replay is not None and replay.outcome is not None:
            replays.append(replay)
            o = replay.outcome
            for seat, b in enumerate(order):
                t = tallies[b]
                t.games += 1
                t.rank_sum += o.ranks[seat]
                if o.is_draw:
                    t.draws += 1
                elif o.ranks[seat] == 1:
                    t.wins += 1
                else:
                    t.losses += 1
            for inc in replay.incidents:
                t = tallies[order[inc.seat]]
                t.incidents[inc.kind] = t.incidents.get(inc.kind, 0) + 1
        done += 1
        if progress is not None:
            progress_bar(progress, done, games, started)

    await asyncio.gather(*(one(n) for n in range(games)))
    replays.sort(key=lambda r: str(r.meta.get("match_id", "")))
    return Series(tallies, replays, time.monotonic() - started)


def result_table(series: Series) -> str:
    """Returns the tallies as a text table."""
    rows = [f"{'bot':<32} {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6} {'avg rank':>8}  incidents"]
    for t in series.tallies:
        avg = t.rank_sum / t.games if t.games else 0.0
        inc = ", ".join(f"{k} {v}" for k, v in sorted(t.incidents.items())) or "-"
        rows.append(f"{t.name:<32} {t.games:>5} {t.wins:>5} {t.draws:>5} {t.losses:>6} {avg:>8.2f}  {inc}")
    rows.append(f"{len(series.replays)} matches in {series.seconds:.1f} s")
    return "\n".join(rows)


def practice_table(series: Series) -> str:
    """Returns, per practice seed, each bot's rank in every seat it held (one column per bot)."""
    names = [t.name for t in series.tallies]
    by_seed: dict[int, dict[str, list[str]]] = {}
    for replay in series.replays:
        if replay.outcome is None:
            continue
        cell = by_seed.setdefault(replay.seed, {n: [] for n in names})
        for seat, name in enumerate(replay.seats):
            cell.setdefault(name, []).append(f"{replay.outcome.ranks[seat]}@{seat}")
    width = max(12, *(len(n) for n in names))
    rows = [f"{'seed':>6}  " + "  ".join(f"{n:<{width}}" for n in names)]
    for s in sorted(by_seed):
        cells = [" ".join(sorted(by_seed[s][n], key=lambda x: x[-1])) for n in names]
        rows.append(f"{s:>6}  " + "  ".join(f"{c:<{width}}" for c in cells))
    rows.append("each cell: rank@seat for every seat rotation of that deal (rank 1 is first)")
    return "\n".join(rows)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl play``."""
    p = subparsers.add_parser("play", help="play local bots against each other through the referee")
    p.add_argument("bots", nargs="+", metavar="BOT", help="house bot name (random, heuristic...) or module:Class")
    p.add_argument("--game", required=True, help="game name (or module:Class of a Game)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first match; match n uses seed + n")
    p.add_argument(
        "--bot-seed",
        type=int,
        default=None,
        help="seed of the house bots' own randomness, to repeat a run (default: fresh; never derived from --seed)",
    )
    p.add_argument("--games", type=int, default=1, help="number of matches")
    p.add_argument(
        "--practice",
        action="store_true",
        help="play the practice suite: the fixed public seeds, each with every seat rotation; results per seed",
    )
    p.add_argument("--out", type=Path, help="directory to write replays into")
    p.add_argument("--parallel", type=int, default=4, help="matches run at once")
    p.add_argument("--decision-time", type=float, help="free seconds per decision (default: the game's)")
    p.add_argument("--bank-time", type=float, help="bank seconds per seat (default: the game's)")
    p.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    """Runs ``brawl play``; returns 2 on a bad game or bot."""
    try:
        game = resolve_game(args.game)
    except (UnknownGameError, ImportError, AttributeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    tc = defaults_for(game.info.name)
    if args.decision_time is not None or args.bank_time is not None:
        tc = TimeSettings(
            decision_time=args.decision_time if args.decision_time is not None else tc.decision_time,
            bank_time=args.bank_time if args.bank_time is not None else tc.bank_time,
            max_overrun=tc.max_overrun,
            max_strikes=tc.max_strikes,
            reconnect_grace=tc.reconnect_grace,
            max_rtt_credit=tc.max_rtt_credit,
        )
    if len(args.bots) not in game.info.seat_counts:
        print(f"error: {game.info.name} takes {game.info.seats_text()} bots, got {len(args.bots)}", file=sys.stderr)
        return 2
    try:
        for spec in args.bots:  # every bot named loads before the first match: one clear line, no half-run series
            bot_factory(game.info.name, spec)
    except (UnknownHouseBotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    tune_gc()
    try:
        series = asyncio.run(
            play_series(
                game.info.name,
                args.bots,
                games=args.games,
                seed=args.seed,
                bot_seed=args.bot_seed,
                out=args.out,
                time_control=tc,
                parallel=args.parallel,
                progress=sys.stderr,
                seeds=PRACTICE_SEEDS if args.practice else None,
            )
        )
    except (StartError, UnknownHouseBotError, ImportError, AttributeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result_table(series))
    if args.practice:
        print(practice_table(series))
    if args.out:
        print(f"replays in {args.out}")
    return 0
