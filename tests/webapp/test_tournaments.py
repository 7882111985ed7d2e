"""A tournament run end to end through the organizer services and the ladder's format functions.

Partitions: formats double elimination, round robin and Swiss; series best of 1 and 3; results
arriving once or twice; a disputed game replayed.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus
from webapp.tournaments import services as t
from webapp.tournaments.bracket import bracket_data
from webapp.tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


TIME_CONTROL = {"per_decision_ms": 800, "bank_ms": 20_000}


def entered(organizer: User, make_bot, fmt: str, n: int, best_of: int = 1, rounds: int | None = None) -> Tournament:
    tour = t.do_create_tournament(
        organizer, name=f"{fmt} cup", game=GAME, format=fmt, best_of=best_of, rounds=rounds, time_control=TIME_CONTROL
    )
    t.do_open_registration(tour)
    for i in range(n):
        owner = User.objects.create_user(f"author{i}")
        bot = make_bot(owner, f"bot{i}")
        t.do_approve_entrant(t.do_register_entrant(tour, bot.latest_version), True, seed=i + 1)
    return tour


def play_out(tour: Tournament, limit: int = 100) -> int:
    """Finishes queued matches (seat 0 wins) until none is left; returns how many were played."""
    played = 0
    while played < limit:
        queued = list(Match.objects.filter(tournament=tour, status=MatchStatus.QUEUED).order_by("id"))
        if not queued:
            return played
        for m in queued:
            results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
            played += 1
    raise AssertionError("tournament did not finish")


def test_double_elimination_runs_to_a_champion(organizer, make_bot) -> None:
    tour = entered(organizer, make_bot, "double_elim", 4)
    t.do_start_tournament(tour)
    tour.refresh_from_db()
    assert tour.status == TournamentStatus.RUNNING
    first = list(Match.objects.filter(tournament=tour).values_list("tournament_slot", flat=True))
    assert sorted(first) == ["W1-1", "W1-2"]
    assert all(m.time_control == TIME_CONTROL and not m.rated for m in Match.objects.filter(tournament=tour))
    played = play_out(tour)
    tour.refresh_from_db()
    assert tour.status == TournamentStatus.FINISHED
    assert played >= 6  # 4 entrants: W1 x2, W2, L1, L2, GF (and maybe the reset)
    data = bracket_data(tour)
    sections = {s["section"] for s in data["series"]}
    assert {"W", "L", "GF"} <= sections
    assert data["final_standings"][0]["status"] == "champion"
    assert len(data["layout"]["boxes"]) == len(data["series"])


def test_result_reported_twice_counts_once(organizer, make_bot) -> None:
    tour = entered(organizer, make_bot, "single_elim", 2)
    t.do_start_tournament(tour)
    m = Match.objects.get(tournament=tour)
    replay = forced_replay(m, (1, 2))
    results.do_finish_match(m.pk, replay)
    with pytest.raises(match_services.MatchAlreadyFinal):
        results.do_finish_match(m.pk, replay)
    tour.refresh_from_db()
    assert len(tour.state["reports"]) == 1 and tour.status == TournamentStatus.FINISHED


def test_best_of_three_plays_until_two_wins(organizer, make_bot) -> None:
    tour = entered(organizer, make_bot, "single_elim", 2, best_of=3)
    t.do_start_tournament(tour)
    # Seats rotate each game and seat 0 always wins here, so the series goes 1-0, 1-1, 2-1.
    assert play_out(tour) == 3
    tour.refresh_from_db()
    assert tour.status == TournamentStatus.FINISHED
    series = bracket_data(tour)["series"][0]
    assert sorted(p["wins"] for p in series["participants"]) == [1, 2] and series["winner"] is not None


def test_round_robin_crosstable_and_swiss_standings(organizer, make_bot) -> None:
    rr = entered(organizer, make_bot, "round_robin", 3)
    t.do_start_tournament(rr)
    play_out(rr)
    rr.refresh_from_db()
    data = bracket_data(rr)
    assert len(data["crosstable"]["rows"]) == 3
    assert all(row["cells"].count("×") == 1 for row in data["crosstable"]["rows"])
    sw = Tournament.objects.create(
        name="swiss", game=GAME, format="swiss", rounds=2, status=TournamentStatus.REGISTRATION
    )
    for i in range(4):
        owner = User.objects.create_user(f"sw{i}")
        bot = make_bot(owner, f"swbot{i}")
        t.do_approve_entrant(t.do_register_entrant(sw, bot.latest_version), True)
    t.do_start_tournament(sw)
    play_out(sw)
    sw.refresh_from_db()
    data = bracket_data(sw)
    assert [s["round"] for s in data["standings"]] == [1, 2]
    assert data["standings"][-1]["table"][0]["points"] == 2.0


def test_pause_resume_and_replay_a_disputed_game(organizer, make_bot) -> None:
    tour = entered(organizer, make_bot, "single_elim", 4)
    t.do_start_tournament(tour)
    t.do_pause_tournament(tour)
    first = Match.objects.filter(tournament=tour).order_by("id").first()
    assert first is not None
    results.do_finish_match(first.pk, forced_replay(first, (1, 2)))
    with pytest.raises(t.WrongStatus):
        t.do_pause_tournament(tour)
    t.do_resume_tournament(tour)
    replacement = t.do_replay_match(tour, first, "the loser's referee crashed")
    assert Match.objects.get(pk=first.pk).status == MatchStatus.RESCHEDULED
    assert replacement.replaces_id == first.pk and replacement.status == MatchStatus.QUEUED
    tour.refresh_from_db()
    assert str(first.pk) not in [r["match_id"] for r in tour.state["reports"]]
    play_out(tour)
    tour.refresh_from_db()
    assert tour.status == TournamentStatus.FINISHED


def test_start_needs_two_approved_entrants(organizer, make_bot) -> None:
    tour = entered(organizer, make_bot, "single_elim", 1)
    with pytest.raises(match_services.DomainError):
        t.do_start_tournament(tour)
