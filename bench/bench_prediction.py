"""How well each rating system predicts, per table shape: simulated ladders of bots with known strengths.

For every table shape the ladder plays (duel, 3- and 4-player pods, 2v2), the bench simulates a
ladder of ``--bots`` bots whose true strengths are drawn from N(0, 1). A game gives every seat a
performance ``strength + N(0, 1)`` (a team's is the sum of its members'), ranks them by it, and
calls a duel drawn when the two performances are within 0.05 of each other (about 3 % draws).
Tables are drawn uniformly, so no system is helped by its own matchmaking.

Before each game every system predicts, for each pair of opposing sides, the chance that the
first finishes ahead of the second; after it, the game is rated. The systems:

- **Elo**: today's published rating, ``ladder.history`` (K 40 then 20, pods pairwise with K/(N-1),
  2v2 by team mean); the prediction is ``ladder.elo.expected_score`` of the (team mean) ratings.
- **Glicko-2**: the state ``ladder.history`` keeps beside Elo; the prediction is Glickman's
  expected score with ``g(sqrt(phi_a² + phi_b²))`` (team: the composite of ``glicko2.composite``).
- **OpenSkill PL**: ``ladder.plackett_luce`` as ``ladder.history`` keeps it (tau 0); the
  prediction is :func:`ladder.plackett_luce.first_chances` of the two sides (the model's own
  likelihood).
- **PL, library predict_win**: the same skills, predicted with the library's ``predict_win`` (a
  normal curve on the model's logistic scale), to show why the ladder does not use it.
- **OpenSkill BT**: the library's Bradley-Terry (full pairing) model with tau 0, for comparison
  only (the ladder does not keep it).

Reported per shape and system, averaged over ``--runs`` independent ladders: the log-loss and
Brier score of the predictions (ties count as half a win), over all ``--matches`` games, and the
Spearman and Kendall rank correlations between the system's rating (Elo, Glicko r, mu) and the
true strengths after 50, 200 and 1,000 games. The published rating per shape is the ladder's
system with the lowest log-loss. Deterministic: every run has its own seeded generator.

    python -m bench.bench_prediction [--bots 20] [--matches 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from openskill.models import BradleyTerryFull, BradleyTerryFullRating, PlackettLuceRating

from ladder import elo, glicko2
from ladder import plackett_luce as pl
from ladder.history import VersionRating, prior, rate_game
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult

START = datetime(2026, 1, 1, tzinfo=UTC)
GAME = GameName("sim")
CHECKPOINTS = (50, 200, 1000)
SYSTEMS = ("Elo", "Glicko-2", "OpenSkill PL", "PL, library predict_win", "OpenSkill BT")
LADDER_SYSTEMS = ("Elo", "Glicko-2", "OpenSkill PL")
"""The systems the ladder keeps: the published rating per shape is chosen among these."""
EDGE = 1e-12
"""Predictions are clipped to [EDGE, 1 - EDGE] for the log-loss."""


@dataclass(frozen=True, slots=True)
class Shape:
    """A table shape: seats and, for team games, the team of each seat."""

    name: str
    seats: int
    teams: tuple[int, ...] = ()


SHAPES = (Shape("duel", 2), Shape("3-player pod", 3), Shape("4-player pod", 4), Shape("2v2", 4, (0, 1, 0, 1)))


def play(strengths: Sequence[float], shape: Shape, rng: random.Random) -> tuple[int, ...]:
    """Ranks of one simulated game (1 best): performance = strength + N(0, 1), a team's summed."""
    perf = [s + rng.gauss(0.0, 1.0) for s in strengths]
    if shape.teams:
        team_perf = {t: sum(p for p, tt in zip(perf, shape.teams, strict=True) if tt == t) for t in set(shape.teams)}
        perf = [team_perf[t] for t in shape.teams]
    if shape.seats == 2 and abs(perf[0] - perf[1]) < 0.05:
        return (1, 1)
    order = sorted(range(len(perf)), key=lambda i: -perf[i])
    ranks = [0] * len(perf)
    for place, seat in enumerate(order):
        ranks[seat] = ranks[order[place - 1]] if place and perf[seat] == perf[order[place - 1]] else place + 1
    return tuple(ranks)


