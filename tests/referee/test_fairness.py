"""Secrets stay secret until the match is over (issue 11, findings 1 and 7; the seed commitment).

Partitions: a match pending (its bot not connected), running (a slow bot), over; with and without
the service credential; seed given or not given; a replay whose seed matches its commitment, one
with a tampered seed, one checked against a wrong published commitment. Real referee on loopback,
real SDK bots, both product games.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
import pytest
from brawl.referee.v1 import referee_pb2, referee_pb2_grpc
from google.protobuf.internal.encoder import _VarintBytes  # type: ignore[attr-defined]
from prometheus_client import REGISTRY, generate_latest

from common.seeding import new_seed
from referee.core import Decision, JSONDict, Option
from referee.core.contract import EVERYONE, Event
from referee.core.fairness import seed_commitment
from referee.core.ids import BotId
from referee.core.replay import Replay, ReplayError, simulate, verify_commitment
from referee.protocol import codec
from referee.server.match import SeatSpec
from referee.server.sinks import MemoryResultSink
from service.cli import main as brawl
from tests.referee.harness import FAST, referee_env

State = referee_pb2.Match.State
PRODUCT_GAMES = ["scrumbrawl", "superfantasybrawl"]


class SlowFirstEveryTime:
    """Plays the first option after a short pause, so a match stays in play while it is probed."""

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        time.sleep(0.005)
        return options[0].id


def leaks(blob: bytes, seed: int) -> bool:
    """Whether ``blob`` carries ``seed`` as decimal text or as a protobuf varint of at least 5 bytes."""
    varint = _VarintBytes(seed)
    return str(seed).encode() in blob or (len(varint) >= 5 and varint in blob)


@pytest.mark.parametrize("game", PRODUCT_GAMES)
def test_no_response_log_or_metric_carries_the_seed_of_a_match_in_play(
    game: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Finding 1: 'GetMatch/ListMatches of a running match return its seed'. Now no response of the
    internal API (with the credential), no log line and no metric carries it until the match is
    over; WatchMatch carries exactly the public events; the replay reveals the seed."""
    caplog.set_level(logging.DEBUG)
    seed = new_seed()
    while seed.bit_length() < 40:  # a short seed's digits could appear by chance in any blob
        seed = new_seed()

    async def scenario() -> None:
        async with referee_env() as env, env.api_channel() as channel:
            api = referee_pb2_grpc.RefereeServiceStub(channel)
            env.connect(SlowFirstEveryTime, "slow", games=[game])
            started = await api.StartMatch(
                referee_pb2.StartMatchRequest(
                    request_id="fair-1",
                    match_id="fair-1",
                    game=game,
                    seats=[referee_pb2.Seat(bot_id="slow"), referee_pb2.Seat(house_bot="random")],
                    seed=seed,
                    time_control=FAST.to_proto(),
                )
            )
            pending = await api.StartMatch(
                referee_pb2.StartMatchRequest(
                    match_id="never-joined",
                    game=game,
                    seats=[referee_pb2.Seat(bot_id="absent"), referee_pb2.Seat(house_bot="random")],
                    seed=seed,
                    join_timeout_seconds=30,
                )
            )
            assert pending.match.state == State.STATE_PENDING and not pending.match.HasField("seed")
            seen: list[bytes] = [started.SerializeToString(), pending.SerializeToString()]
            watched: list[referee_pb2.WatchMatchResponse] = []

            async def watch() -> None:
                async for update in api.WatchMatch(referee_pb2.WatchMatchRequest(match_id="fair-1")):
                    watched.append(update)

            watcher = asyncio.create_task(watch())
            running_probes = 0
            while True:
                got = await api.GetMatch(referee_pb2.GetMatchRequest(match_id="fair-1"))
                if got.match.state not in (State.STATE_PENDING, State.STATE_RUNNING):
                    break
                listed = await api.ListMatches(referee_pb2.ListMatchesRequest())
                assert not got.match.HasField("seed")
                assert got.match.seed_commitment == seed_commitment("fair-1", seed)
                # A listed match may have ended since the GetMatch: only those still in play count.
                in_play = [m for m in listed.matches if m.state in (State.STATE_PENDING, State.STATE_RUNNING)]
                assert all(not m.HasField("seed") for m in in_play)
                seen += [got.SerializeToString(), *(m.SerializeToString() for m in in_play)]
                running_probes += got.match.state == State.STATE_RUNNING
                await asyncio.sleep(0.01)
            await watcher
            assert running_probes >= 3, "the match ended before it could be probed in play"
            seen += [w.SerializeToString() for w in watched]
            for blob in seen:
                assert not leaks(blob, seed)
            final = await api.GetMatch(referee_pb2.GetMatchRequest(match_id="fair-1"))
            assert final.match.HasField("seed") and final.match.seed == seed, "revealed once over"
            replay = env.sink.replays["fair-1"]
            assert replay.seed == seed and replay.meta["match_id"] == "fair-1"
            assert verify_commitment(replay) == seed_commitment("fair-1", seed)
            # A spectator sees exactly the public events: none hidden from seat-less viewers, each
            # numbered in the spectator's own sequence.
            full = simulate(replay).events(0, EVERYONE)
            public = [(e.kind, e.data) for e in full if e.visible(None)]
            sent = [ev for w in watched for ev in w.events]
            assert [ev.index for ev in sent] == list(range(len(public)))
            assert [(ev.kind, codec.payload_data(ev)) for ev in sent] == [
                (kind, codec.payload_data(codec.event(game, Event(0, kind, data)))) for kind, data in public
            ]
            assert len(public) < len(full), "the game has hidden events, so the check above means something"
            await api.CancelMatch(referee_pb2.CancelMatchRequest(match_id="never-joined"))

    asyncio.run(scenario())
    for record in caplog.records:
        assert not leaks(record.getMessage().encode(), seed), record.getMessage()
    assert not leaks(generate_latest(REGISTRY), seed)


