"""Rating-farming flags in the organizer console (issue 27, "harder to game"), over a real database.

An author's two bots that meet again and again with one always winning, against what their ratings
expect, are flagged for organizers; a pair of different authors with the same results is not, and
only organizers see the list.
"""

from __future__ import annotations

from django.test import Client

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.matches import services as match_services
from webapp.rankings.farming import farming_flags


def _duels(a, b, n: int) -> None:
    """``n`` rated duels recorded through the services, ``a`` winning each."""
    for i in range(n):
        m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True, seed=100 + i)
        match_services.do_start_match(m.pk, "ref-test")
        results.do_finish_match(m.pk, forced_replay(m, (1, 2)), referee_id="ref-test")


def test_one_authors_pair_with_one_sided_results_is_flagged_and_shown_to_organizers(
    make_bot, author, other, organizer
) -> None:
    feeder, fed = make_bot(author, "feeder"), make_bot(author, "fed")
    rival_a, rival_b = make_bot(author, "rival-a"), make_bot(other, "rival-b")
    _duels(fed, feeder, 12)
    _duels(rival_b, rival_a, 12)  # the same results across two authors: never paired

    flags = farming_flags()
    assert [(f["winner"], f["loser"], f["meetings"], f["author"]) for f in flags] == [
        ("fed", "feeder", 12, author.username)
    ]
    assert flags[0]["points"] == 12.0 and flags[0]["z"] >= 3.0

    c = Client()
    c.force_login(organizer)
    html = c.get("/organize/").content.decode()
    section = html[html.index('id="farming-flags"') :]
    assert ">fed</a>" in section and ">feeder</a>" in section and "rival" not in section

    nosy = Client()
    nosy.force_login(other)
    assert nosy.get("/organize/").status_code == 403


def test_a_few_meetings_are_not_flagged(make_bot, author) -> None:
    a, b = make_bot(author, "a"), make_bot(author, "b")
    _duels(a, b, 5)
    assert farming_flags() == []
