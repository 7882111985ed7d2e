"""The cluster survives failures: the whole service on loopback, one worker and one referee SIGKILLed mid-match.

Processes (all real, each in its own process group, logs under the test's directory): PostgreSQL
and Redis (from the environment), two ``brawl referee`` in ladder mode (database tokens, the Redis
relay on), two ``brawl worker --queues scheduling,recording``, one beat (``brawl worker --beat
--queues scheduling``, as in ``deploy/``), ``brawl web --no-migrate``, and six house bots
(``workers.housebots``) in two ``brawl farm`` processes, three bots on each referee; every bot
knows both referees' addresses (``--server A,B``), as the SDK allows.

The test runs the ladder and a 6-entrant Swiss tournament, SIGKILLs referee A while it plays a
journaled match with a seat relayed from referee B, and one worker's process group. Referee A is
not restarted: its bots reconnect to B by themselves, and B takes A's matches over from their
journals once A's lease lapses. It then shows: every match that A was playing with a journaled
decision finished as itself on referee B (same match id, B reports it succeeded, its replay
re-simulates exactly and records the takeover after decisions made on A: not rescheduled); the
tournament finishes, the ladder keeps recording, every match created is final (a match whose
start was in flight, with no journal yet, may still be rescheduled and its replacement finish),
every finished rated match has exactly one rating-history row per seat, ``brawl ratings verify``
passes, the web tier answers, and the killed referee's bots play again.

It does not restart the killed worker: the surviving one gets the dead worker's unacknowledged
messages back from Redis after the visibility timeout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from referee.core.replay import Replay, verify
from tests.workers.conftest import GAME
from tests.workers.helpers import TestBot, assert_counted_once, make_bots
from tests.workers.stack import Stack, free_port, wait_until
from webapp.matches.models import Match, MatchStatus
from webapp.tournaments import services as tournament_services
from webapp.tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)

FINAL = {MatchStatus.FINISHED, MatchStatus.FAILED, MatchStatus.CANCELLED, MatchStatus.RESCHEDULED}

HOUSE = "workers.housebots"
BOTS_A = [
    ("a-heuristic", f"{HOUSE}:HeuristicBot"),
    ("a-steady", f"{HOUSE}:SteadyBot"),
    ("a-random", f"{HOUSE}:RandomBot"),
]
BOTS_B = [
    ("b-heuristic", f"{HOUSE}:HeuristicBot"),
    ("b-erratic", f"{HOUSE}:ErraticBot"),
    ("b-random", f"{HOUSE}:RandomBot"),
]


def start_farm(stack: Stack, name: str, bots: list[TestBot], server: str, also: str = "") -> None:
    """Starts ``brawl farm`` for ``bots`` on referee ``server`` (internal address); waits until all connected.

    With ``also`` (another referee), the bots reconnect there when ``server`` goes away.
    """
    spec = stack.directory / f"{name}.json"
    spec.write_text(json.dumps([{"bot": b.policy, "token": b.token, "max_matches": 2} for b in bots]))
    servers = ",".join(stack.bot_address(r) for r in (server, also) if r)
    stack.brawl(name, "farm", str(spec), "--server", servers)
    wait_until(lambda: stack.connected_bots(server) >= len(bots), 60, f"{name} to connect to {server}")


def journaled_decisions(match_id: int) -> int:
    """Returns how many entries the match's journal holds in the cluster's Redis (0 without a journal)."""
    import redis

    from tests.cluster.conftest import cluster_redis_url

    client = redis.Redis.from_url(cluster_redis_url())
    try:
        return int(client.xlen(f"brawl:journal:{match_id}:log"))
    finally:
        client.close()


def http_get(url: str) -> tuple[int, str]:
    """Returns the status and body of a GET (errors as their status)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:
        return 0, ""