class GatedSink:
    """A result sink that records only once its gate opens: the match's end is held in the window
    where the engine has ended and the state still says RUNNING."""

    def __init__(self, inner: MemoryResultSink) -> None:
        self.inner = inner
        self.gate = asyncio.Event()

    async def record(self, match_id: str, replay: Replay) -> str:
        await self.gate.wait()
        return await self.inner.record(match_id, replay)


@pytest.mark.parametrize("game", PRODUCT_GAMES)
def test_the_seed_shows_only_with_the_final_state_not_while_the_end_is_recorded(game: str) -> None:
    """The end of a match yields to the loop (its digest in steps, the sink, the journal) while
    its state still says RUNNING: GetMatch and ListMatches in that window carry no seed, and the
    first answer with the final state carries it. (A fairness test caught it in CI: the seed was
    shown from the engine's end, not from the final state.) The sink holds the window open until
    the API has been asked; the digest yields after every event, so it is probed there too when
    the loop lets it."""

    async def scenario() -> None:
        async with referee_env() as env, env.api_channel() as channel:
            api = referee_pb2_grpc.RefereeServiceStub(channel)
            sink = GatedSink(env.sink)
            env.referee.sink = sink
            env.connect(SlowFirstEveryTime, "slow", games=[game])
            r = env.referee.start_match(
                game=game,
                seats=[SeatSpec(bot_id=BotId("slow")), SeatSpec(house_bot="random")],
                seed=987_654_321_987,
                time_control=FAST.to_proto(),
            )
            r.finish_step = 1
            ending: list[referee_pb2.Match] = []

            async def ask() -> None:
                got = await api.GetMatch(referee_pb2.GetMatchRequest(match_id=r.match_id))
                listed = await api.ListMatches(referee_pb2.ListMatchesRequest())
                ending.extend([got.match, *(m for m in listed.matches if m.match_id == r.match_id)])

            while not r.is_over():
                await asyncio.sleep(0)
            while r.replay is None and not r.done.is_set():  # the digest's steps, until the sink
                await ask()
            await ask()  # the sink holds the end: the state still says RUNNING
            sink.gate.set()
            await asyncio.wait_for(r.wait(), 60)
            assert [m.state for m in ending[-2:]] == [State.STATE_RUNNING] * 2
            assert not any(m.HasField("seed") for m in ending)
            final = await api.GetMatch(referee_pb2.GetMatchRequest(match_id=r.match_id))
            assert final.match.state == State.STATE_SUCCEEDED and final.match.seed == 987_654_321_987

    asyncio.run(scenario())


