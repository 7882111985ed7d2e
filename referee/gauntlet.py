"""``brawl bot gauntlet NEW --against OLD``: a new version against its parent, until a sequential test decides.

    brawl bot gauntlet mybot:MyBot --against house:heuristic --game scrumbrawl --budget 200

The two bots play **mirrored pairs**: pair ``k`` is two matches on one seed, ``seed + k``, NEW in
seat 0 and then in seat 1, so both meet the same deal from both sides. The second match of a pair
starts only when the first has ended: a twin never runs while its pair is running (a bot that
watched one could otherwise play the other knowing the deal). After each pair the SPRT of
:mod:`ladder.sprt` (pentanomial scoring, fishtest's method) is updated, in pair order whatever
order the pairs end in; the run stops at the first pair that crosses a bound (better, worse) or
when the budget of matches is spent (inconclusive). Pairs still running when the test decides are
finished but not counted, so a run's verdict does not depend on which match ended first. Match
ids are opaque (``gauntlet-`` and random hex): a bot learns neither the seed nor which twin it
plays; :class:`Pair` keeps which replay is which.

Matches are played in-process by the referee hub, as ``brawl play`` does (same clocks, strikes and
replays). A bot is a house-bot name (``random``, ``heuristic``, or ``house:NAME``) or
``module:Class`` (looked up in the current folder too). ``--bot-seed`` seeds the house bots' own
randomness (seat ``s`` of pair ``k``: ``bot_seed + k * 7919 + s``, the same in both twins) and is
never derived from the match seeds.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from common.seeding import new_seed
from ladder.errors import InvalidResultError
from ladder.sprt import SprtConfig, SprtState, elo_estimate, evaluate, pair_index
from referee.core.contract import Outcome
from referee.core.registry import UnknownGameError
from referee.play import bot_factory, resolve_game, run_match, short_names
from referee.protocol.timecontrol import defaults_for
from referee.sdk.house import UnknownHouseBotError
from referee.server.auth import MemoryTokenStore
from referee.server.hub import Referee, StartError
from referee.server.sinks import FileResultSink, MemoryResultSink, ResultSink


class GauntletError(ValueError):
    """A gauntlet that cannot run: the message says why (no parent, a budget below one pair...)."""


@dataclass
class Pair:
    """One mirrored pair: NEW's score in the match where it sat first, and in the one where it sat second."""

    index: int
    seed: int
    scores: tuple[float, float]
    match_ids: tuple[str, str]


@dataclass
class Gauntlet:
    """The result of a gauntlet run."""

    new: str
    old: str
    game: str
    budget: int
    config: SprtConfig
    state: SprtState
    pairs: list[Pair] = field(default_factory=list)
    uncounted: int = 0
    """Pairs that were running when the test decided: played, replays kept, not counted."""
    seconds: float = 0.0

    @property
    def matches(self) -> int:
        return 2 * len(self.pairs)


def house_name(spec: str) -> str:
    """``house:NAME`` as ``brawl play`` names house bots (``NAME``); other specs unchanged."""
    return spec.removeprefix("house:")


def check_request(new: str, old: str | None, budget: int) -> int:
    """Returns the number of pairs the budget allows; refuses, with the reason, what cannot run.

    Raises:
        GauntletError: no parent (``old`` missing), or a budget below one mirrored pair.
    """
    if not old:
        raise GauntletError(
            f"{new} has no parent version to play: name it with --against OLD (a module:Class or a house bot)"
        )
    if budget < 2:
        raise GauntletError(
            f"a budget of {budget} matches cannot hold one mirrored pair: give at least 2 (a pair is 2 matches)"
        )
    return budget // 2


def game_score(outcome: Outcome, seat: int) -> float:
    """Seat ``seat``'s score in a two-seat match: 1 for a win, 0.5 for a draw, 0 for a loss."""
    if outcome.is_draw:
        return 0.5
    return 1.0 if outcome.ranks[seat] == 1 else 0.0


