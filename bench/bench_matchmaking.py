"""Matchmaking by information against today's scheduler: how fast a new version finds its place.

A simulated week of a busy ladder where matches, not bots, are scarce: ``--bots`` bots with true
Elo strengths drawn from N(1500, 200), one ``make_matches`` call every 10 minutes with every bot
free, of which only the first ``--tables`` tables are played (the ones the most urgent bots open:
the referees' capacity). Results are drawn from the true strengths (a duel by the Elo chance, a
pod by performance = strength + N(0, 250)) and rated by ``ladder.history.rate_game``; the
published rating is the Elo the scheduler sees. Every 12 hours a bot is replaced by a new version
whose true strength moves 200-400 points up or down from its parent's.

Per scheduler (``preference="closeness"``, today's, and ``"information"``), on the same week
(same bots, same new versions, same seeds): the ladder matches played from a new version's
arrival until its published rank is within one place of its true rank, and the mean over the
week of every bot's |published rank - true rank|. Averaged over ``--runs`` weeks.

    python -m bench.bench_matchmaking [--bots 16] [--tables 2] [--runs 4]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta

from ladder import elo
from ladder.history import VersionRating, prior, rate_game
from ladder.ids import BotId, BotVersionId, GameName, MatchId
from ladder.matchmaking import MatchmakingConfig, candidate_from_rating, make_matches
from ladder.results import GameResult

START = datetime(2026, 1, 5, tzinfo=UTC)
CALL = timedelta(minutes=10)
WEEK_CALLS = 7 * 24 * 6
ARRIVAL_CALLS = 12 * 6
GAME = GameName("sim")


def ranks_by(values: dict[BotId, float]) -> dict[BotId, int]:
    order = sorted(values, key=lambda b: -values[b])
    return {b: i for i, b in enumerate(order)}


def week(preference: str, sizes: tuple[int, ...], bots: int, tables: int, seed: int) -> tuple[list[int], float]:
    """One simulated week; returns the matches each new version took to be placed, and the mean rank error."""
    world = random.Random(seed)  # strengths and new versions: the same for both schedulers
    outcomes = random.Random(seed + 1)
    scheduler = random.Random(seed + 2)
    config = MatchmakingConfig(table_sizes=sizes, preference=preference, rematch_patience=timedelta(0))
    ids = [BotId(f"b{i}") for i in range(bots)]
    strength = {b: world.gauss(1500.0, 200.0) for b in ids}
    version = {b: BotVersionId(f"{b}v0") for b in ids}
    parents: dict[BotVersionId, BotVersionId] = {}
    current: dict[BotVersionId, VersionRating] = {}
    last = dict.fromkeys(ids, START)
    # A settled ladder to start from: a warm-up of uniformly drawn tables, the same for both.
    warm = random.Random(seed + 3)
    played = 0
    for i in range(60 * bots):
        table = warm.sample(ids, sizes[0])
        play(table, version, strength, current, parents, warm, START - timedelta(days=2) + i * timedelta(seconds=30))
    pending: dict[BotId, int] = {}
    placed: list[int] = []
    errors: list[float] = []
    for call in range(WEEK_CALLS):
        now = START + call * CALL
        if call % ARRIVAL_CALLS == ARRIVAL_CALLS // 2:
            bot = world.choice(ids)
            new = BotVersionId(f"{bot}v{call}")
            parents[new] = version[bot]
            version[bot] = new
            strength[bot] += world.choice((-1, 1)) * world.uniform(200.0, 400.0)
            if bot in pending:  # replaced before it was placed: counted as not placed this week
                pending.pop(bot)
            pending[bot] = played
        candidates = [candidate_from_rating(rating_of(version[b], current, parents), b, 1, last[b], now) for b in ids]
        by_version = {version[b]: b for b in ids}
        scheduled = make_matches(candidates, [], now, scheduler, config)
        for match in [m for m in scheduled if m.table < tables]:
            table = [by_version[v] for v in match.seats]
            play(table, version, strength, current, parents, outcomes, now)
            played += 1
            for b in table:
                last[b] = now + CALL
        published = ranks_by({b: rating_of(version[b], current, parents).elo for b in ids})
        true = ranks_by(strength)
        errors.append(statistics.mean(abs(published[b] - true[b]) for b in ids))
        for bot, since in list(pending.items()):
            if current.get(version[bot]) is not None and abs(published[bot] - true[bot]) <= 1:
                placed.append(played - since)
                pending.pop(bot)
    return placed, statistics.mean(errors)


def rating_of(
    v: BotVersionId, current: dict[BotVersionId, VersionRating], parents: dict[BotVersionId, BotVersionId]
) -> VersionRating:
    return current.get(v) or prior(v, GAME, current, parents)


def play(
    table: list[BotId],
    version: dict[BotId, BotVersionId],
    strength: dict[BotId, float],
    current: dict[BotVersionId, VersionRating],
    parents: dict[BotVersionId, BotVersionId],
    rng: random.Random,
    when: datetime,
) -> None:
    if len(table) == 2:
        a_wins = rng.random() < elo.expected_score(strength[table[0]], strength[table[1]])
        ranks: tuple[int, ...] = (1, 2) if a_wins else (2, 1)
    else:
        perf = [strength[b] + rng.gauss(0.0, 250.0) for b in table]
        order = sorted(range(len(table)), key=lambda i: -perf[i])
        ranks = tuple(order.index(i) + 1 for i in range(len(table)))
    seats = tuple(version[b] for b in table)
    result = GameResult(MatchId(f"m{when.timestamp()}-{seats}"), GAME, seats, ranks, when)
    for new in rate_game(result, current, parents).ratings:
        current[new.version] = new


def main(argv: list[str] | None = None) -> int:
    """Runs both schedulers on the same weeks and prints the figures; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--tables", type=int, default=2, help="tables played per call (default 2)")
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    print(
        f"{args.bots} bots, a call every 10 min for a week, {args.tables} tables played per call, "
        f"a new version every 12 h; {args.runs} weeks per row"
    )
    print("| Shape | Scheduler | New versions placed | Matches to place (median / mean) | Mean rank error |")
    print("|---|---|---|---|---|")
    for label, sizes in (("duel", (2,)), ("4-player pod", (4,))):
        for preference in ("closeness", "information"):
            placed: list[int] = []
            errors = []
            arrivals = 0
            for run in range(args.runs):
                got, error = week(preference, sizes, args.bots, args.tables, 7919 * run + len(sizes))
                placed += got
                errors.append(error)
                arrivals += WEEK_CALLS // ARRIVAL_CALLS
            print(
                f"| {label} | {preference} | {len(placed)} of {arrivals} | "
                f"{statistics.median(placed):.0f} / {statistics.mean(placed):.1f} | {statistics.mean(errors):.2f} |"
            )
    print(f"\n{time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
