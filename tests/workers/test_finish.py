"""The explicit finish: a real referee's strikes reach ``MatchSeat.strikes``; one decode per result; the recount.

Partitions: a match played through a real gRPC referee on loopback with a bot that times out once
and one that answers illegally once, recorded through ``workers.recording.record_result`` on
PostgreSQL; the codec calls of one recording (the referee's one encode, the worker's one decode, no
re-encode); migration 0006 recounting a seat stored with the old count (0).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from referee.core.replay import IncidentKind, Replay
from referee.server.match import MatchRunner
from tests.referee.bots import IllegalOnceBot, SlowFirstBot
from tests.referee.harness import referee_env
from webapp import tasks_out
from webapp.bots import services as bot_services
from webapp.bots.models import BotVersion
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchSeat, MatchStatus
from workers.recording import record_result

pytestmark = pytest.mark.django_db(transaction=True)

GAME = "tinygame"


def played_match() -> MatchRunner:
    """Plays seat 0 (answers illegally once) against seat 1 (times out once) on a real referee."""
    out: list[MatchRunner] = []

    async def scenario() -> None:
        async with referee_env() as env:
            SlowFirstBot.delay = 1.2  # past decision_time 0.5 + overrun 0.25 (tests/referee/harness.FAST)
            env.connect(IllegalOnceBot, "illegal", games=[GAME])
            env.connect(SlowFirstBot, "slow", games=[GAME])
            runner = env.start(GAME, ["illegal", "slow"], seed=7)
            await asyncio.wait_for(runner.wait(), 30)
            out.append(runner)

    asyncio.run(scenario())
    assert out[0].replay is not None, out[0].error
    return out[0]


def running_match() -> Match:
    owner = User.objects.create_user(f"finish{User.objects.count()}")
    versions = []
    for i in range(2):
        bot, _ = bot_services.do_create_bot(owner, GAME, f"finish{owner.pk}-{i}")
        bot.refresh_from_db()
        versions.append(BotVersion.objects.get(pk=bot.latest_version_id))
    match = match_services.do_queue_match(GAME, versions, rated=True)
    return match_services.do_start_match(match.pk, "127.0.0.1:1")


@pytest.fixture
def captured_followups(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    """Workers on (``BRAWL_DISPATCH=celery``), with the tasks a result sends captured, not sent."""
    settings.BRAWL_DISPATCH = "celery"
    sent: list[tuple[str, list[Any]]] = []

    def send(name: str, args: list[Any] | None = None, **kw: Any) -> None:
        sent.append((name, args or []))

    monkeypatch.setattr(tasks_out, "send_task", send)
    return sent


def test_seat_strikes_equal_the_referees_for_every_seat(captured_followups: list[Any]) -> None:
    """docs/bot-protocol.md: a timeout and an illegal answer are each one strike against the seat."""
    runner = played_match()
    replay = runner.replay
    assert replay is not None
    kinds = {(int(i.seat), i.kind) for i in replay.incidents}
    assert (0, IncidentKind.ILLEGAL_ANSWER) in kinds and (1, IncidentKind.TIMEOUT) in kinds, replay.incidents
    match = running_match()
    assert record_result(str(match.pk), replay.encode()) == "recorded"
    seats = {s.seat: s for s in MatchSeat.objects.filter(match=match)}
    referee = {int(st.seat): st.strikes for st in runner.seats}
    assert {seat: s.strikes for seat, s in seats.items()} == referee
    assert referee[0] >= 1 and referee[1] >= 1
    assert seats[1].timeouts >= 1 and seats[0].illegal_answers >= 1


def test_one_encode_and_one_decode_per_finished_match(
    monkeypatch: pytest.MonkeyPatch, captured_followups: list[tuple[str, list[Any]]]
) -> None:
    match = running_match()
    from referee.core.ids import Seat
    from referee.core.replay import Recorder
    from tests.conformance.tinygame import TinyGame

    rec = Recorder(TinyGame(), match.config, match.seed, ["a", "b"])
    rec.forfeit([Seat(1)], "test result")
    replay = rec.finish()
    calls = {"encode": 0, "decode": 0}
    encode, decode = Replay.encode, Replay.decode.__func__  # type: ignore[attr-defined]

    def counted_encode(self: Replay) -> bytes:
        calls["encode"] += 1
        return encode(self)

    def counted_decode(cls: type[Replay], data: bytes) -> Replay:
        calls["decode"] += 1
        return decode(cls, data)

    monkeypatch.setattr(Replay, "encode", counted_encode)
    monkeypatch.setattr(Replay, "decode", classmethod(counted_decode))
    data = replay.encode()  # the referee's hand-off (service.refhost.send_result)
    assert record_result(str(match.pk), data) == "recorded"
    assert calls == {"encode": 1, "decode": 1}
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.replay_stored() == data  # stored as received
    assert {name for name, _ in captured_followups} >= {"workers.tasks.notify_result", "workers.tasks.store_frames"}


def migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


def test_the_migration_recounts_strikes_stored_by_the_old_count(captured_followups: list[Any]) -> None:
    runner = played_match()
    assert runner.replay is not None
    match = running_match()
    assert record_result(str(match.pk), runner.replay.encode()) == "recorded"
    wanted = {int(st.seat): st.strikes for st in runner.seats}
    try:
        migrate(("matches", "0005_seat_latency"))
        MatchSeat.objects.filter(match=match).update(strikes=0)  # what the old count stored
    finally:
        migrate(("matches", "0006_recount_strikes"))
    assert {s.seat: s.strikes for s in MatchSeat.objects.filter(match=match)} == wanted