async def run_gauntlet(
    game_name: str,
    new: str,
    old: str,
    *,
    budget: int,
    config: SprtConfig | None = None,
    seed: int = 0,
    bot_seed: int | None = None,
    out: Path | None = None,
    parallel: int = 2,
    progress: Callable[[SprtState, int], None] | None = None,
) -> Gauntlet:
    """Plays mirrored pairs of ``new`` against ``old`` until the SPRT decides or ``budget`` matches are spent.

    Raises:
        GauntletError: see :func:`check_request`; a match that ended without an outcome.
        StartError: the referee refused a match (a bot, the game's seat counts).
    """
    config = config or SprtConfig()
    total_pairs = check_request(new, old, budget)
    sink: ResultSink = FileResultSink(out) if out else MemoryResultSink()
    referee = Referee(tokens=MemoryTokenStore(), sink=sink)
    tc = defaults_for(game_name).to_proto()
    specs = [house_name(new), house_name(old)]
    names = short_names(specs)
    if names[0] == names[1]:
        names = [f"{names[0]} (new)", f"{names[1]} (old)"]
    started = time.monotonic()
    finished: dict[int, Pair] = {}
    counted: list[Pair] = []
    counts = [0, 0, 0, 0, 0]
    state = evaluate(counts, config)
    next_index = 0

    async def play_pair(k: int) -> Pair:
        scores = []
        match_ids = []
        for first in (0, 1):  # the twins, one after the other
            order = [0, 1] if first == 0 else [1, 0]  # spec index per seat
            own = None if bot_seed is None else [bot_seed + k * 7919 + s for s in (0, 1)]
            match_id = f"gauntlet-{secrets.token_hex(8)}"  # opaque: no seed, pair or twin a bot could read
            replay = await run_match(
                referee,
                game_name,
                [specs[i] for i in order],
                [names[i] for i in order],
                seed=seed + k,
                match_id=match_id,
                time_control=tc,
                bot_seeds=own,
            )
            if replay is None or replay.outcome is None:
                raise GauntletError(f"match {match_id} ended without an outcome")
            scores.append(game_score(replay.outcome, order.index(0)))
            match_ids.append(match_id)
        return Pair(k, seed + k, (scores[0], scores[1]), (match_ids[0], match_ids[1]))

    async def worker() -> None:
        nonlocal next_index, state
        while not state.decided and next_index < total_pairs:
            k = next_index
            next_index += 1
            finished[k] = await play_pair(k)
            while not state.decided and len(counted) in finished:  # count in pair order
                pair = finished[len(counted)]
                counted.append(pair)
                counts[pair_index(*pair.scores)] += 1
                state = evaluate(counts, config)
                if progress is not None:
                    progress(state, total_pairs)

    await asyncio.gather(*(worker() for _ in range(max(1, parallel))))
    return Gauntlet(
        new,
        old,
        game_name,
        budget,
        config,
        state,
        counted,
        uncounted=len(finished) - len(counted),
        seconds=time.monotonic() - started,
    )


def summary(result: Gauntlet) -> str:
    """The verdict and its evidence as text."""
    s = result.state
    if s.verdict == "better":
        why = f"LLR {s.llr:.2f} reached the upper bound {s.upper:.2f}"
    elif s.decided:
        why = f"LLR {s.llr:.2f} reached the lower bound {s.lower:.2f}"
    else:
        why = f"LLR {s.llr:.2f} stayed between {s.lower:.2f} and {s.upper:.2f} within the budget"
    lines = [
        f"gauntlet {result.new} against {result.old} ({result.game}): {s.verdict}",
        f"  {why} after {len(result.pairs)} mirrored pairs ({result.matches} matches of a budget of {result.budget})",
    ]
    if s.pairs:
        elo, half = elo_estimate(list(s.counts))
        lines.append(
            f"  pentanomial {list(s.counts)} (pairs scoring 0, 0.5, 1, 1.5, 2); score {s.score:.3f}; "
            f"Elo {elo:+.0f} +/- {half:.0f} (95%)"
        )
    c = result.config
    lines.append(f"  H0 elo {c.elo0:g}, H1 elo {c.elo1:g}, alpha {c.alpha:g}, beta {c.beta:g}")
    if result.uncounted:
        lines.append(f"  pairs running at the decision, played but not counted: {result.uncounted}")
    lines.append(f"  {result.seconds:.1f} s")
    return "\n".join(lines)