def final_replacement(match: Match) -> Match:
    """Follows a rescheduled match to its last replacement (the match that stands for it now)."""
    seen = 0
    while match.status == MatchStatus.RESCHEDULED:
        nxt = match.replacements.order_by("-id").first()
        assert nxt is not None, f"match {match.pk} was rescheduled without a replacement ({match.failure})"
        match = nxt
        seen += 1
        assert seen < 20, "a replacement chain that never ends"
    return match


def played_by_bot(match: Match, version_id: int) -> bool:
    """Whether ``version_id``'s seat in a finished match made at least one decision itself (not a default)."""
    seats = [s.seat for s in match.seats.all() if s.bot_version_id == version_id]
    replay = Replay.loads(match.replay_bytes() or b"")
    verify(replay)
    return any(d.source == "bot" and d.seat in seats for d in replay.decisions)


class LentSeatsNeverFreed(AssertionError):
    """Referees hold more busy seats for some bots than the database has running matches for them."""


def leaked_seats(stack: Stack) -> dict[str, int]:
    """Returns, per bot id, how many more seats the referees hold busy than there are running matches seating it.

    A referee counts a bot's seat busy while it plays a match locally or hosts the seat for another
    referee's match (the relay); the database knows every match that may still be played.
    """
    from referee.client import list_bots

    busy: Counter[str] = Counter()
    for name, address in stack.referees.items():
        if name not in stack.procs:
            continue  # killed and not restarted
        for session in list_bots(address)[1]:
            busy[session.bot_id] += session.active_matches
    running = Counter(
        str(bot_id)
        for bot_id in Match.objects.filter(status=MatchStatus.RUNNING).values_list(
            "seats__bot_version__bot_id", flat=True
        )
    )
    return {bot: n - running[bot] for bot, n in busy.items() if n > running[bot]}


def wait_until_settled(check: Any, seconds: float = 5.0) -> Any:
    """Returns ``check()`` once it is falsy, or its value if it stays truthy for ``seconds``."""
    deadline = time.monotonic() + seconds
    while (value := check()) and time.monotonic() < deadline:
        time.sleep(0.5)
    return value


def snapshot() -> dict[str, Any]:
    """Returns the number of matches in each status and the matches not final (for failure messages)."""
    counts: dict[str, Any] = {s: Match.objects.filter(status=s).count() for s in MatchStatus.values}
    counts["open"] = [
        (m.pk, m.status, m.tournament_id, m.referee_id, [s.bot_version.bot_id for s in m.seats.all()], str(m.created))
        for m in Match.objects.exclude(status__in=FINAL).prefetch_related("seats__bot_version")
    ]
    counts["tournament"] = list(Tournament.objects.values_list("status", flat=True))
    return counts


