"""Helpers shared by the workers' tests: bots with tokens, counts and the exactly-once invariants."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count

from tests.workers.conftest import GAME
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.matches.models import Match, MatchStatus
from webapp.rankings.models import Rating, RatingHistory


@dataclass
class TestBot:
    """A bot row, its version id and its token."""

    __test__ = False  # not a test class, whatever pytest thinks of the name

    bot: Bot
    version_id: int
    token: str
    policy: str


def make_bots(policies: list[tuple[str, str]], owner: str = "house") -> list[TestBot]:
    """Registers one house bot per ``(name, "module:Class")`` and returns them with their tokens."""
    user, _ = User.objects.get_or_create(username=owner)
    out = []
    for name, policy in policies:
        bot, issued = bot_services.do_create_bot(user, GAME, name, is_house=True)
        bot.refresh_from_db()
        assert bot.latest_version_id is not None
        out.append(TestBot(bot, bot.latest_version_id, issued.token, policy))
    return out


def farm(bots: list[TestBot], max_matches: int) -> list[dict[str, object]]:
    """Returns the bot farm spec of ``bots``."""
    return [{"bot": b.policy, "token": b.token, "max_matches": max_matches} for b in bots]


def finished_rated() -> int:
    """Returns how many rated matches are recorded."""
    return Match.objects.filter(status=MatchStatus.FINISHED, rated=True).count()


def assert_counted_once() -> None:
    """Checks that every recorded result was counted exactly once, and nothing else was counted.

    Every finished rated match has one rating-history row per seat and every other match none;
    every version's ``Rating.games`` equals its history rows and its finished rated seats; each
    rating's Elo is the sum of its history's changes; no running match holds a staged result.
    """
    history = dict(RatingHistory.objects.values_list("match_id").annotate(n=Count("id")).values_list("match_id", "n"))
    rated = {
        m.pk: m.seats.count() for m in Match.objects.filter(status=MatchStatus.FINISHED, rated=True).prefetch_related()
    }
    assert history == rated, "rating history rows per match must equal the seats of exactly the finished rated matches"
    per_version = Counter(RatingHistory.objects.values_list("bot_version_id", flat=True))
    seats = Counter(
        Match.objects.filter(status=MatchStatus.FINISHED, rated=True).values_list("seats__bot_version_id", flat=True)
    )
    assert per_version == seats
    for rating in Rating.objects.all():
        rows = list(RatingHistory.objects.filter(bot_version_id=rating.bot_version_id).order_by("id"))
        assert rating.games == len(rows) == per_version[rating.bot_version_id]
        if rows:
            assert abs(rating.elo - rows[-1].elo_after) < 1e-6
            for before, after in itertools.pairwise(rows):
                assert abs(before.elo_after - after.elo_before) < 1e-6, "a rating change was applied twice or lost"