def sides(shape: Shape) -> list[list[int]]:
    """Seats per side: one per seat, or the two teams."""
    if not shape.teams:
        return [[i] for i in range(shape.seats)]
    return [[i for i, t in enumerate(shape.teams) if t == team] for team in sorted(set(shape.teams))]


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rho: the Pearson correlation of the ranks (ties get the mean rank)."""
    return pearson(ranks_of(xs), ranks_of(ys))


def ranks_of(xs: Sequence[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0
        i = j + 1
    return out


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 0.0


def kendall(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's tau-b."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator if denominator else 0.0


@dataclass(slots=True)
class Score:
    """Running prediction scores and the rank correlations at the checkpoints, for one system."""

    log_loss: float = 0.0
    brier: float = 0.0
    predictions: int = 0
    spearman: dict[int, float] = field(default_factory=dict)
    kendall: dict[int, float] = field(default_factory=dict)

    def add(self, p: float, outcome: float) -> None:
        q = min(1.0 - EDGE, max(EDGE, p))
        self.log_loss -= outcome * math.log(q) + (1.0 - outcome) * math.log(1.0 - q)
        self.brier += (p - outcome) ** 2
        self.predictions += 1


def simulate(shape: Shape, bots: int, matches: int, seed: int) -> dict[str, Score]:
    """One simulated ladder: every system predicts each game before rating it."""
    rng = random.Random(seed)
    strength = [rng.gauss(0.0, 1.0) for _ in range(bots)]
    ids = [BotVersionId(f"b{i}") for i in range(bots)]
    current: dict[BotVersionId, VersionRating] = {v: prior(v, GAME, {}, {}) for v in ids}
    bt_model = BradleyTerryFull(tau=0.0)
    bt: dict[BotVersionId, BradleyTerryFullRating] = {v: bt_model.rating() for v in ids}
    scores = {name: Score() for name in SYSTEMS}
    groups = sides(shape)

    for m in range(1, matches + 1):
        chosen = rng.sample(range(bots), shape.seats)
        seats = [ids[i] for i in chosen]
        ranks = play([strength[i] for i in chosen], shape, rng)
        pairs = [(groups[x], groups[y]) for x in range(len(groups)) for y in range(x + 1, len(groups))]
        outcomes = []
        for a, b in pairs:
            ra, rb = ranks[a[0]], ranks[b[0]]
            outcomes.append(1.0 if ra < rb else 0.5 if ra == rb else 0.0)
        rated = [current[v] for v in seats]

        def elo_chance(a: list[int], b: list[int], rated: list[VersionRating] = rated) -> float:
            mean_a = sum(rated[i].elo for i in a) / len(a)
            mean_b = sum(rated[i].elo for i in b) / len(b)
            return elo.expected_score(mean_a, mean_b)

        def glicko_chance(a: list[int], b: list[int], rated: list[VersionRating] = rated) -> float:
            return glicko2.win_chance(
                glicko2.composite([rated[i].glicko for i in a]), glicko2.composite([rated[i].glicko for i in b])
            )

        def pl_chance(a: list[int], b: list[int], rated: list[VersionRating] = rated) -> float:
            skills = [rated[i].skill for i in a + b]
            return pl.first_chances(skills, teams=[0] * len(a) + [1] * len(b))[0]

        def library_chance(a: list[int], b: list[int], rated: list[VersionRating] = rated) -> float:
            teams = [[PlackettLuceRating(rated[i].skill.mu, rated[i].skill.sigma) for i in side] for side in (a, b)]
            return pl.model().predict_win(teams)[0]

        def bt_chance(a: list[int], b: list[int], seats: list[BotVersionId] = seats) -> float:
            return bt_model.predict_win([[bt[seats[i]] for i in a], [bt[seats[i]] for i in b]])[0]

        systems: tuple[tuple[str, Callable[[list[int], list[int]], float]], ...] = (
            ("Elo", elo_chance),
            ("Glicko-2", glicko_chance),
            ("OpenSkill PL", pl_chance),
            ("OpenSkill BT", bt_chance),
            ("PL, library predict_win", library_chance),
        )
        for name, chance in systems:
            for (a, b), outcome in zip(pairs, outcomes, strict=True):
                scores[name].add(chance(a, b), outcome)

        result = GameResult(MatchId(f"m{m}"), GAME, tuple(seats), ranks, START + timedelta(minutes=m), shape.teams)
        for new in rate_game(result, current).ratings:
            current[new.version] = new
        bt_teams = [[bt[seats[i]] for i in g] for g in groups]
        for g, team in zip(groups, bt_model.rate(bt_teams, ranks=[float(ranks[g[0]]) for g in groups]), strict=True):
            for i, player in zip(g, team, strict=True):
                bt[seats[i]] = player

        if m in CHECKPOINTS:
            published = {
                "Elo": [current[v].elo for v in ids],
                "Glicko-2": [current[v].glicko.rating for v in ids],
                "OpenSkill PL": [current[v].skill.mu for v in ids],
                "OpenSkill BT": [bt[v].mu for v in ids],
                "PL, library predict_win": [current[v].skill.mu for v in ids],
            }
            for name, values in published.items():
                scores[name].spearman[m] = spearman(values, strength)
                scores[name].kendall[m] = kendall(values, strength)
    return scores


def main(argv: list[str] | None = None) -> int:
    """Runs the bench and prints one table per shape; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    checkpoints = [c for c in CHECKPOINTS if c <= args.matches]
    print(
        f"{args.bots} bots, strengths N(0, 1), performance noise N(0, 1); {args.matches} games per ladder, "
        f"{args.runs} ladders per shape; log-loss and Brier per pairwise prediction (coin: 0.693, 0.250)"
    )
    head = " | ".join(f"rho / tau @{c}" for c in checkpoints)
    for shape_index, shape in enumerate(SHAPES):
        runs = [simulate(shape, args.bots, args.matches, 1000 * shape_index + r) for r in range(args.runs)]
        print(f"\n{shape.name}\n| System | log-loss | Brier | {head} |\n|---|---|---|" + "---|" * len(checkpoints))
        mean_loss = {}
        for name in SYSTEMS:
            n = sum(run[name].predictions for run in runs)
            loss = sum(run[name].log_loss for run in runs) / n
            brier = sum(run[name].brier for run in runs) / n
            mean_loss[name] = loss
            cells = " | ".join(
                f"{sum(run[name].spearman[c] for run in runs) / len(runs):.3f} / "
                f"{sum(run[name].kendall[c] for run in runs) / len(runs):.3f}"
                for c in checkpoints
            )
            print(f"| {name} | {loss:.4f} | {brier:.4f} | {cells} |")
        best = min(LADDER_SYSTEMS, key=lambda name: mean_loss[name])
        print(f"best of the ladder's systems by log-loss: {best}")
    print(f"\n{time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
