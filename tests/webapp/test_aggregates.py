"""Per-bot aggregates (``bots.BotStats``, ``BotOpponentStats``) equal a recount from the matches table.

Results are recorded through the services, as the workers record them: a mixed sequence of wins,
draws and losses between four bots in two- and three-seat matches, rated and unrated, with a
failed and a cancelled match (which never count), a second report of a finished match (refused,
not counted twice), a rescheduled finished match (which stops counting) and a queued match that
never finishes. After each step the stored rows must equal a recount written here from the seats
of the finished matches, and the W-D-L must equal the matches API's ``result`` filter.
"""

from __future__ import annotations

import io
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections

from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.bots.models import Bot, BotOpponentStats, BotSeatStats, BotStats
from webapp.matches import services as match_services
from webapp.matches import stats
from webapp.matches.models import Match, MatchSeat, MatchStatus

pytestmark = pytest.mark.django_db


def independent_recount() -> tuple[dict[int, tuple[int, int, int, int, int | None]], dict[tuple[int, int], tuple]]:
    """(games, wins, draws, losses, last match) per bot and (w, d, l) per ordered pair, counted the plain way."""
    seats: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for match_id, bot, rank in MatchSeat.objects.filter(match__status=MatchStatus.FINISHED).values_list(
        "match_id", "bot_version__bot_id", "rank"
    ):
        seats[match_id].append((bot, rank))
    per_bot: dict[int, list[Any]] = {}
    pairs: dict[tuple[int, int], list[int]] = {}
    for match_id, rows in seats.items():
        firsts = {b for b, r in rows if r == 1}
        for bot, rank in rows:
            c = per_bot.setdefault(bot, [0, 0, 0, 0, None])
            c[0] += 1
            if rank != 1:
                c[3] += 1
            elif firsts == {bot}:
                c[1] += 1
            else:
                c[2] += 1
            c[4] = max(c[4] or 0, match_id)
            for other, other_rank in rows:
                if other != bot:
                    p = pairs.setdefault((bot, other), [0, 0, 0])
                    p[0 if rank < other_rank else 2 if rank > other_rank else 1] += 1
    return {b: tuple(c) for b, c in per_bot.items()}, {k: tuple(v) for k, v in pairs.items()}


def stored() -> tuple[dict[int, tuple[int, int, int, int, int | None]], dict[tuple[int, int], tuple]]:
    per_bot = {
        s.bot_id: (s.games, s.wins, s.draws, s.losses, s.last_match_id)
        for s in BotStats.objects.all()
        if s.games  # a bot whose only match stopped counting keeps a row of zeros
    }
    pairs = {
        (o.bot_id, o.opponent_id): (o.wins, o.draws, o.losses)
        for o in BotOpponentStats.objects.all()
        if o.wins + o.draws + o.losses
    }
    return per_bot, pairs


def independent_seat_recount() -> dict[tuple[int, int, int], tuple[int, int, int, int]]:
    """(games, wins, draws, losses) per (bot, table size, seat), each seat counted on its own."""
    tables: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for match_id, bot, seat, rank in MatchSeat.objects.filter(match__status=MatchStatus.FINISHED).values_list(
        "match_id", "bot_version__bot_id", "seat", "rank"
    ):
        tables[match_id].append((bot, seat, rank))
    out: dict[tuple[int, int, int], list[int]] = {}
    for rows in tables.values():
        first = [r for _, _, r in rows].count(1)
        for bot, seat, rank in rows:
            c = out.setdefault((bot, len(rows), seat), [0, 0, 0, 0])
            c[0] += 1
            c[3 if rank != 1 else 1 if first == 1 else 2] += 1
    return {k: tuple(v) for k, v in out.items()}


def stored_seats() -> dict[tuple[int, int, int], tuple[int, int, int, int]]:
    return {
        (s.bot_id, s.table_size, s.seat): (s.games, s.wins, s.draws, s.losses)
        for s in BotSeatStats.objects.all()
        if s.games  # a seat whose only match stopped counting keeps a row of zeros
    }


def check(anon: Any) -> None:
    assert stored() == independent_recount()
    assert stored_seats() == independent_seat_recount()
    for s in BotStats.objects.all():
        record = anon.get(f"/api/v1/bots/{s.bot_id}/").json()["record"]
        assert (record["games"], record["wins"], record["draws"], record["losses"]) == (
            s.games,
            s.wins,
            s.draws,
            s.losses,
        )
        for result, expected in (("win", s.wins), ("draw", s.draws), ("loss", s.losses)):
            body = anon.get("/api/v1/matches/", {"bot": s.bot_id, "result": result, "status": "finished"}).json()
            assert len(body["results"]) == expected, (s.bot_id, result)


