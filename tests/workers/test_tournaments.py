"""Tournaments run to completion with no human step: an 8-bot Swiss and an 8-bot double elimination at once.

Partitions: format (Swiss, double elimination); the organizer's only act is starting them. Every
later match is queued by the recording of the one before it (``do_finish_match`` feeds the
format) or by the beat's ``advance_tournaments`` sweep, started by the workers on the real referee.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.workers.conftest import GAME
from tests.workers.helpers import assert_counted_once, farm, make_bots
from tests.workers.stack import Stack, wait_until
from webapp.matches.models import MatchStatus
from webapp.tournaments import services as tournament_services
from webapp.tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)


def create(organizer: User, name: str, fmt: str, bots: list, rounds: int | None = None) -> Tournament:
    t = tournament_services.do_create_tournament(organizer, name=name, game=GAME, format=fmt, rounds=rounds)
    tournament_services.do_open_registration(t)
    for b in bots:
        entrant = tournament_services.do_register_entrant(t, b.bot.latest_version)
        tournament_services.do_approve_entrant(entrant)
    return t


def test_swiss_and_double_elimination_finish_on_their_own(stack: Stack) -> None:
    policies = ["Heuristic", "Mixed", "Random"]
    bots = make_bots([(f"entrant{i}", f"tests.workers.bots:{policies[i % 3]}") for i in range(8)])
    organizer = User.objects.create_user("olga", password="correct horse battery", is_staff=True)
    stack.env["BRAWL_LADDER_GAMES"] = "scrumbrawl"  # no ladder rounds for these bots: the tournaments only
    stack.start_referee()
    stack.start_bots(farm(bots, max_matches=2))
    stack.start_worker("worker", concurrency=2, beat=True)
    swiss = create(organizer, "Swiss", "swiss", bots, rounds=3)
    double = create(organizer, "Double", "double_elim", bots)
    tournament_services.do_start_tournament(swiss)
    tournament_services.do_start_tournament(double)

    def finished() -> bool:
        return all(Tournament.objects.get(pk=t.pk).status == TournamentStatus.FINISHED for t in (swiss, double))

    wait_until(finished, 150, "both tournaments to finish")
    swiss.refresh_from_db()
    double.refresh_from_db()
    swiss_matches = list(swiss.matches.all())
    double_matches = list(double.matches.all())
    # Swiss: 3 rounds of 4 games, all played. Double elimination of 8: 14 series, 15 with a bracket
    # reset, and a drawn game is followed by another deciding game in the same series.
    assert sum(m.status == MatchStatus.FINISHED for m in swiss_matches) == 12
    assert sum(m.status == MatchStatus.FINISHED for m in double_matches) >= 14
    assert len({m.tournament_slot for m in double_matches}) in (14, 15)
    for m in swiss_matches + double_matches:
        assert m.status in (MatchStatus.FINISHED, MatchStatus.RESCHEDULED), (m.pk, m.status, m.failure)
        assert not m.rated
    assert_counted_once()