def test_a_start_without_a_seed_draws_a_fresh_secret_one() -> None:
    """Finding 7: 'StartMatch without a seed plays seed 0, so every unseeded match has the same
    deal'. Now each draws new_seed()."""

    async def scenario() -> None:
        async with referee_env() as env, env.api_channel() as channel:
            api = referee_pb2_grpc.RefereeServiceStub(channel)
            for n in range(3):
                await api.StartMatch(
                    referee_pb2.StartMatchRequest(
                        match_id=f"u-{n}",
                        game="tinygame",
                        seats=[referee_pb2.Seat(house_bot="random"), referee_pb2.Seat(house_bot="random")],
                    )
                )
            await env.referee.wait_all(10)
            seeds = [env.sink.replays[f"u-{n}"].seed for n in range(3)]
            assert len(set(seeds)) == 3 and 0 not in seeds
            explicit_zero = await api.StartMatch(
                referee_pb2.StartMatchRequest(
                    match_id="z",
                    game="tinygame",
                    seats=[referee_pb2.Seat(house_bot="random"), referee_pb2.Seat(house_bot="random")],
                    seed=0,
                )
            )
            assert explicit_zero.match.seed_commitment == seed_commitment("z", 0), "an explicit 0 is kept"

    asyncio.run(scenario())


def test_replay_verify_checks_the_seed_against_its_commitment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`brawl replay verify` re-derives the commitment from the revealed seed and the match id and
    fails, naming both, when the replay or a published commitment disagrees."""

    async def play() -> Replay:
        async with referee_env() as env:
            runner = env.start("tinygame", ["house:random", "house:random"], seed=123_456_789, match_id="c-7")
            await runner.wait()
            return env.sink.replays["c-7"]

    replay = asyncio.run(play())
    assert replay.meta["seed_commitment"] == seed_commitment("c-7", 123_456_789)
    good = tmp_path / "good.json"
    good.write_text(replay.dumps())
    assert brawl(["replay", "verify", str(good)]) == 0
    assert f"seed matches commitment {seed_commitment('c-7', 123_456_789)}" in capsys.readouterr().out
    published = seed_commitment("c-7", 123_456_789)
    assert brawl(["replay", "verify", str(good), "--commitment", published.upper()]) == 0
    capsys.readouterr()

    wrong = seed_commitment("c-7", 1)
    assert brawl(["replay", "verify", str(good), "--commitment", wrong]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and wrong in out and "differs from the published" in out

    # A seed swapped after the fact no longer opens the commitment (the re-simulation would also
    # differ; the commitment check names the cause on its own).
    tampered = Replay.loads(replay.dumps())
    tampered.seed = 987_654_321
    with pytest.raises(ReplayError, match="does not match the seed commitment"):
        verify_commitment(tampered)
    no_id = Replay.loads(replay.dumps())
    del no_id.meta["match_id"]
    with pytest.raises(ReplayError, match=r"names no meta\.match_id"):
        verify_commitment(no_id)


def test_calls_without_the_credential_learn_nothing(tmp_path: Path) -> None:
    """Finding 1 from the outside: every RefereeService method refuses a caller without the
    credential, or with a wrong one, before reading its request."""

    async def scenario() -> None:
        async with referee_env() as env:
            runner = env.start("tinygame", ["house:random", "house:random"], match_id="x-1")
            for secret in ("", "wrong-" + env.secret):
                async with env.api_channel(secret=secret) as channel:
                    api = referee_pb2_grpc.RefereeServiceStub(channel)
                    calls = [
                        api.GetMatch(referee_pb2.GetMatchRequest(match_id="x-1")),
                        api.ListMatches(referee_pb2.ListMatchesRequest()),
                        api.CancelMatch(referee_pb2.CancelMatchRequest(match_id="x-1")),
                        api.ListBots(referee_pb2.ListBotsRequest()),
                        api.StartMatch(referee_pb2.StartMatchRequest(game="tinygame")),
                    ]
                    for call in calls:
                        with pytest.raises(grpc.aio.AioRpcError) as exc:
                            await call
                        assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
                    with pytest.raises(grpc.aio.AioRpcError) as exc:
                        async for _ in api.WatchMatch(referee_pb2.WatchMatchRequest(match_id="x-1")):
                            pass
                    assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
            await runner.wait()
            assert runner.replay is not None and runner.replay.outcome is not None
            assert runner.replay.outcome.termination.value != "cancelled", "the refused cancel did nothing"

    asyncio.run(scenario())
