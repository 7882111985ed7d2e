"""Referee throughput: decisions per second and per-decision overhead, against a gRPC floor.

For 1, 10 and 100 concurrent matches, two instant SDK bots (``BotClient`` with in-loop bots that
take the first option) play through a real referee on loopback, and the bench reports decisions
per second and the time one match spends per decision. The floor is a raw ``grpc.aio``
bidirectional ping-pong over the same number of concurrent streams, measured in the same process
and run: one round trip is the least a remote decision can cost. The ratio is referee time per
decision over floor time per round trip (1.0 would be a referee that costs nothing).

    python -m bench.bench_referee [--game tinygame] [--decisions 20000]

Server, bots and the floor's client all share one event loop and one core, as in the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import AsyncIterator, Sequence

import grpc

from referee.core import Decision, JSONDict, Option, register
from referee.core.ids import BotId
from referee.sdk import BotClient
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.match import SeatSpec
from referee.server.service import create_server, tune_gc
from referee.server.sinks import MemoryResultSink
from referee.server.timecontrol import TimeSettings

CONCURRENCY = (1, 10, 100)


class InstantBot:
    """Takes the first option at once."""

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        return options[0].id


async def floor(streams: int, round_trips: int) -> tuple[float, float]:
    """Raw grpc.aio bidi ping-pong; returns (round trips per second, seconds per round trip per stream)."""

    async def echo(request_iterator: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        async for msg in request_iterator:
            yield msg

    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(echo)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    per_stream = max(1, round_trips // streams)
    payload = b"x" * 200  # about the size of a small decision request
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        method = channel.stream_stream("/bench.Echo/Echo")

        async def one() -> None:
            call = method()
            for _ in range(per_stream):
                await call.write(payload)
                await call.read()
            await call.done_writing()

        start = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(streams)))
        elapsed = time.perf_counter() - start
    await server.stop(None)
    total = per_stream * streams
    return total / elapsed, elapsed / per_stream


async def referee_run(game: str, matches: int, decisions: int) -> tuple[float, float, float]:
    """Returns (decisions per second, seconds per decision per match, longest engine step)."""
    store = MemoryTokenStore()
    rs = create_server("127.0.0.1:0", tokens=store, sink=MemoryResultSink(), settings=RefereeSettings())
    await rs.start()
    address = f"127.0.0.1:{rs.port}"
    clients = []
    for name in ("a", "b"):
        token = store.issue(BotIdentity(BotId(name), name))
        client = BotClient(InstantBot, address, token, games=[game], max_matches=matches, threaded=False)
        clients.append((client, asyncio.create_task(client.run())))
    tc = TimeSettings(decision_time=10, bank_time=100).to_proto()
    done = 0
    longest = 0.0
    seed = 0
    start = time.perf_counter()
    per_match_time = 0.0
    while done < decisions:
        wave_start = time.perf_counter()
        runners = []
        for _ in range(matches):
            seed += 1
            seats = [SeatSpec(bot_id=BotId("a")), SeatSpec(bot_id=BotId("b"))]
            runners.append(rs.referee.start_match(game=game, seats=seats, seed=seed, time_control=tc))
        await asyncio.gather(*(r.wait() for r in runners))
        wave = sum(len(r.replay.decisions) for r in runners if r.replay)
        per_match_time += (time.perf_counter() - wave_start) * matches
        done += wave
        longest = max([longest, *(r.max_step_seconds for r in runners)])
    elapsed = time.perf_counter() - start
    for client, task in clients:
        client.stop()
        await asyncio.gather(task, return_exceptions=True)
    await rs.stop(0.1)
    return done / elapsed, per_match_time / done, longest


async def main_async(game: str, decisions: int) -> None:
    if game == "tinygame":
        from tests.conformance.tinygame import TinyGame

        register(TinyGame())
    print(f"referee bench: game {game}, about {decisions} decisions per row, one process, loopback")
    header = (
        f"{'matches':>7} | {'floor rt/s':>10} {'floor us/rt':>11} | {'referee dec/s':>13} "
        f"{'us/dec':>8} | {'ratio':>5} | {'max step ms':>11}"
    )
    print(header)
    print("-" * len(header))
    for n in CONCURRENCY:
        f_rate, f_lat = await floor(n, decisions)
        r_rate, r_lat, longest = await referee_run(game, n, decisions)
        print(
            f"{n:>7} | {f_rate:>10.0f} {f_lat * 1e6:>11.0f} | {r_rate:>13.0f} {r_lat * 1e6:>8.0f} | "
            f"{r_lat / f_lat:>5.2f} | {longest * 1e3:>11.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="tinygame")
    parser.add_argument("--decisions", type=int, default=20_000)
    args = parser.parse_args()
    tune_gc()  # as `brawl referee` does
    asyncio.run(main_async(args.game, args.decisions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