def _progress_line(out: TextIO) -> Callable[[SprtState, int], None]:
    def show(state: SprtState, total: int) -> None:
        width = 30
        filled = width * state.pairs // max(1, total)
        bar = "#" * filled + "." * (width - filled)
        out.write(f"\r[{bar}] {state.pairs}/{total} pairs  LLR {state.llr:+.2f} ({state.lower:.2f}, {state.upper:.2f})")
        if state.decided or state.pairs == total:
            out.write("\n")
        out.flush()

    return show


def add_parser(bot_actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl bot gauntlet`` under ``brawl bot``."""
    p = bot_actions.add_parser(
        "gauntlet",
        help="play a new version against its parent on mirrored pairs until an SPRT decides (local)",
        description=(
            "Plays NEW against OLD on mirrored seed pairs through a local referee, unrated, and runs a "
            "sequential probability ratio test with pentanomial scoring (fishtest's method) after each pair: "
            "better, worse, or inconclusive when the budget is spent first."
        ),
    )
    p.add_argument("new", metavar="NEW", help="the new version: module:Class or a house bot (house:NAME)")
    p.add_argument("--against", metavar="OLD", help="its parent: module:Class or a house bot (house:NAME)")
    p.add_argument("--game", required=True, help="the game (two seats)")
    p.add_argument("--budget", type=int, default=200, help="at most this many matches (2 per pair; default 200)")
    p.add_argument("--elo0", type=float, default=SprtConfig.elo0, help="H0's Elo difference (default %(default)s)")
    p.add_argument("--elo1", type=float, default=SprtConfig.elo1, help="H1's Elo difference (default %(default)s)")
    p.add_argument("--alpha", type=float, default=SprtConfig.alpha, help="false 'better' rate (default %(default)s)")
    p.add_argument("--beta", type=float, default=SprtConfig.beta, help="false 'worse' rate (default %(default)s)")
    p.add_argument("--seed", type=int, default=None, help="seed of pair 0 (pair k: seed + k; default: fresh, printed)")
    p.add_argument("--bot-seed", type=int, default=None, help="the house bots' own seed, to repeat a run exactly")
    p.add_argument("--out", type=Path, help="directory to write the replays into")
    p.add_argument("--parallel", type=int, default=2, help="pairs played at once (the twins of a pair never are)")
    p.set_defaults(func=cmd_gauntlet)


def cmd_gauntlet(args: argparse.Namespace) -> int:
    """Runs ``brawl bot gauntlet``; returns 2 when the request is refused, with the reason."""
    try:
        check_request(args.new, args.against, args.budget)
        config = SprtConfig(elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta)
        game = resolve_game(args.game)
        if 2 not in game.info.seat_counts:
            raise GauntletError(f"{game.info.name} has no two-seat matches; a gauntlet plays one bot against another")
        for spec in (args.new, args.against):
            bot_factory(game.info.name, house_name(spec))
    except (GauntletError, InvalidResultError, UnknownGameError, UnknownHouseBotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seed = new_seed() >> 2 if args.seed is None else args.seed  # room for seed + k below the seed range
    if args.seed is None:
        print(f"seeds {seed}.. (repeat with --seed {seed})", file=sys.stderr)
    try:
        result = asyncio.run(
            run_gauntlet(
                game.info.name,
                args.new,
                args.against,
                budget=args.budget,
                config=config,
                seed=seed,
                bot_seed=args.bot_seed,
                out=args.out,
                parallel=args.parallel,
                progress=_progress_line(sys.stderr),
            )
        )
    except (GauntletError, StartError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary(result))
    if args.out:
        print(f"replays in {args.out}")
    return 0
