"""``brawl league``: a local rated league of an author's bots through a local referee, the ladder's offline twin.

    brawl league mybot:MyBot v1=mybot_v1:MyBot heuristic "node examples/node-bot/bot.js" \\
        --game scrumbrawl --game superfantasybrawl --pairs 4 --out league/

Entrants, in any mix (``NAME=`` in front names one; otherwise the class, house bot or program names it):

- ``module:Class``: a Python SDK class, looked up in the current folder too, played in-process;
- a house bot: ``random``, ``heuristic`` or ``house:NAME``, played in-process;
- a **command** (any spec holding a space, or starting with ``./`` or ``/``): a bot of another
  language. It is started once, as ``COMMAND --server 127.0.0.1:PORT`` with its token in
  ``BRAWL_TOKEN`` (the contract of hosted executables, docs/hosted-bots.md), and connects to a
  referee the league runs on a free loopback port; it plays one league match at a time.

Format: ``round-robin`` (every pairing) or ``gauntlet`` (the first entrant against each other one).
Every pairing plays ``--pairs`` mirrored pairs per game: pair ``k`` is two one-on-one matches on
the seed ``seed + k``, each entrant in seat 0 once, so every pairing meets the same deals from
both sides. Match ids are opaque, so no bot learns a seed.

Ratings come from the ladder's Glicko-2 (:func:`ladder.glicko2.rate`): each game's league is one
rating period from the default start, so a rating is the league's performance against the field,
independent of match order, and its deviation (RD) says how sure it is. The table shows, per
game, rating, RD, games, wins, draws, losses and score, then the head-to-head scores. Replays go
to ``--out`` with ``league.json``, which lists every match (game, seats, seed, match id,
outcome) and the table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, TextIO

from common.seeding import new_seed
from ladder.glicko2 import Glicko2Rating, rate
from referee.core.contract import Outcome
from referee.core.ids import BotId
from referee.core.registry import UnknownGameError
from referee.core.replay import Replay
from referee.play import bot_factory, progress_bar, resolve_game, short_names
from referee.protocol.timecontrol import defaults_for
from referee.sdk.house import UnknownHouseBotError
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import Referee, StartError
from referee.server.service import RefereeServer, create_server
from referee.server.sinks import FileResultSink, MemoryResultSink, ResultSink
from referee.server.state import SeatSpec

FORMATS = ("round-robin", "gauntlet")
CONNECT_TIMEOUT = 60.0
"""Seconds a command bot has to connect after it is started."""


class LeagueError(ValueError):
    """A league that cannot run: the message says why."""


@dataclass
class Entrant:
    """One bot of the league."""

    name: str
    spec: str
    kind: str
    """``python``, ``house`` or ``command``."""
    process: subprocess.Popen[bytes] | None = None
    lock: asyncio.Lock | None = None


@dataclass
class MatchRecord:
    """One played match, as ``league.json`` lists it."""

    game: str
    seats: list[str]
    seed: int
    match_id: str
    ranks: list[int]
    draw: bool
    reason: str


@dataclass
class Standing:
    """One entrant's line of a game's table."""

    name: str
    rating: Glicko2Rating
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


@dataclass
class League:
    """The result of ``brawl league``."""

    entrants: list[str]
    games: list[str]
    matches: list[MatchRecord] = field(default_factory=list)
    tables: dict[str, list[Standing]] = field(default_factory=dict)
    head_to_head: dict[str, dict[tuple[str, str], list[float]]] = field(default_factory=dict)
    """Per game, ``(a, b)`` -> ``[a's points, games]``."""
    seconds: float = 0.0


def parse_entrant(text: str) -> tuple[str, str, str]:
    """Returns ``(name, spec, kind)`` for one entrant argument (``NAME=`` optional)."""
    name, eq, rest = text.partition("=")
    if eq and name and " " not in name and ":" not in name and "/" not in name:
        text = rest
    else:
        name = ""
    if " " in text.strip() or text.startswith(("./", "/")):
        kind = "command"
        default = Path(shlex.split(text)[-1] if text.strip() else text).name
    elif ":" in text and not text.startswith("house:"):
        kind = "python"
        default = ""
    else:
        kind = "house"
        text = text.removeprefix("house:")
        default = ""
    return name or default, text, kind


def schedule(n: int, fmt: str) -> list[tuple[int, int]]:
    """The pairings of ``n`` entrants: every pair (round robin) or the first against each other (gauntlet)."""
    if fmt == "gauntlet":
        return [(0, j) for j in range(1, n)]
    return list(combinations(range(n), 2))


def score_of(outcome: Outcome, seat: int) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss in a one-on-one match."""
    if outcome.is_draw:
        return 0.5
    return 1.0 if outcome.ranks[seat] == 1 else 0.0


def ratings(names: Sequence[str], records: Sequence[MatchRecord]) -> list[Standing]:
    """The Glicko-2 table of one game's matches: one rating period from the default start, best first."""
    start = Glicko2Rating()
    games: dict[str, list[tuple[Glicko2Rating, float]]] = {n: [] for n in names}
    rows = {n: Standing(n, start) for n in names}
    for r in records:
        a, b = r.seats
        sa = 0.5 if r.draw else (1.0 if r.ranks[0] == 1 else 0.0)
        for me, score in ((a, sa), (b, 1.0 - sa)):
            games[me].append((start, score))
            row = rows[me]
            row.games += 1
            if score == 1.0:
                row.wins += 1
            elif score == 0.5:
                row.draws += 1
            else:
                row.losses += 1
    for n in names:
        rows[n].rating = rate(start, games[n]) if games[n] else start
    return sorted(rows.values(), key=lambda s: (-s.rating.rating, s.name))


async def _wait_connected(referee: Referee, entrant: Entrant, log: Path | None) -> None:
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while not any(s.identity.bot_id == entrant.name for s in referee.sessions.values()):
        proc = entrant.process
        where = f" (its output: {log})" if log else ""
        if proc is not None and proc.poll() is not None:
            raise LeagueError(
                f"{entrant.name}: {entrant.spec!r} exited with status {proc.returncode} before connecting{where}"
            )
        if time.monotonic() > deadline:
            raise LeagueError(f"{entrant.name}: {entrant.spec!r} did not connect within {CONNECT_TIMEOUT:g} s{where}")
        await asyncio.sleep(0.05)


async def run_league(
    entrants: Sequence[str],
    games: Sequence[str],
    *,
    fmt: str = "round-robin",
    pairs: int = 2,
    seed: int = 0,
    bot_seed: int | None = None,
    out: Path | None = None,
    parallel: int = 2,
    progress: TextIO | None = None,
) -> League:
    """Plays the league and returns its matches, tables and head-to-head scores.

    Raises:
        LeagueError: too few entrants, a repeated name, an unknown format, a command bot that
            does not connect.
        StartError: the referee refused a match.
    """
    if fmt not in FORMATS:
        raise LeagueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if pairs < 1:
        raise LeagueError(f"--pairs {pairs}: every pairing plays at least one mirrored pair")
    parsed = [parse_entrant(e) for e in entrants]
    if len(parsed) < 2:
        raise LeagueError("a league needs at least two entrants")
    auto = short_names([spec for _, spec, _ in parsed])
    people = [Entrant(name or auto[i], spec, kind) for i, (name, spec, kind) in enumerate(parsed)]
    names = [p.name for p in people]
    if len(set(names)) != len(names):
        raise LeagueError(f"two entrants share a name ({', '.join(names)}): name them with NAME=SPEC")
    for p in people:
        if p.kind != "command":
            for g in games:
                bot_factory(g, p.spec)  # a spec that cannot load is one clear line, before any match
    sink: ResultSink = FileResultSink(out) if out else MemoryResultSink()
    commands = [p for p in people if p.kind == "command"]
    server: RefereeServer | None = None
    if commands:
        tokens = MemoryTokenStore()
        server = create_server(
            "127.0.0.1:0", tokens=tokens, sink=sink, secret=secrets.token_urlsafe(32), internal_address="127.0.0.1:0"
        )
        await server.start()
        referee = server.referee
    else:
        referee = Referee(tokens=MemoryTokenStore(), sink=sink)
    league = League(names, list(games))
    started = time.monotonic()
    logs = (out / "logs") if out else None
    try:
        if server is not None:
            if logs:
                logs.mkdir(parents=True, exist_ok=True)
            for p in commands:
                token = tokens.issue(BotIdentity(BotId(p.name), p.name, games=frozenset(games)))
                log_path = logs / f"{p.name}.log" if logs else None
                output = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115 (the process keeps it)
                argv = [*shlex.split(p.spec), "--server", f"127.0.0.1:{server.port}"]
                try:
                    p.process = subprocess.Popen(
                        argv, env=dict(os.environ, BRAWL_TOKEN=token), stdout=output, stderr=subprocess.STDOUT
                    )
                except OSError as exc:
                    raise LeagueError(f"{p.name}: cannot start {p.spec!r}: {exc.strerror or exc}") from None
                p.lock = asyncio.Lock()
            for p in commands:
                await _wait_connected(referee, p, logs / f"{p.name}.log" if logs else None)
        await _play_all(referee, league, people, games, fmt, pairs, seed, bot_seed, parallel, progress, started)
    finally:
        for p in commands:
            if p.process is not None and p.process.poll() is None:
                p.process.terminate()
        for p in commands:
            if p.process is not None:
                try:
                    p.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.process.kill()
                    p.process.wait()
        if server is not None:
            await server.stop(1.0)
    for g in games:
        records = [m for m in league.matches if m.game == g]
        league.tables[g] = ratings(names, records)
        h2h: dict[tuple[str, str], list[float]] = {}
        for m in records:
            a, b = m.seats
            sa = 0.5 if m.draw else (1.0 if m.ranks[0] == 1 else 0.0)
            for me, other, s in ((a, b, sa), (b, a, 1.0 - sa)):
                cell = h2h.setdefault((me, other), [0.0, 0.0])
                cell[0] += s
                cell[1] += 1
        league.head_to_head[g] = h2h
    league.seconds = time.monotonic() - started
    if out:
        (out / "league.json").write_text(json.dumps(to_json(league), indent=1), encoding="utf-8")
    return league


async def _play_all(
    referee: Referee,
    league: League,
    people: list[Entrant],
    games: Sequence[str],
    fmt: str,
    pairs: int,
    seed: int,
    bot_seed: int | None,
    parallel: int,
    progress: TextIO | None,
    started: float,
) -> None:
    jobs = [(g, i, j, k) for g in games for i, j in schedule(len(people), fmt) for k in range(pairs)]
    total = 2 * len(jobs)
    done = 0
    gate = asyncio.Semaphore(max(1, parallel))

    async def one_match(game: str, seats: list[Entrant], match_seed: int, own: list[int] | None) -> MatchRecord:
        tc = defaults_for(game).to_proto()
        local: dict[int, Callable[[], Any]] = {}
        specs = []
        for s, p in enumerate(seats):
            if p.kind == "command":
                specs.append(SeatSpec(bot_id=BotId(p.name), name=p.name))
            else:
                local[s] = bot_factory(game, p.spec, None if own is None else own[s])[0]
                specs.append(SeatSpec(name=p.name))
        match_id = f"league-{secrets.token_hex(8)}"
        locks = sorted((p for p in seats if p.lock is not None), key=lambda p: p.name)
        async with contextlib.AsyncExitStack() as stack:
            for p in locks:
                assert p.lock is not None
                await stack.enter_async_context(p.lock)
            runner = referee.start_match(
                game=game,
                seats=specs,
                seed=match_seed,
                time_control=tc,
                match_id=match_id,
                join_timeout=CONNECT_TIMEOUT,
                local_factories=local,
                threaded_local=any(p.kind == "python" for p in seats),
            )
            replay: Replay | None = await runner.wait()
        if replay is None or replay.outcome is None:
            raise LeagueError(
                f"match {match_id} ({game}: {seats[0].name} against {seats[1].name}) ended without an outcome"
            )
        o = replay.outcome
        return MatchRecord(game, [p.name for p in seats], match_seed, match_id, list(o.ranks), o.is_draw, o.reason)

    async def pair(game: str, i: int, j: int, k: int) -> None:
        nonlocal done
        a, b = people[i], people[j]
        own = None if bot_seed is None else [bot_seed + k * 7919 + s for s in (0, 1)]
        async with gate:
            for seats in ([a, b], [b, a]):  # the twins share a deal, one after the other
                league.matches.append(await one_match(game, seats, seed + k, own))
                done += 1
                if progress is not None:
                    progress_bar(progress, done, total, started)

    await asyncio.gather(*(pair(*job) for job in jobs))


def to_json(league: League) -> dict[str, Any]:
    """``league.json``: the matches, each game's table and head-to-head."""
    return {
        "entrants": league.entrants,
        "games": league.games,
        "matches": [m.__dict__ for m in league.matches],
        "tables": {
            g: [
                {
                    "bot": s.name,
                    "rating": round(s.rating.rating, 1),
                    "deviation": round(s.rating.deviation, 1),
                    "games": s.games,
                    "wins": s.wins,
                    "draws": s.draws,
                    "losses": s.losses,
                    "score": round(s.score, 4),
                }
                for s in rows
            ]
            for g, rows in league.tables.items()
        },
        "head_to_head": {
            g: [{"bot": a, "against": b, "points": v[0], "games": int(v[1])} for (a, b), v in sorted(h.items())]
            for g, h in league.head_to_head.items()
        },
    }


def table_text(league: League) -> str:
    """The final tables and head-to-head grids as text."""
    lines = []
    width = max(12, *(len(n) for n in league.entrants))
    for g in league.games:
        lines.append(f"{g}: {sum(1 for m in league.matches if m.game == g)} matches")
        lines.append(
            f"  {'#':>2} {'bot':<{width}} {'rating':>7} {'+/- RD':>7} {'games':>5} {'wins':>5} {'draws':>5} "
            f"{'losses':>6} {'score':>6}"
        )
        for n, s in enumerate(league.tables[g], 1):
            lines.append(
                f"  {n:>2} {s.name:<{width}} {s.rating.rating:>7.0f} {s.rating.deviation:>7.0f} {s.games:>5} "
                f"{s.wins:>5} {s.draws:>5} {s.losses:>6} {s.score:>6.3f}"
            )
        order = [s.name for s in league.tables[g]]
        lines.append("  head to head (row's points / games against column):")
        col = max(9, *(len(c) for c in order))
        lines.append(f"  {'':<{width}} " + " ".join(f"{c:>{col}}" for c in order))
        h2h = league.head_to_head[g]
        for r in order:
            cells = []
            for c in order:
                v = h2h.get((r, c))
                cells.append(f"{'-' if r == c or v is None else f'{v[0]:g}/{v[1]:g}':>{col}}")
            lines.append(f"  {r:<{width}} " + " ".join(cells))
        lines.append("")
    lines.append(f"{len(league.matches)} matches in {league.seconds:.1f} s")
    return "\n".join(lines)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl league``."""
    p = subparsers.add_parser(
        "league",
        help="a local rated league of your bots (Python classes, house bots, commands of other languages)",
        description=(
            "Plays a round robin (or a gauntlet of the first entrant against the others) of one-on-one mirrored "
            "pairs through a local referee, for each --game, and prints a Glicko-2 table with deviations and the "
            "head-to-head scores. An entrant is module:Class, a house bot (random, heuristic, house:NAME) or a "
            "command of another language (holding a space, or starting with ./ or /), run with --server and its "
            "token in BRAWL_TOKEN. NAME=SPEC names an entrant."
        ),
    )
    p.add_argument("entrants", nargs="+", metavar="BOT", help="module:Class, a house bot, or a command")
    p.add_argument("--game", action="append", required=True, help="a game to play (repeat for both)")
    p.add_argument("--format", choices=FORMATS, default="round-robin", help="pairings (default %(default)s)")
    p.add_argument("--pairs", type=int, default=2, help="mirrored pairs per pairing and game (2 matches each)")
    p.add_argument("--seed", type=int, default=None, help="seed of pair 0 (pair k: seed + k; default: fresh, printed)")
    p.add_argument("--bot-seed", type=int, default=None, help="the house bots' own seed, to repeat a run exactly")
    p.add_argument("--out", type=Path, help="directory for the replays, league.json and the command bots' logs")
    p.add_argument("--parallel", type=int, default=2, help="pairs played at once")
    p.set_defaults(func=cmd_league)


def cmd_league(args: argparse.Namespace) -> int:
    """Runs ``brawl league``; returns 2 when it cannot run, with the reason."""
    try:
        games = []
        for g in args.game:
            game = resolve_game(g)
            if 2 not in game.info.seat_counts:
                raise LeagueError(f"{game.info.name} has no one-on-one matches")
            if game.info.name not in games:  # a game named twice is played once
                games.append(game.info.name)
    except (LeagueError, UnknownGameError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seed = new_seed() >> 2 if args.seed is None else args.seed
    if args.seed is None:
        print(f"seeds {seed}.. (repeat with --seed {seed})", file=sys.stderr)
    try:
        league = asyncio.run(
            run_league(
                args.entrants,
                games,
                fmt=args.format,
                pairs=args.pairs,
                seed=seed,
                bot_seed=args.bot_seed,
                out=args.out,
                parallel=args.parallel,
                progress=sys.stderr,
            )
        )
    except (LeagueError, StartError, UnknownHouseBotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table_text(league))
    if args.out:
        print(f"replays and league.json in {args.out}")
    return 0
