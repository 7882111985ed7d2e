"""The published rating and the chances a person can read (issue 27, "numbers a person can read").

The measurement (docs/ladder.md, bench.bench_prediction) chose Glicko-2 for the ladder's table
shapes (duels and free-for-all pods), so the leaderboards sort by its conservative value,
``r - 2 RD``, with the deviation beside it, and a bot page's head to head gives the chance to beat
each opponent from both ratings. Real PostgreSQL, results recorded through the services.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from ladder.glicko2 import Glicko2Rating, conservative, win_chance
from tests.webapp.conftest import GAME, client_for, forced_replay
from webapp import results
from webapp.matches import services as match_services
from webapp.rankings.models import Rating
from webapp.rankings.views import PROVISIONAL_GAMES

pytestmark = pytest.mark.django_db


def test_leaderboards_sort_by_the_conservative_rating_not_the_raw_one(make_bot: Any, author: User) -> None:
    """A settled bot at 1700 +- 30 (published 1640) ranks above an unsettled one at 1800 +- 150 (1500)."""
    settled, unsettled = make_bot(author, "settled"), make_bot(author, "unsettled")
    for bot, r, rd, elo in ((settled, 1700.0, 30.0, 1650.0), (unsettled, 1800.0, 150.0, 1750.0)):
        Rating.objects.filter(bot_version=bot.latest_version, game=GAME).update(
            elo=elo, glicko_rating=r, glicko_rd=rd, games=PROVISIONAL_GAMES + 5
        )
    rows = client_for(None).get("/api/v1/ratings/", {"game": GAME}).json()["results"]
    assert [(r["bot"], r["rank"], r["rating"]) for r in rows] == [("settled", 1, 1640.0), ("unsettled", 2, 1500.0)]
    page = Client().get(f"/games/{GAME}/").content.decode()
    body = page[page.index("<tbody>") : page.index("</tbody>")]
    assert [m.group(1) for m in re.finditer(r'href="/bots/\d+/">([^<]+)</a>', body)] == ["settled", "unsettled"]
    assert ">1640</td>" in body and ">1500</td>" in body


def test_the_head_to_head_shows_the_chance_to_beat_each_opponent(make_bot: Any, author: User, other: User) -> None:
    me, rival = make_bot(author, "me"), make_bot(other, "rival")
    for i in range(6):
        m = match_services.do_queue_match(GAME, [me.latest_version, rival.latest_version], rated=True, seed=i)
        results.do_finish_match(m.pk, forced_replay(m, (1, 2) if i % 3 else (2, 1)))
    mine = Rating.objects.get(bot_version=me.latest_version)
    theirs = Rating.objects.get(bot_version=rival.latest_version)
    chance = win_chance(
        Glicko2Rating(mine.glicko_rating, mine.glicko_rd, mine.glicko_volatility),
        Glicko2Rating(theirs.glicko_rating, theirs.glicko_rd, theirs.glicko_volatility),
    )
    assert 0.5 < chance < 1.0  # four wins of six
    page = Client().get(f"/bots/{me.pk}/").content.decode()
    h2h = page[page.index("<h2>Head to head</h2>") : page.index("<h2>Recent matches</h2>")]
    assert re.search(
        rf">rival</a></td><td class=\"num\">4</td><td class=\"num\">0</td><td class=\"num\">2</td>"
        rf"<td class=\"num\">{round(100 * chance)}%</td>",
        h2h,
    ), h2h
    versions = page[page.index("<h2>Ratings</h2>") : page.index("<h2>Head to head</h2>")]
    assert f">{conservative(mine.glicko_rating, mine.glicko_rd):.0f}</td>" in versions


def test_conservative_refuses_bad_numbers() -> None:
    from ladder.errors import InvalidResultError

    for args in ((float("nan"), 50.0), (1500.0, -1.0), (1500.0, float("inf"))):
        with pytest.raises(InvalidResultError):
            conservative(*args)


def test_a_pod_games_bot_page_gives_the_chance_to_finish_first_against_the_best(make_bot: Any, author: User) -> None:
    """ScrumBrawl seats 3 and 4 at its ladder tables: the page gives, per size, the Plackett-Luce chance
    to finish first at a table with the leaderboard's best other bots."""
    from ladder import plackett_luce as pl

    bots = [make_bot(author, f"pod{i}", game="scrumbrawl") for i in range(4)]
    skills = [(25.0, 8.0), (30.0, 2.0), (28.0, 3.0), (20.0, 4.0)]
    for bot, (mu, sigma), r in zip(bots, skills, (1500.0, 1700.0, 1650.0, 1400.0), strict=True):
        Rating.objects.filter(bot_version=bot.latest_version, game="scrumbrawl").update(
            skill_mu=mu, skill_sigma=sigma, glicko_rating=r, glicko_rd=50.0, games=PROVISIONAL_GAMES
        )
    page = Client().get(f"/bots/{bots[0].pk}/").content.decode()
    mine = pl.Skill(*skills[0])
    # The best others by the published rating: pod1 (1600), pod2 (1550), then pod3 (1300).
    three = round(100 * pl.first_chances([mine, pl.Skill(*skills[1]), pl.Skill(*skills[2])])[0])
    four = round(100 * pl.first_chances([mine, *(pl.Skill(*s) for s in skills[1:])])[0])
    chances = re.findall(
        r'<p class="pod-chance">At a (\d)-player table with (.*?)the chance to finish first: <strong>(\d+)%', page
    )
    assert [(n, int(c)) for n, _, c in chances] == [("3", three), ("4", four)]
    assert ">pod1</a> and <a" in chances[0][1] and ">pod3</a>" in chances[1][1]


def test_a_duel_games_bot_page_has_no_pod_chance(rated_match: Any) -> None:
    bot_id = rated_match.seats.first().bot_version.bot_id
    assert 'class="pod-chance"' not in Client().get(f"/bots/{bot_id}/").content.decode()


def test_the_bot_page_gives_results_per_table_size_and_seat(make_bot: Any, author: User, other: User) -> None:
    """Issue 28's statistics: each seat of each table size the bot sat at, with its W-D-L."""
    me, rival, third = make_bot(author, "seated"), make_bot(other, "rival3"), make_bot(other, "third")
    plan = [
        ([me, rival], (1, 2)),  # seat 1 of 2: a win
        ([rival, me], (1, 2)),  # seat 2 of 2: a loss
        ([rival, me], (1, 1)),  # seat 2 of 2: a draw
        ([third, rival, me], (2, 3, 1)),  # seat 3 of 3: a win
    ]
    for i, (bots, ranks) in enumerate(plan):
        m = match_services.do_queue_match(GAME, [b.latest_version for b in bots], rated=False, seed=40 + i)
        results.do_finish_match(m.pk, forced_replay(m, ranks))
    page = Client().get(f"/bots/{me.pk}/").content.decode()
    section = page[page.index('id="by-seat"') : page.index("<h2>Recent matches</h2>")]
    rows = re.findall(
        r"<tr(?: class=\"total\")?><td>(.*?)</td><td>(?:<abbr[^>]*>)?(\w+)(?:</abbr>)?</td>"
        r"<td class=\"num\">(\d+)</td><td>([\d-]+)</td>",
        section,
    )
    assert [(size, seat, int(g), wdl) for size, seat, g, wdl in rows] == [
        ("2 seats", "1", 1, "1-0-0"),
        ("", "2", 2, "0-1-1"),
        ("", "all", 3, "1-1-1"),
        ("3 seats", "3", 1, "1-0-0"),
        ("", "all", 1, "1-0-0"),
    ]
