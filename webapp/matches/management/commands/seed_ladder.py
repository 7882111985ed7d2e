"""``seed_ladder``: fill the database with a large synthetic ladder for benchmarks and demos.

Creates authors, bots (one version each) spread over the registered product games, and finished
rated matches between random pairs with results drawn from the bots' hidden strengths; ratings
and the append-only history are computed with the same ``ladder`` functions the services use, in
match order, then written in bulk. Matches carry no replay (the viewer needs real games; see
``tests/webapp/test_browser.py``). Not for production databases: it adds rows, it never deletes.

Usage: ``python -m django seed_ladder --bots 1000 --matches 100000 --settings=webapp.settings``
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from ladder.elo import expected_score, rating_changes
from ladder.glicko2 import Glicko2Rating, rate
from ladder.results import pairwise_score
from webapp.bots.models import Bot, BotVersion
from webapp.matches.models import Match, MatchSeat, MatchStatus, new_request_id
from webapp.rankings.models import Rating, RatingHistory
from webapp.rankings.services import K_SCHEDULE

GAMES = ["superfantasybrawl", "scrumbrawl"]
BATCH = 5000


class Command(BaseCommand):
    help = "Create a synthetic ladder: authors, bots, finished rated matches, ratings and history."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bots", type=int, default=1000)
        parser.add_argument("--matches", type=int, default=100_000)
        parser.add_argument("--authors", type=int, default=250)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--prefix", default="seed", help="name prefix, so several runs do not collide")

    def handle(self, *args: Any, **opts: Any) -> None:
        rng = random.Random(opts["seed"])
        started = time.monotonic()
        prefix = opts["prefix"]
        with transaction.atomic():
            users = User.objects.bulk_create(
                [User(username=f"{prefix}-author-{i}") for i in range(opts["authors"])], batch_size=BATCH
            )
            bots = Bot.objects.bulk_create(
                [
                    Bot(
                        owner=users[i % len(users)],
                        game=GAMES[i % len(GAMES)],
                        name=f"{prefix}-bot-{i}",
                        description="synthetic",
                        is_house=i < 4,
                    )
                    for i in range(opts["bots"])
                ],
                batch_size=BATCH,
            )
            versions = BotVersion.objects.bulk_create(
                [BotVersion(bot=b, number=1, notes="seeded") for b in bots], batch_size=BATCH
            )
            for b, v in zip(bots, versions, strict=True):
                b.latest_version = v
            Bot.objects.bulk_update(bots, ["latest_version"], batch_size=BATCH)
        self.stdout.write(f"{len(bots)} bots in {time.monotonic() - started:.1f}s")

        strength = {v.pk: rng.gauss(1500, 200) for v in versions}
        by_game: dict[str, list[BotVersion]] = {g: [] for g in GAMES}
        for b, v in zip(bots, versions, strict=True):
            by_game[b.game].append(v)
        state: dict[int, dict[str, Any]] = {
            v.pk: {
                "elo": 1500.0,
                "g": Glicko2Rating(),
                "games": 0,
                "w": 0,
                "l": 0,
                "d": 0,
                "peak": 1500.0,
                "last": None,
            }
            for v in versions
        }
        start_time = datetime.now(UTC) - timedelta(days=60)
        step = timedelta(days=60) / max(1, opts["matches"])
        done = 0
        while done < opts["matches"]:
            n = min(BATCH, opts["matches"] - done)
            matches, plans = [], []
            for k in range(n):
                game = GAMES[(done + k) % len(GAMES)]
                a, b = rng.sample(by_game[game], 2)
                p = expected_score(strength[a.pk], strength[b.pk])
                roll = rng.random()
                ranks = (1, 1) if abs(roll - p) < 0.03 else ((1, 2) if roll < p else (2, 1))
                when = start_time + step * (done + k)
                matches.append(
                    Match(
                        game=game,
                        seed=rng.getrandbits(62),
                        status=MatchStatus.FINISHED,
                        rated=True,
                        request_id=new_request_id(),
                        started_at=when,
                        finished_at=when,
                        outcome={"ranks": list(ranks), "termination": "victory", "reason": "seeded", "scores": []},
                    )
                )
                plans.append((a.pk, b.pk, ranks, when))
            with transaction.atomic():
                Match.objects.bulk_create(matches, batch_size=BATCH)
                seats, history = [], []
                for m, (va, vb, ranks, when) in zip(matches, plans, strict=True):
                    sa, sb = state[va], state[vb]
                    delta = rating_changes(
                        [sa["elo"], sb["elo"]], list(ranks), [K_SCHEDULE.k(sa["games"]), K_SCHEDULE.k(sb["games"])]
                    )
                    ga = rate(sa["g"], [(sb["g"], pairwise_score(ranks[0], ranks[1]))])
                    gb = rate(sb["g"], [(sa["g"], pairwise_score(ranks[1], ranks[0]))])
                    for seat, (v, s, d, g, rank) in enumerate(
                        ((va, sa, delta[0], ga, ranks[0]), (vb, sb, delta[1], gb, ranks[1]))
                    ):
                        seats.append(
                            MatchSeat(
                                match=m, seat=seat, bot_version_id=v, rank=rank, mean_latency_ms=rng.uniform(5, 80)
                            )
                        )
                        history.append(
                            RatingHistory(
                                match=m,
                                bot_version_id=v,
                                game=m.game,
                                elo_before=s["elo"],
                                elo_after=s["elo"] + d,
                                glicko_before=s["g"].rating,
                                glicko_after=g.rating,
                                rd_before=s["g"].deviation,
                                rd_after=g.deviation,
                                rank=rank,
                            )
                        )
                    for s, d, g, mine, theirs in (
                        (sa, delta[0], ga, ranks[0], ranks[1]),
                        (sb, delta[1], gb, ranks[1], ranks[0]),
                    ):
                        s["elo"] += d
                        s["g"] = g
                        s["games"] += 1
                        s["peak"] = max(s["peak"], s["elo"])
                        s["last"] = when
                        s["w" if mine < theirs else "l" if mine > theirs else "d"] += 1
                MatchSeat.objects.bulk_create(seats, batch_size=BATCH)
                RatingHistory.objects.bulk_create(history, batch_size=BATCH)
            done += n
            self.stdout.write(f"{done} matches ({time.monotonic() - started:.0f}s)")
        game_of = {v.pk: b.game for b, v in zip(bots, versions, strict=True)}
        Rating.objects.bulk_create(
            [
                Rating(
                    bot_version_id=v,
                    game=game_of[v],
                    elo=s["elo"],
                    glicko_rating=s["g"].rating,
                    glicko_rd=s["g"].deviation,
                    glicko_volatility=s["g"].volatility,
                    games=s["games"],
                    wins=s["w"],
                    losses=s["l"],
                    draws=s["d"],
                    last_played=s["last"],
                    peak_elo=s["peak"],
                )
                for v, s in state.items()
            ],
            batch_size=BATCH,
        )
        self.stdout.write(self.style.SUCCESS(f"seeded in {time.monotonic() - started:.0f}s"))