def test_aggregates_equal_a_recount_after_mixed_results(make_bot: Callable[..., Bot], anon: Any) -> None:
    bots = [make_bot(User.objects.create_user(f"owner{i}"), f"bot{i}") for i in range(4)]
    a, b, c, d = (x.latest_version for x in bots)

    def play(versions: list, ranks: tuple[int, ...], *, rated: bool = True) -> Match:
        m = match_services.do_queue_match(GAME, versions, rated=rated)
        match_services.do_start_match(m.pk, "ref-test")
        return results.do_finish_match(m.pk, forced_replay(m, ranks), referee_id="ref-test")

    plan = [
        ([a, b], (1, 2), True),
        ([b, a], (1, 1), True),  # a draw
        ([a, c], (2, 1), False),  # unrated counts too
        ([c, d], (1, 2), True),
        ([a, b, c], (1, 2, 2), False),  # three seats: a wins, b and c draw with each other
        ([b, c, d], (1, 1, 2), False),  # shared first place: a draw for b and c
        ([d, a], (1, 2), True),
    ]
    finished = []
    for versions, ranks, rated in plan:
        finished.append(play(versions, ranks, rated=rated))
        check(anon)

    # Matches without a result never count; neither does one still queued.
    failed = match_services.do_queue_match(GAME, [a, d], rated=True)
    match_services.do_fail_match(failed.pk, "referee lost")
    cancelled = match_services.do_queue_match(GAME, [b, d], rated=True)
    match_services.do_cancel_match(cancelled.pk, "withdrawn")
    match_services.do_queue_match(GAME, [c, a], rated=True)
    check(anon)

    # A second delivery of a recorded result is refused and changes nothing.
    before = stored()
    again = finished[0]
    with pytest.raises(match_services.MatchAlreadyFinal):
        results.do_finish_match(again.pk, forced_replay(again, (2, 1)), referee_id="ref-test")
    assert stored() == before
    check(anon)

    # A rescheduled finished match stops counting; its replacement counts once it finishes.
    revision = BotStats.objects.get(bot=bots[2]).revision
    replacement = match_services.do_reschedule_match(finished[3].pk, "disputed")
    check(anon)
    assert BotStats.objects.get(bot=bots[2]).revision > revision  # cached pieces of c's page are stale now
    match_services.do_start_match(replacement.pk, "ref-test")
    results.do_finish_match(replacement.pk, forced_replay(replacement, (2, 1)), referee_id="ref-test")
    check(anon)

    # A rebuild from scratch gives the same rows, and every revision moves up.
    revisions = dict(BotStats.objects.values_list("bot_id", "revision"))
    kept, kept_seats = stored(), stored_seats()
    stats.recount_bots()
    assert stored() == kept and stored_seats() == kept_seats
    assert all(r > revisions[b] for b, r in BotStats.objects.values_list("bot_id", "revision"))


def test_each_result_raises_the_revision_of_its_bots_only(make_bot: Callable[..., Bot]) -> None:
    x, y, z = (make_bot(User.objects.create_user(f"o{i}"), f"r{i}") for i in range(3))
    m = match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=True)
    results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    first = dict(BotStats.objects.values_list("bot_id", "revision"))
    assert set(first) == {x.pk, y.pk}
    m = match_services.do_queue_match(GAME, [x.latest_version, z.latest_version], rated=True)
    results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    second = dict(BotStats.objects.values_list("bot_id", "revision"))
    assert second[x.pk] == first[x.pk] + 1 and second[y.pk] == first[y.pk] and z.pk in second
    assert BotStats.objects.get(bot=x).last_match_id == m.pk


def test_match_outcomes_rule() -> None:
    own, pairs = stats.match_outcomes([(1, 1), (2, 2), (3, 2)])
    assert own == {1: "win", 2: "loss", 3: "loss"}
    assert pairs[(2, 3)] == "draw" and pairs[(1, 2)] == "win" and pairs[(3, 1)] == "loss"
    own, _ = stats.match_outcomes([(1, 1), (2, 1)])
    assert own == {1: "draw", 2: "draw"}
    own, pairs = stats.match_outcomes([(1, 1), (1, 2), (2, 3)])  # one bot in two seats counts once, at its best
    assert own == {1: "win", 2: "loss"} and pairs == {(1, 2): "win", (2, 1): "loss"}


@pytest.mark.django_db(transaction=True)
def test_results_recorded_at_once_all_count(make_bot: Callable[..., Bot]) -> None:
    """Eight results of one bot recorded by eight threads at once (each its own connection) all count."""
    hub = make_bot(User.objects.create_user("hub"), "hub")
    rivals = [make_bot(User.objects.create_user(f"rival{i}"), f"rival{i}") for i in range(8)]
    matches = [match_services.do_queue_match(GAME, [hub.latest_version, r.latest_version], rated=False) for r in rivals]
    replays = [forced_replay(m, (1, 2) if i % 2 else (2, 1)) for i, m in enumerate(matches)]
    start = threading.Barrier(len(matches))

    def finish(i: int) -> None:
        try:
            start.wait()
            results.do_finish_match(matches[i].pk, replays[i])
        finally:
            connections.close_all()

    threads = [threading.Thread(target=finish, args=(i,)) for i in range(len(matches))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    row = BotStats.objects.get(bot=hub)
    assert (row.games, row.wins, row.losses, row.last_match_id) == (8, 4, 4, max(m.pk for m in matches))
    assert stored() == independent_recount()


def test_recount_command_rebuilds_rows_written_around_the_services(make_bot: Callable[..., Bot]) -> None:
    x, y = (make_bot(User.objects.create_user(f"bulk{i}"), f"bulk{i}") for i in range(2))
    for ranks in ((1, 2), (1, 1), (2, 1)):
        m = match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=False)
        results.do_finish_match(m.pk, forced_replay(m, ranks))
    kept = stored()
    BotStats.objects.all().delete()  # as a bulk loader leaves them
    BotOpponentStats.objects.all().delete()
    out = io.StringIO()
    call_command("recount_bot_stats", stdout=out)
    assert "counted 2 bots" in out.getvalue()
    assert stored() == kept == independent_recount()