def test_the_cluster_survives_a_worker_and_a_referee_killed_mid_match(cluster: Stack) -> None:
    started = time.monotonic()
    bots_a, bots_b = make_bots(BOTS_A), make_bots(BOTS_B)
    port_a = free_port()
    a = cluster.start_referee("referee-a", port=port_a)
    b = cluster.start_referee("referee-b")
    assert cluster.env["BRAWL_REFEREES"] == f"{a},{b}"
    start_farm(cluster, "farm-a", bots_a, a, also=b)
    start_farm(cluster, "farm-b", bots_b, b, also=a)
    cluster.start_worker("worker-1", concurrency=2, queues="scheduling,recording")
    cluster.start_worker("worker-2", concurrency=2, queues="scheduling,recording")
    cluster.start_worker("beat", concurrency=1, beat=True, queues="scheduling")
    web = f"127.0.0.1:{free_port()}"
    cluster.brawl("web", "web", "--addr", web, "--no-migrate")
    wait_until(lambda: http_get(f"http://{web}/healthz")[0] == 200, 60, "the web tier's /healthz")

    organizer = User.objects.create_user("olga", password="correct horse battery", is_staff=True)
    tour = tournament_services.do_create_tournament(organizer, name="Cluster", game=GAME, format="swiss", rounds=3)
    tournament_services.do_open_registration(tour)
    for b_ in bots_a + bots_b:
        entrant = tournament_services.do_register_entrant(tour, b_.bot.latest_version)
        tournament_services.do_approve_entrant(entrant)
    tournament_services.do_start_tournament(tour)

    # Mid-match: referee A is playing matches (no result staged yet), one of them with a bot of
    # referee B (a seat B hosts for A through the relay), and results are flowing.
    b_versions = [b_.version_id for b_ in bots_b]

    def in_play_on_a() -> list[int]:
        running = Match.objects.filter(status=MatchStatus.RUNNING, referee_id=a, replay_gz=None, replay_path="")
        pks = list(running.values_list("pk", flat=True))
        return pks if pks and Match.objects.filter(status=MatchStatus.FINISHED).count() >= 2 else []

    def relayed_in_play_on_a() -> list[int]:
        pks = in_play_on_a()
        relayed = Match.objects.filter(pk__in=pks, seats__bot_version_id__in=b_versions).values_list("pk", flat=True)
        # Journaled decisions: the match is under way, not waiting for its bots.
        return pks if any(journaled_decisions(pk) >= 3 for pk in relayed) else []

    # Matches last a second or two, so a match seen in play may end before the kill lands. Then the
    # kill took nothing down: the operator restarts the referee and its farm, and the test tries again.
    lost: list[int] = []
    journaled: list[int] = []
    for _attempt in range(4):
        wait_until(relayed_in_play_on_a, 90, "a journaled relayed match in play on referee A", 0.1)
        cluster.kill("referee-a")  # the referee first, while its match is in play
        # What referee A was playing when it died: matches it ran that had not staged a result.
        lost = in_play_on_a()
        journaled = [pk for pk in lost if journaled_decisions(pk) > 0]
        if journaled:
            break
        cluster.kill("farm-a")
        cluster.start_referee("referee-a", port=port_a)
        start_farm(cluster, "farm-a", bots_a, a, also=b)
    assert journaled, "four kills of referee A each landed between matches"
    cluster.kill("worker-1")
    killed_at = time.time()

    # Referee A stays dead. Its bots reconnect to B by themselves; B takes A's matches over.
    wait_until(lambda: cluster.connected_bots(b) >= len(bots_a + bots_b), 60, "referee A's bots to reach B")
    restarted_at = time.time()

    after_kill = datetime.fromtimestamp(killed_at, tz=UTC)
    after_restart = datetime.fromtimestamp(restarted_at, tz=UTC)

    def recovered() -> bool:
        if Tournament.objects.get(pk=tour.pk).status != TournamentStatus.FINISHED:
            return False
        later = Match.objects.filter(tournament=None, status=MatchStatus.FINISHED, created__gte=after_kill)
        if later.count() < 6:
            return False
        fresh = Match.objects.filter(status=MatchStatus.FINISHED, created__gte=after_restart)
        return all(
            any(played_by_bot(m, b_.version_id) for m in fresh.filter(seats__bot_version_id=b_.version_id))
            for b_ in bots_a
        )

    try:
        wait_until(recovered, 100, "the tournament to finish, the ladder to go on and A's bots to play again", 1.0)
    except TimeoutError as exc:
        leaked = wait_until_settled(lambda: leaked_seats(cluster))
        if leaked:
            raise LentSeatsNeverFreed(
                f"{exc}: seats held for no running match, per bot id: {leaked}; {snapshot()}"
            ) from exc
        raise AssertionError(f"{exc}: {snapshot()}") from exc

    # Drain: a beat without ladder rounds for this game keeps the reaper and the tournament sweep going.
    cluster.terminate("beat")
    cluster.env["BRAWL_LADDER_GAMES"] = "scrumbrawl"
    cluster.start_worker("beat-drain", concurrency=1, beat=True, queues="scheduling")
    try:
        wait_until(lambda: not Match.objects.exclude(status__in=FINAL).exists(), 90, "every match to be final", 1.0)
    except TimeoutError as exc:
        raise AssertionError(f"{exc}: {snapshot()}") from exc

    # Measured now, raised last: the checks below hold whatever it finds.
    leaked = wait_until_settled(lambda: leaked_seats(cluster))

    # Every match A was playing with a journal finished as itself on referee B: same match id, B
    # played it to its end (its GetMatch says so; A's address answers nothing), its decision log
    # runs on from the decisions made on A, and it re-simulates exactly. Not rescheduled.
    from brawl.referee.v1 import referee_pb2

    from referee.client import get_match

    for pk in journaled:
        match = Match.objects.get(pk=pk)
        assert match.status == MatchStatus.FINISHED, (pk, match.status, match.failure, snapshot())
        assert not match.replacements.exists(), pk
        remote = get_match(b, str(pk))
        replay = Replay.loads(match.replay_bytes() or b"")
        verify(replay)
        assert replay.meta["match_id"] == str(pk)
        takeovers = replay.meta.get("takeovers")
        if remote is None:
            # A ended the match and handed its result to the broker just before it died (referees
            # report results as a broker message, not through the database): recorded from A's
            # message, once, and B never had it to take over.
            assert not takeovers, (pk, takeovers)
            continue
        assert remote.state == referee_pb2.Match.STATE_SUCCEEDED, (pk, remote)
        # Taken over after decisions made on A; at the last decision when A had ended the match and
        # died with its result on the way (B then only recorded it).
        assert takeovers and len(takeovers) == 1 and 0 < takeovers[0]["at"] <= len(replay.decisions), (pk, takeovers)
    # A match whose StartMatch call was in flight when the referee died (no journal yet) ends with
    # a result or is replaced by one that does.
    rescheduled = 0
    for pk in lost:
        match = Match.objects.get(pk=pk)
        assert match.status in (MatchStatus.RESCHEDULED, MatchStatus.FINISHED), (pk, match.status, match.failure)
        if match.status == MatchStatus.RESCHEDULED:
            rescheduled += 1
            assert not match.has_replay, pk
        standing = final_replacement(match)
        assert standing.status == MatchStatus.FINISHED, (pk, standing.pk, standing.status, standing.failure)
    failed = list(Match.objects.filter(status=MatchStatus.FAILED).values_list("pk", "failure"))
    assert not failed, failed
    for m in Match.objects.filter(status=MatchStatus.RESCHEDULED):
        final_replacement(m)
    tour.refresh_from_db()
    games = tour.matches.all()
    assert games.filter(status=MatchStatus.FINISHED).count() == 9, snapshot()

    # No rating update lost or doubled: one history row per seat of every finished rated match, and
    # the stored ratings equal a recomputation from the rated matches in order.
    assert_counted_once()
    check = subprocess.run(
        [sys.executable, "-m", "service.cli", "ratings", "verify", "--game", GAME],
        env=cluster.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "reproduce exactly" in check.stdout

    # The web tier serves the leaderboard with all six bots.
    status, body = http_get(f"http://{web}/games/{GAME}/")
    assert status == 200
    assert all(name in body for name, _ in BOTS_A + BOTS_B), body[:2000]
    status, _ = http_get(f"http://{web}/healthz")
    assert status == 200

    summary: dict[str, Any] = {
        "seconds": round(time.monotonic() - started),
        "lost_on_referee_a": len(lost),
        "taken_over_by_b": len(journaled),
        "of_them_rescheduled": rescheduled,
        "leaked_seats": leaked,
        **snapshot(),
    }
    print("cluster:", summary)

    # Nothing holds a seat any more: every seat a referee used or lent to another was given back.
    if leaked:
        lost_seats = {
            pk: sorted(Match.objects.get(pk=pk).seats.values_list("bot_version__bot_id", flat=True)) for pk in lost
        }
        raise LentSeatsNeverFreed(
            f"seats held for no running match, per bot id: {leaked}; bots of the matches lost on A: {lost_seats}"
        )
