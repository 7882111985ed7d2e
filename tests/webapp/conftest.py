"""Fixtures for the web app tests: users, API clients, bots and recorded matches.

Matches are played for real with the test-only ``tinygame`` (registered here) through the
referee's ``Recorder`` and finished through ``matches.services``, so every row is written by the
same path production uses. Run on PostgreSQL with
``DATABASE_URL=postgresql://postgres@127.0.0.1:5432/brawl_test``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient

from referee.core.bots import RandomPolicy
from referee.core.ids import Seat
from referee.core.registry import register
from referee.core.replay import Recorder, Replay
from tests.conformance.tinygame import TinyGame
from webapp import results
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.roles import make_organizer

GAME = "tinygame"
register(TinyGame())


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    """Throttle counters live in the cache; each test starts with none."""
    cache.clear()


@pytest.fixture
def author(db: Any) -> User:
    return User.objects.create_user("alice", password="correct horse battery")


@pytest.fixture
def other(db: Any) -> User:
    return User.objects.create_user("bob", password="correct horse battery")


@pytest.fixture
def organizer(db: Any) -> User:
    user = User.objects.create_user("olga", password="correct horse battery", is_staff=True)
    make_organizer(user)  # the role is the group's permissions; staff alone is not an organizer
    return user


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def author_client(author: User) -> APIClient:
    return client_for(author)


@pytest.fixture
def other_client(other: User) -> APIClient:
    return client_for(other)


@pytest.fixture
def organizer_client(organizer: User) -> APIClient:
    return client_for(organizer)


@pytest.fixture
def make_bot(db: Any) -> Callable[..., Bot]:
    def make(owner: User, name: str, *, house: bool = False, game: str = GAME) -> Bot:
        bot, _ = bot_services.do_create_bot(owner, game, name, is_house=house)
        return Bot.objects.select_related("latest_version").get(pk=bot.pk)

    return make


def play_replay(match: Match, seed_policy: int = 1, *, incidents: bool = False) -> Replay:
    """Plays ``match`` for real with random policies and returns its replay."""
    names = [f"seat{s.seat}" for s in match.seats.order_by("seat")]
    rec = Recorder(TinyGame(), match.config, match.seed, names, meta={"match_id": match.pk})
    policies = [RandomPolicy(seed_policy + i) for i in range(len(names))]
    step = 0
    while rec.outcome() is None:
        decision = rec.match.to_move()
        assert decision is not None
        if incidents and step == 1:
            rec.incident(decision.seat, "timeout", "answered after 1200 ms; the default was applied")
        option = policies[decision.seat].choose(decision, rec.match.observe(decision.seat), rec.match.legal_options())
        rec.apply(option, note="thinking" if step == 0 else "", think_ms=10 + step % 7)
        step += 1
    return rec.finish()


@pytest.fixture
def finish() -> Callable[..., Match]:
    """Plays and finishes a queued match through the service; returns the refreshed match."""

    def run(match: Match, seed_policy: int = 1, *, incidents: bool = False) -> Match:
        replay = play_replay(match, seed_policy, incidents=incidents)
        match_services.do_start_match(match.pk, "ref-test")
        return results.do_finish_match(match.pk, replay, referee_id="ref-test")

    return run


def forced_replay(match: Match, ranks: tuple[int, ...]) -> Replay:
    """A replay ending by forfeit with the given ranks (for results a test needs exactly)."""
    names = [f"seat{s.seat}" for s in match.seats.order_by("seat")]
    rec = Recorder(TinyGame(), match.config, match.seed, names)
    rec.forfeit([Seat(i) for i, r in enumerate(ranks) if r != 1], "test result")
    return rec.finish()


@pytest.fixture
def rated_match(make_bot: Callable[..., Bot], author: User, other: User, finish: Callable[..., Match]) -> Match:
    a = make_bot(author, "alpha")
    b = make_bot(other, "beta")
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True, seed=7)
    return finish(m)
