"""Bots on different referees meet: two ``brawl referee`` processes in ladder mode share matches through the relay.

Partitions: one bot per referee (so no referee alone has a pairing); the match queued by a ladder
round (``schedule_round`` pools bots across referees when the relay is on) and a tournament game.
Everything is real: two referee processes sharing Redis (the relay's presence and streams) and
PostgreSQL (tokens), a bot farm connected to each, a Celery worker starting and recording.
"""

from __future__ import annotations

import pytest
from brawl.referee.v1 import referee_pb2
from django.contrib.auth.models import User

from referee import client as referee_client
from referee.core.replay import Replay, verify
from tests.workers.conftest import GAME
from tests.workers.helpers import assert_counted_once, farm, make_bots
from tests.workers.stack import Stack, wait_until
from webapp.bots.models import Bot
from webapp.matches.models import Match, MatchStatus
from webapp.rankings.models import RatingHistory
from webapp.tournaments import services as tournament_services
from webapp.tournaments.models import Tournament, TournamentStatus
from workers.scheduling import schedule_round

pytestmark = pytest.mark.django_db(transaction=True)


def referee_matches(address: str) -> set[str]:
    """Returns the match ids a referee ran or runs (its ``ListMatches``)."""
    stub = referee_client.stub(address)
    listed = stub.ListMatches(referee_pb2.ListMatchesRequest(), timeout=5, metadata=referee_client.credential())
    return {m.match_id for m in listed.matches}


def assert_played_by_both_bots(match: Match) -> None:
    """The replay verifies and every seat's decisions came from its bot (no seat forfeited or was absent)."""
    replay = Replay.loads(match.replay_bytes() or b"")
    verify(replay)
    by_bot = {d.seat for d in replay.decisions if d.source == "bot"}
    assert by_bot == set(range(len(replay.seats))), (by_bot, match.outcome, match.incidents)


def split_stack(stack: Stack, monkeypatch: pytest.MonkeyPatch, policies: list[tuple[str, str]]) -> tuple[str, str]:
    """Starts referees A and B, the first half of the bots on A and the rest on B, and a worker without beat."""
    bots = make_bots(policies)
    a = stack.start_referee("referee-a")
    b = stack.start_referee("referee-b")
    half = len(bots) // 2
    stack.start_bots(farm(bots[:half], max_matches=1), name="bots-a", server=a)
    stack.start_bots(farm(bots[half:], max_matches=1), name="bots-b", server=b)
    # The test process schedules rounds itself (no beat, so no round it did not ask for).
    monkeypatch.setenv("BRAWL_REFEREES", f"{a},{b}")
    stack.start_worker("worker", concurrency=2)
    return a, b


def test_a_ladder_match_between_bots_on_two_referees_is_played_and_recorded_once(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    policies = [("west", "tests.workers.bots:Heuristic"), ("east", "tests.workers.bots:Random")]
    a, b = split_stack(stack, monkeypatch, policies)
    report = schedule_round(GAME, "split-round-1")
    assert report.online == 2 and len(report.queued) == 1, report
    match_id = report.queued[0]
    wait_until(
        lambda: Match.objects.get(pk=match_id).status == MatchStatus.FINISHED, 90, "the split match to be recorded"
    )
    match = Match.objects.get(pk=match_id)
    assert match.rated and match.referee_id in (a, b), match.referee_id
    assert {s.bot_version.bot.name for s in match.seats.select_related("bot_version__bot")} == {"west", "east"}
    assert_played_by_both_bots(match)
    # It ran on one referee only; the other merely relayed its bot's seat.
    origin, host = (a, b) if match.referee_id == a else (b, a)
    assert str(match.pk) in referee_matches(origin)
    assert str(match.pk) not in referee_matches(host)
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert_counted_once()


def test_a_tournament_between_bots_on_two_referees_finishes(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    policies = [("t-west", "tests.workers.bots:Heuristic"), ("t-east", "tests.workers.bots:Mixed")]
    a, b = split_stack(stack, monkeypatch, policies)
    organizer = User.objects.create_user("olga", password="correct horse battery", is_staff=True)
    tour = tournament_services.do_create_tournament(organizer, name="Split", game=GAME, format="single_elim")
    tournament_services.do_open_registration(tour)
    for bot in Bot.objects.filter(name__in=[name for name, _ in policies]):
        entrant = tournament_services.do_register_entrant(tour, bot.latest_version)
        tournament_services.do_approve_entrant(entrant)
    tournament_services.do_start_tournament(tour)
    wait_until(
        lambda: Tournament.objects.get(pk=tour.pk).status == TournamentStatus.FINISHED, 120, "the tournament to finish"
    )
    games = list(Tournament.objects.get(pk=tour.pk).matches.all())
    finished = [m for m in games if m.status == MatchStatus.FINISHED]
    assert finished, [(m.pk, m.status, m.failure) for m in games]
    for m in finished:
        assert m.referee_id in (a, b) and not m.rated
        assert_played_by_both_bots(m)
    assert_counted_once()
