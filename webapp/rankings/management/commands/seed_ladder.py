"""``seed_ladder``: fill the database with a large synthetic ladder for benchmarks and demos.

Creates authors, bots (one version each) spread over the registered product games, and finished
rated matches between random pairs with results drawn from the bots' hidden strengths; ratings
and the append-only history are computed with ``ladder.history.rate_game`` in match order and
stored through the same row builders ``rankings.services`` uses, then written in bulk, so
``brawl ratings verify`` passes on a seeded database. Matches carry no replay (the viewer needs real games; see
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

from ladder.elo import expected_score
from ladder.history import VersionRating, rate_game
from ladder.ids import BotVersionId
from referee.core.registry import shipped_game_names
from webapp.bots.models import Bot, BotVersion
from webapp.matches.models import Match, MatchSeat, MatchStatus, new_request_id
from webapp.rankings.mapping import CONFIG, apply_entry, game_result, history_row, parents_of
from webapp.rankings.models import Rating, RatingHistory

GAMES = shipped_game_names()
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
        game_of = {v.pk: b.game for b, v in zip(bots, versions, strict=True)}
        rows = {v.pk: Rating(bot_version_id=v.pk, game=game_of[v.pk]) for v in versions}
        current: dict[BotVersionId, VersionRating] = {}
        parents = parents_of(b.pk for b in bots)
        start_time = datetime.now(UTC) - timedelta(days=60)
        step = timedelta(days=60) / max(1, opts["matches"])
        done = 0
        while done < opts["matches"]:
            n = min(BATCH, opts["matches"] - done)
            matches, plans = [], []
            for k in range(n):
                game = GAMES[(done + k) % len(GAMES)]
                first, second = rng.sample(by_game[game], 2)
                p = expected_score(strength[first.pk], strength[second.pk])
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
                plans.append((first.pk, second.pk, ranks))
            with transaction.atomic():
                Match.objects.bulk_create(matches, batch_size=BATCH)
                # Every match publishes its seed commitment, as ``do_queue_match`` does (the ids exist only now).
                for m in matches:
                    m.commit_seed()
                Match.objects.bulk_update(matches, ["seed_commitment"], batch_size=BATCH)
                seats, history = [], []
                for m, (va, vb, ranks) in zip(matches, plans, strict=True):
                    result = game_result(m.pk, m.game, m.config, m.finished_at, [(va, ranks[0]), (vb, ranks[1])])
                    rated = rate_game(result, current, parents, CONFIG)
                    for seat, (rating, entry) in enumerate(zip(rated.ratings, rated.entries, strict=True)):
                        current[rating.version] = rating
                        apply_entry(rows[int(rating.version)], rating, entry, result)
                        history.append(history_row(entry))
                        seats.append(
                            MatchSeat(
                                match=m,
                                seat=seat,
                                bot_version_id=int(entry.version),
                                rank=entry.rank,
                                mean_latency_ms=rng.uniform(5, 80),
                            )
                        )
                MatchSeat.objects.bulk_create(seats, batch_size=BATCH)
                RatingHistory.objects.bulk_create(history, batch_size=BATCH)
            done += n
            self.stdout.write(f"{done} matches ({time.monotonic() - started:.0f}s)")
        Rating.objects.bulk_create(rows.values(), batch_size=BATCH)
        self.stdout.write(self.style.SUCCESS(f"seeded in {time.monotonic() - started:.0f}s"))
