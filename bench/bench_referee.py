"""Referee throughput against the gRPC floor: decisions/s and referee CPU per decision.

For each game and for 1, 10 and 100 concurrent matches, two instant bots speaking raw gRPC (they
answer each request with its first option without decoding anything else, and answer pings) play
through real referees on loopback, each referee in
its own process (``--processes 1,2``: the matches are spread evenly over them, each process with
its own pair of bot sessions). The floor is a raw ``grpc.aio`` bidirectional ping-pong, its
echo servers in the same number of child processes, driven over the same number of concurrent
streams by the same parent process, measured in the same run:

* ``dec/s``: decisions per wall-clock second over all referee processes;
* ``ratio``: ``dec/s`` over the floor's round trips per second (1.0 would be a referee as cheap
  as an echo);
* ``us cpu/dec``: CPU of the referee processes per decision (``time.process_time`` in each child),
  beside the floor servers' CPU per round trip;
* ``max step ms``: the longest step seen on a referee's loop (applying the answers, then asking
  the next decision: the engine's work, the patch, the messages), in wall time and, with
  ``--step-cpu``, in the loop thread's CPU time (``cpu``; the wall time also counts the process
  being descheduled on a loaded machine; without the flag ``cpu`` is ``-``: the thread CPU clock
  is a system call, which the referee only reads on request);
* ``gc``: the longest garbage collection in the window, in the loop thread's CPU time (ms): a
  collection runs inside whichever step allocates past the threshold, and is what makes the
  longest steps (an engine step itself stays under a millisecond at the 99.9th percentile);
* ``cb`` and ``lag``, with ``--lag`` (``-`` without: the timing costs a few us per callback):
  ``cb`` is the longest single callback the referee's loop ran (a match's step or its end, a
  reader's batch, a collection inside any of them: the longest one thing held every other
  match), ``lag`` how late a 2 ms timer on the loop fired at worst (that callback plus the queue
  of ready callbacks ahead of it: at saturation, every ready match's step runs once before the
  loop looks at its timers and sockets again);
* ``msg/wr``: referee messages per stream message the bots received (1 without batches);
* ``batch``: ``on`` when the bots' Hello asks for batches and they answer a batch with one.

    python -m bench.bench_referee [--games scrumbrawl,superfantasybrawl] [--concurrency 1,10,100]
                                  [--processes 1,2] [--decisions 4000] [--step-cpu] [--no-yield] [--lag]
    python -m bench.bench_referee --components    # loop mechanics, old against new
    python -m bench.bench_referee --messages      # the referee's own work per decision
    python -m bench.bench_referee --breakdown     # where a decision's CPU goes: engine, referee, network

The bots run in the parent process, so on a 2-core machine they compete with two referee
processes for the cores; the floor pays the same (its client is in the parent too).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import multiprocessing as mp
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import grpc
from brawl.bot.v1 import bot_pb2, bot_pb2_grpc

from referee.core import register
from referee.core.ids import BotId, MatchId, Seat

CONCURRENCY = (1, 10, 100)
LAG_TICK = 0.002
"""The period of the ``--lag`` timer on a referee's loop, seconds."""


STREAM_COUNTS = [0, 0]
"""Referee messages the bench's bots received, and the stream messages they came in (batches count once)."""


async def instant_bot(address: str, token: str, game: str, seats: int, batching: bool = False) -> None:
    """A raw gRPC bot: Hello, then the first option of every request at once; runs until cancelled.

    With ``batching`` its Hello asks for ``ResponseBatch``es, and it answers the requests of one
    batch with one ``RequestBatch``; answers that are ready together (several batches read before
    its stream could write) go as one ``RequestBatch`` too, as the SDK sends them.
    """
    outbox: asyncio.Queue[bot_pb2.ConnectRequest] = asyncio.Queue()
    hello = bot_pb2.Hello(games=[game], max_matches=seats, client="bench")
    if batching:
        hello.batching = True  # an older tree (the "before" of a comparison) has no such field
    outbox.put_nowait(bot_pb2.ConnectRequest(hello=hello))

    async def requests() -> AsyncIterator[bot_pb2.ConnectRequest]:
        while True:
            item = await outbox.get()
            if batching and not outbox.empty():
                # Everything ready goes as one RequestBatch (at most 64 answers), as the SDK sends it.
                items: list[bot_pb2.ConnectRequest] = []
                for one in [item, *(outbox.get_nowait() for _ in range(outbox.qsize()))]:
                    items.extend(one.batch.messages if one.WhichOneof("message") == "batch" else [one])
                for i in range(0, len(items), 64):
                    yield bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=items[i : i + 64]))
                continue
            yield item

    def reply(msg: Any) -> bot_pb2.ConnectRequest | None:
        kind = msg.WhichOneof("message")
        if kind == "decision_request":
            req = msg.decision_request
            answer = bot_pb2.Answer(match_id=req.match_id, decision_id=req.decision_id, option_id=req.options[0].id)
            return bot_pb2.ConnectRequest(answer=answer)
        if kind == "ping":
            return bot_pb2.ConnectRequest(pong=bot_pb2.Pong(ping_id=msg.ping.ping_id))
        return None

    async with grpc.aio.insecure_channel(address) as channel:
        stub: Any = bot_pb2_grpc.BotServiceStub(channel)  # type: ignore[no-untyped-call]
        call = stub.Connect(requests(), metadata=(("authorization", f"Bearer {token}"),))
        async for msg in call:
            STREAM_COUNTS[1] += 1
            if batching and msg.WhichOneof("message") == "batch":
                STREAM_COUNTS[0] += len(msg.batch.messages)
                replies = [r for r in map(reply, msg.batch.messages) if r is not None]
                if replies:
                    outbox.put_nowait(bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=replies)))
                continue
            STREAM_COUNTS[0] += 1
            r = reply(msg)
            if r is not None:
                outbox.put_nowait(r)


def _register_test_games(games: Sequence[str]) -> None:
    if "tinygame" in games:
        from tests.conformance.tinygame import TinyGame

        register(TinyGame())


# ----- child processes -----------------------------------------------------------------------


async def play_window(
    referee: Any,
    game: str,
    matches: int,
    target: int,
    on_start: Callable[[], None] = lambda: None,
    on_stop: Callable[[], None] = lambda: None,
    on_end: Callable[[Any], None] = lambda runner: None,
) -> tuple[int, float, float]:
    """Keeps ``matches`` of ``game`` running between bots "a" and "b" (an ended one is replaced at
    once) and measures a window of about ``target`` decisions after half a second of warm-up.

    ``on_start`` and ``on_stop`` are called as the window opens and closes (to read other clocks
    over the same window), ``on_end`` with every runner that ended in it and, at its close, with
    those still running, which are then cancelled. Returns (decisions, CPU seconds, wall seconds).
    """
    from referee.protocol.timecontrol import TimeSettings
    from referee.server.match import SeatSpec

    tc = TimeSettings(decision_time=30, bank_time=300).to_proto()
    seats = [SeatSpec(bot_id=BotId("a")), SeatSpec(bot_id=BotId("b"))]
    serial = 0

    def start() -> Any:
        nonlocal serial
        serial += 1
        return referee.start_match(game=game, seats=seats, seed=serial, time_control=tc)

    runners = [start() for _ in range(matches)]
    ended = 0

    def count() -> int:
        return ended + sum(len(r.recorder.replay.decisions) for r in runners)

    await asyncio.sleep(0.5)  # warm-up: sessions seated, first requests out
    c0, cpu0, t0 = count(), time.process_time(), time.perf_counter()
    on_start()
    while count() - c0 < target:
        await asyncio.sleep(0.05)
        for i, r in enumerate(runners):
            if r.is_over():
                ended += len(r.recorder.replay.decisions)
                on_end(r)
                runners[i] = start()
    c1, cpu1, t1 = count(), time.process_time(), time.perf_counter()
    on_stop()
    for r in runners:
        on_end(r)
        r.cancel("bench window over")
    await asyncio.gather(*(r.wait() for r in runners))
    return c1 - c0, cpu1 - cpu0, t1 - t0


def _referee_child(
    conn: Connection, games: Sequence[str], step_cpu: bool = False, no_yield: bool = False, lag: bool = False
) -> None:
    """A referee process: serves bots, starts waves of matches on command, reports its CPU."""
    from referee.server.auth import BotIdentity, MemoryTokenStore
    from referee.server.hub import RefereeSettings
    from referee.server.match import MatchRunner
    from referee.server.service import create_server, tune_gc
    from referee.server.sinks import MemoryResultSink

    _register_test_games(games)
    tune_gc()  # as `brawl referee` does
    # The longest garbage collection in the window, in the loop thread's CPU: the usual cause of a
    # long step (a collection runs inside whichever step allocates past the threshold).
    gc_longest = [0.0, 0.0]  # (longest, start of the one running)

    def gc_watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_longest[1] = time.thread_time()
        else:
            gc_longest[0] = max(gc_longest[0], time.thread_time() - gc_longest[1])

    gc.callbacks.append(gc_watch)
    MatchRunner.step_cpu = step_cpu
    MatchRunner.yield_between = not no_yield

    # With --lag: the longest single callback the loop ran (a match's step or its end, a reader's
    # batch, a writer, a collection inside any of them): how long one thing held every other match.
    worst_callback = [0.0]
    if lag:
        run_handle = asyncio.events.Handle._run

        def timed_run(handle: asyncio.Handle) -> None:
            t = time.perf_counter()
            run_handle(handle)
            took = time.perf_counter() - t
            if took > worst_callback[0]:
                worst_callback[0] = took

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]

    async def window(
        referee: Any, game: str, matches: int, target: int
    ) -> tuple[int, float, float, tuple[float, float], float, tuple[float, float]]:
        """A window of play (:func:`play_window`): (decisions, CPU seconds, wall seconds, longest
        engine step as (wall, CPU), longest garbage collection in CPU seconds, and with ``lag`` the
        longest loop callback and the latest timer in seconds (NaN without))."""
        longest = [0.0, 0.0]
        worst_lag = [float("nan")]

        async def ticker() -> None:
            # How late a timer fires: the longest callback plus the queue of ready callbacks ahead
            # of it (at saturation every ready match's step runs before the loop looks again).
            worst_lag[0] = 0.0
            while True:
                t = time.perf_counter()
                await asyncio.sleep(LAG_TICK)
                worst_lag[0] = max(worst_lag[0], time.perf_counter() - t - LAG_TICK)

        ticking: list[asyncio.Task[None]] = []

        def end(r: Any) -> None:
            # Older referees (the "before" tree) have no CPU measure.
            longest[0] = max(longest[0], r.max_step_seconds)
            longest[1] = max(longest[1], r.max_step_cpu_seconds if step_cpu else float("nan"))

        def start() -> None:
            gc_longest[0] = 0.0
            worst_callback[0] = 0.0
            if lag:
                ticking.append(asyncio.create_task(ticker()))

        def stop() -> None:
            for task in ticking:
                task.cancel()
            ticking.clear()

        n, cpu, wall = await play_window(referee, game, matches, target, on_start=start, on_stop=stop, on_end=end)
        held = (worst_callback[0], worst_lag[0]) if lag else (float("nan"), float("nan"))
        return n, cpu, wall, (longest[0], longest[1]), gc_longest[0], held

    async def main() -> None:
        store = MemoryTokenStore()
        rs = create_server("127.0.0.1:0", tokens=store, sink=MemoryResultSink(), settings=RefereeSettings())
        await rs.start()
        tokens = [store.issue(BotIdentity(BotId(n), n)) for n in ("a", "b")]
        conn.send((rs.port, tokens))
        loop = asyncio.get_running_loop()
        while True:
            cmd = await loop.run_in_executor(None, conn.recv)
            if cmd[0] == "stop":
                break
            _, game, matches, target = cmd
            conn.send(await window(rs.referee, game, matches, target))
        await rs.stop(0.1)

    asyncio.run(main())


def _echo_child(conn: Connection) -> None:
    """A floor server process: a raw bidirectional echo; reports its CPU between commands."""

    async def echo(request_iterator: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        async for msg in request_iterator:
            yield msg

    async def main() -> None:
        server = grpc.aio.server()
        handler = grpc.stream_stream_rpc_method_handler(echo)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        conn.send(port)
        loop = asyncio.get_running_loop()
        while True:
            cmd = await loop.run_in_executor(None, conn.recv)
            if cmd == "stop":
                break
            conn.send(time.process_time())
        await server.stop(None)

    asyncio.run(main())


def _ms(seconds: float) -> str:
    """Milliseconds with two decimals, ``-`` for NaN (a figure not measured)."""
    return "-" if math.isnan(seconds) else f"{seconds * 1e3:.2f}"


def _spawn(target: Any, *args: Any) -> tuple[Any, Connection]:
    parent, child = mp.get_context("spawn").Pipe()
    proc = mp.get_context("spawn").Process(target=target, args=(child, *args), daemon=True)
    proc.start()
    return proc, parent


async def _recv(conn: Connection) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, conn.recv)


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


# ----- the floor -----------------------------------------------------------------------------


async def floor(servers: Sequence[tuple[Any, Connection, int]], streams: int, round_trips: int) -> tuple[float, float]:
    """Returns (round trips per second, server CPU seconds per round trip)."""
    per_stream = max(1, round_trips // streams)
    payload = b"x" * 200  # about the size of a small decision request
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _, _, port in servers]
    try:
        methods = [c.stream_stream("/bench.Echo/Echo") for c in channels]

        async def one(i: int) -> None:
            call = methods[i % len(methods)]()
            for _ in range(per_stream):
                await call.write(payload)
                await call.read()
            await call.done_writing()

        for _, conn, _ in servers:
            conn.send("cpu")
        cpu0 = [await _recv(conn) for _, conn, _ in servers]
        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(streams)))
        elapsed = time.perf_counter() - start
        for _, conn, _ in servers:
            conn.send("cpu")
        cpu1 = [await _recv(conn) for _, conn, _ in servers]
    finally:
        for c in channels:
            await c.close()
    total = per_stream * streams
    return total / elapsed, (sum(cpu1) - sum(cpu0)) / total


# ----- the referee ---------------------------------------------------------------------------


async def referee_run(
    referees: Sequence[tuple[Any, Connection, int, list[str]]],
    game: str,
    matches: int,
    decisions: int,
    batching: bool = False,
) -> tuple[float, float, float, float, float, tuple[float, float]]:
    """Returns (decisions/s, referee CPU seconds per decision, longest engine step wall and CPU
    seconds, longest garbage collection in CPU seconds, (longest loop callback, latest timer) in
    seconds or NaN)."""
    bots = []
    for _, _, port, tokens in referees:
        share = max(1, -(-matches // len(referees)))
        for token in tokens:
            bots.append(asyncio.create_task(instant_bot(f"127.0.0.1:{port}", token, game, share, batching)))
    await asyncio.sleep(0.5)  # let every session open before the first wave
    STREAM_COUNTS[:] = [0, 0]
    rate, done, cpu, longest, longest_cpu, longest_gc = 0.0, 0, 0.0, 0.0, 0.0, 0.0
    held = (float("nan"), float("nan"))
    try:
        shares = _split(matches, len(referees))
        for (_, conn, _, _), share in zip(referees, shares, strict=True):
            if share:
                conn.send(("run", game, share, max(1, decisions * share // matches)))
        for (_, conn, _, _), share in zip(referees, shares, strict=True):
            if share:
                n, c, elapsed, step, gc_cpu, lag = await _recv(conn)
                longest_gc = max(longest_gc, gc_cpu)
                held = lag if math.isnan(held[0]) else (max(held[0], lag[0]), max(held[1], lag[1]))
                rate += n / elapsed  # the processes run side by side: their rates add up
                done += n
                cpu += c
                longest = max(longest, step[0])
                longest_cpu = max(longest_cpu, step[1])
    finally:
        for task in bots:
            task.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
    return rate, cpu / done, longest, longest_cpu, longest_gc, held


async def main_async(
    games: Sequence[str],
    concurrency: Sequence[int],
    processes: Sequence[int],
    decisions: int,
    step_cpu: bool = False,
    no_yield: bool = False,
    batching: Sequence[bool] = (False, True),
    lag: bool = False,
) -> None:
    print(
        f"referee bench: about {decisions} decisions per row, loopback, referees and floor servers in child processes"
    )
    header = (
        f"{'game':<18} {'procs':>5} {'matches':>7} {'batch':>5} | {'floor rt/s':>10} {'us cpu/rt':>9} | "
        f"{'dec/s':>7} {'us cpu/dec':>10} {'msg/wr':>6} | {'ratio':>5} | "
        f"{'max step ms':>11} {'cpu':>6} {'gc':>6} {'cb':>6} {'lag':>6}"
    )
    print(header)
    print("-" * len(header))
    for p in processes:
        echoes = []
        for _ in range(p):
            proc, conn = _spawn(_echo_child)
            echoes.append((proc, conn, await _recv(conn)))
        referees = []
        for _ in range(p):
            proc, conn = _spawn(_referee_child, list(games), step_cpu, no_yield, lag)
            port, tokens = await _recv(conn)
            referees.append((proc, conn, port, tokens))
        try:
            for game in games:
                for n in concurrency:
                    for batch in batching:
                        f_rate, f_cpu = await floor(echoes, n, decisions)
                        r_rate, r_cpu, longest, longest_cpu, longest_gc, held = await referee_run(
                            referees, game, n, decisions, batch
                        )
                        per_write = STREAM_COUNTS[0] / max(1, STREAM_COUNTS[1])
                        print(
                            f"{game:<18} {p:>5} {n:>7} {'on' if batch else 'off':>5} | "
                            f"{f_rate:>10.0f} {f_cpu * 1e6:>9.0f} | "
                            f"{r_rate:>7.0f} {r_cpu * 1e6:>10.0f} {per_write:>6.2f} | "
                            f"{r_rate / f_rate:>5.2f} | "
                            f"{longest * 1e3:>11.2f} {f'{longest_cpu * 1e3:.2f}' if step_cpu else '-':>6} "
                            f"{longest_gc * 1e3:>6.2f} {_ms(held[0]):>6} {_ms(held[1]):>6}",
                            flush=True,
                        )
        finally:
            for proc, conn, _ in echoes:
                conn.send("stop")
                proc.join(5)
            for proc, conn, _, _ in referees:
                conn.send(("stop",))
                proc.join(5)
            for proc in [e[0] for e in echoes] + [r[0] for r in referees]:
                if proc.is_alive():
                    proc.kill()


# ----- loop mechanics per decision (--components) ---------------------------------------------


def components(rounds: int = 9, n: int = 20_000) -> None:
    """Times, in this thread's CPU, the loop mechanics a decision pays, the old way against the new.

    Each pair runs back to back ``rounds`` times, interleaved; the minimum per operation is
    printed (the least disturbed by the other processes on the machine). The old ways are copied
    here, as they were in the referee before issue 14's hop pass:

    * ``clock``: ``asyncio.get_running_loop().time()`` (a ``getpid`` system call in CPython 3.11)
      against ``time.monotonic()``, the same clock; the referee reads it about five times a decision;
    * ``wait``: a match's wait for an answer (a future, and a timer set and cancelled for every
      decision) against the same with one timer kept while deadlines move forward;
    * ``outbox``: a message through a session's ``asyncio.Queue`` to its writer task against the
      lighter deque-and-future outbox (:class:`referee.server.hub.Outbox`);
    * ``hop``: one more task step between two tasks (``await asyncio.sleep(0)``), for scale.
    """
    from referee.server.hub import Outbox
    from referee.server.match import MatchRunner

    async def clock_old() -> None:
        for _ in range(n):
            asyncio.get_running_loop().time()

    async def clock_new() -> None:
        for _ in range(n):
            time.monotonic()

    class OldWaiter:
        def __init__(self) -> None:
            self._waiter: asyncio.Future[None] | None = None

        def _wake(self) -> None:
            w = self._waiter
            if w is not None and not w.done():
                w.set_result(None)

        async def _sleep_until(self, when: float) -> None:
            loop = asyncio.get_running_loop()
            self._waiter = loop.create_future()
            handle = loop.call_at(when, self._wake)
            try:
                await self._waiter
            finally:
                handle.cancel()
                self._waiter = None

    def new_waiter() -> Any:
        r = MatchRunner.__new__(MatchRunner)
        r._waiter, r._loop, r._timer, r._timer_at = None, None, None, 0.0
        return r

    async def wait(waiter: Any) -> None:
        loop = asyncio.get_running_loop()
        for i in range(n):
            loop.call_soon(waiter._wake)  # the answer, from another callback
            await waiter._sleep_until(time.monotonic() + 30.0 + i * 1e-6)
        if getattr(waiter, "_timer", None) is not None:
            waiter._stop_timer()

    async def wait_old() -> None:
        await wait(OldWaiter())

    async def wait_new() -> None:
        await wait(new_waiter())

    async def through(box: Any) -> None:
        async def writer() -> None:
            while await box.get() is not None:
                pass

        task = asyncio.create_task(writer())
        for _ in range(n):
            box.put_nowait(b"x")
            await asyncio.sleep(0)  # the match moves on; the writer takes the message
        box.put_nowait(None)
        await task

    async def outbox_old() -> None:
        await through(asyncio.Queue())

    async def outbox_new() -> None:
        await through(Outbox())

    async def hop() -> None:
        for _ in range(n):
            await asyncio.sleep(0)

    async def nothing() -> None:
        for _ in range(n):
            pass

    pairs = {
        "clock": (clock_old, clock_new),
        "wait": (wait_old, wait_new),
        "outbox": (outbox_old, outbox_new),
        "hop": (nothing, hop),
    }
    best: dict[tuple[str, int], float] = {}

    async def run() -> None:
        for _ in range(rounds):
            for name, fns in pairs.items():
                for which, fn in enumerate(fns):
                    c0 = time.thread_time()
                    await fn()
                    per = (time.thread_time() - c0) / n
                    best[(name, which)] = min(best.get((name, which), per), per)

    asyncio.run(run())
    print(f"loop mechanics, thread CPU per operation, min of {rounds} interleaved rounds of {n}:")
    print(f"{'':<8} {'old us':>7} {'new us':>7} {'saved us':>8}")
    for name in pairs:
        old, new = best[(name, 0)] * 1e6, best[(name, 1)] * 1e6
        print(f"{name:<8} {old:>7.2f} {new:>7.2f} {old - new:>8.2f}")


# ----- the referee's own Python work per decision (--messages) ---------------------------------


def messages(games: Sequence[str], rounds: int = 9, seeds: int = 5, most: int = 3_000) -> None:
    """Times, in this thread's CPU, the per-decision work the referee does around the engine.

    ``seeds`` random games of each game are played first (seeded choices, at most ``most``
    decisions each) and each decision's options, observation and new events kept; then, ``rounds``
    times, interleaved, and keeping the minimum per decision:

    * ``request``: the ``DecisionRequest`` as the referee builds it for the network (the patch from
      the seat's previous observation, the cached option and event encodings, the deadline, the
      bytes);
    * ``whole obs``: the whole observation filled into a message (a ``MatchStart``, a resumed
      match, and every request of a bot that asked for ``full_observations``);
    * ``metrics``: the three metric updates of a decision.

    It only uses interfaces older checkouts have too, so the same file times a tree before and
    after a change (copy it into the other checkout and run it there, interleaved).
    """
    for name in games:
        _messages_of(name, rounds, seeds, most)


def _messages_of(name: str, rounds: int, seeds: int, most: int) -> None:
    """One game's part of :func:`messages`."""
    import random

    from referee.core.registry import get_game
    from referee.core.replay import Recorder
    from referee.protocol import codec
    from referee.protocol.timecontrol import TimeSettings
    from referee.server import metrics
    from referee.server.messages import MatchMessages
    from referee.server.outgoing import as_bytes
    from referee.server.state import Pending, SeatSpec, SeatState

    game = get_game(name)
    played: list[tuple[list[Any], list[tuple[Any, list[Any], Any, list[Any]]]]] = []
    for seed in range(seeds):
        rng = random.Random(seed)
        rec = Recorder(game, game.parse_config({}, 2), seed, ["a", "b"])
        match = rec.match
        total = len(match.events(0))
        sent = [total, total]
        steps: list[tuple[Any, list[Any], Any, list[Any]]] = []
        start = [match.observe(Seat(0)), match.observe(Seat(1))]
        while (d := match.to_move()) is not None and len(steps) < most:
            options = list(match.legal_options())
            events = list(match.events(sent[d.seat], d.seat))
            sent[d.seat] = total
            steps.append((d, options, match.observe(d.seat), events))
            total += len(rec.apply(rng.choice(options).id))
        played.append((start, steps))
    count = sum(len(steps) for _, steps in played)

    def request() -> None:
        n = 0
        for start, steps in played:
            built = MatchMessages(MatchId("m-bench"), name, TimeSettings())
            seats = [SeatState(seat=Seat(i), spec=SeatSpec(), bank=60.0) for i in range(2)]
            for st in seats:
                st.obs_sent = start[st.seat]
            for d, options, obs, events in steps:
                p = Pending(f"m-bench-{n}", d, options, frozenset([o.id for o in options]), n)
                st = seats[d.seat]
                out = built.decision_request(st, p, obs, events, st.events_numbered)
                st.events_numbered += len(events)
                built.stamp(out, 1.0, 1.7e9)
                as_bytes(out)
                n += 1

    def whole() -> None:
        for _, steps in played:
            for _d, _o, obs, _e in steps:
                codec.fill_observation(bot_pb2.ConnectResponse().match_start.observation, name, obs)

    gm = metrics.for_game(name)

    def metric_updates() -> None:
        for _ in range(count):
            gm.overhead.observe(0.0003)
            gm.think.observe(0.001)
            gm.answered.inc()

    parts = {"request": request, "whole obs": whole, "metrics": metric_updates}
    best = dict.fromkeys(parts, float("inf"))
    for _ in range(rounds):
        for part, fn in parts.items():
            c0 = time.thread_time()
            fn()
            best[part] = min(best[part], (time.thread_time() - c0) / count)
    print(
        f"{name}: {count} decisions, thread CPU per decision, min of {rounds} rounds: "
        + ", ".join(f"{part} {v * 1e6:.2f} us" for part, v in best.items())
    )


# ----- where a decision's CPU goes (--breakdown) -----------------------------------------------


def _engine_child(conn: Connection, game: str, decisions: int) -> None:
    """The engine alone, called as the referee calls it for each decision (the deciding seat's
    new events and observation, the options, the answer: the first option, as the bench's bots
    answer), over as many games as it takes; sends the CPU seconds per decision."""
    from referee.core.chance import SeededChance
    from referee.core.registry import get_game

    _register_test_games([game])
    g = get_game(game)
    config = g.parse_config({}, 2)
    done, seed, cpu = 0, 0, 0.0
    while done < decisions:
        seed += 1
        match = g.new_match(config, 2, SeededChance(seed))
        sent = [0, 0]
        c0 = time.process_time()
        while (d := match.to_move()) is not None:
            options = match.legal_options()
            match.events(sent[d.seat], d.seat)
            sent[d.seat] = len(match.events(0))
            match.observe(d.seat)
            match.apply(options[0].id)
            done += 1
        cpu += time.process_time() - c0
    conn.send(cpu / done)


def _inprocess_child(conn: Connection, game: str, matches: int, decisions: int) -> None:
    """A referee without the network: the two bots' sessions are opened in the process and each
    is served by a task that takes the session's outbox as the stream writer would (batches
    included), parses what a bot would receive and answers each request's first option through
    the reader's own handler. The CPU of that stand-in bot is measured apart and left out; sends
    (decisions, referee CPU seconds per decision, stand-in bot CPU seconds per decision)."""
    from referee.server.auth import BotIdentity, MemoryTokenStore
    from referee.server.hub import RefereeSettings
    from referee.server.outgoing import MAX_BATCH, MAX_BATCH_BYTES, as_bytes, batch
    from referee.server.service import BotServicer, create_server, tune_gc
    from referee.server.sinks import MemoryResultSink

    _register_test_games([game])
    tune_gc()
    bot_cpu = [0.0]

    async def stand_in(servicer: Any, session: Any) -> None:
        loop = asyncio.get_running_loop()
        outbox = session.outbox
        while (msg := await outbox.get()) is not None:
            if outbox.qsize():
                parts = outbox.take_batch(as_bytes(msg), MAX_BATCH, MAX_BATCH_BYTES)
                raw = batch(parts) if len(parts) > 1 else parts[0]
            else:
                raw = as_bytes(msg)
            c0 = time.thread_time()
            got = bot_pb2.ConnectResponse.FromString(raw)
            items = got.batch.messages if got.WhichOneof("message") == "batch" else [got]
            answers = [
                bot_pb2.ConnectRequest(
                    answer=bot_pb2.Answer(
                        match_id=m.decision_request.match_id,
                        decision_id=m.decision_request.decision_id,
                        option_id=m.decision_request.options[0].id,
                    )
                )
                for m in items
                if m.WhichOneof("message") == "decision_request"
            ]
            sent = bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=answers)).SerializeToString()
            bot_cpu[0] += time.thread_time() - c0
            if answers:
                # As the reader would: parse the bytes, then handle them (on a later loop turn).
                loop.call_soon(
                    lambda b=sent: servicer._handle(session, bot_pb2.ConnectRequest.FromString(b), time.monotonic())
                )

    async def main() -> None:
        settings = RefereeSettings()
        rs = create_server("127.0.0.1:0", tokens=MemoryTokenStore(), sink=MemoryResultSink(), settings=settings)
        ref = rs.referee
        servicer = BotServicer(ref)
        tasks = []
        for name in ("a", "b"):
            hello = bot_pb2.Hello(games=[game], max_matches=matches, client="bench", batching=True)
            session = ref.open_session(BotIdentity(BotId(name), name), hello)
            tasks.append(asyncio.create_task(stand_in(servicer, session)))
        ref.on_session_ready()
        bot_window = [0.0, 0.0]

        def start() -> None:
            bot_window[0] = bot_cpu[0]

        def stop() -> None:
            bot_window[1] = bot_cpu[0]

        n, cpu, _ = await play_window(ref, game, matches, decisions, on_start=start, on_stop=stop)
        bot = bot_window[1] - bot_window[0]
        for t in tasks:
            t.cancel()
        conn.send((n, (cpu - bot) / n, bot / n))

    asyncio.run(main())


async def breakdown_async(games: Sequence[str], concurrency: Sequence[int], decisions: int, rounds: int) -> None:
    """Prints, per game and number of matches, a decision's CPU in three layers, each its median
    over ``rounds`` interleaved runs, each run in a fresh process:

    * ``engine``: the engine alone as the referee calls it (events, observation, options, apply);
    * ``referee``: the whole referee without the network (runner, messages, patches, clocks,
      records, the loop, the engine), bots served in the process (their CPU left out);
    * ``network``: the same referee over gRPC on loopback (the main table's ``us cpu/dec``) minus
      ``referee``: what the streams cost a decision;

    ``own`` is ``referee`` minus ``engine``: the referee's own work. Next to them, the floor server's
    CPU per round trip and round trips/s, and two CPU ratios to the floor server's CPU per round
    trip (both are server processes' ``process_time``, gRPC's own threads included): ``total/fl``,
    the whole referee's, and ``eng+net/fl``, the engine's and the network's alone, as if the
    referee's own work cost nothing. A referee at 0.6x the floor's rate may spend about 1 / 0.6 =
    1.67x the floor's CPU per decision when both are CPU-bound.
    """
    print(f"where a decision's CPU goes: about {decisions} decisions per run, median of {rounds} interleaved runs")
    header = (
        f"{'game':<18} {'matches':>7} | {'engine us':>9} {'own us':>6} {'referee us':>10} {'network us':>10} "
        f"{'total us':>8} | {'floor us/rt':>11} {'floor rt/s':>10} | {'total/fl':>8} {'eng+net/fl':>10}"
    )
    print(header)
    print("-" * len(header))
    echo, echo_conn = _spawn(_echo_child)
    echo_port = await _recv(echo_conn)
    ref, ref_conn = _spawn(_referee_child, list(games), False, False)
    port, tokens = await _recv(ref_conn)
    try:
        for game in games:
            for n in concurrency:
                samples: dict[str, list[float]] = {"engine": [], "referee": [], "grpc": [], "floor": [], "rate": []}
                for _ in range(rounds):
                    proc, conn = _spawn(_engine_child, game, decisions)
                    samples["engine"].append(await _recv(conn))
                    proc.join(5)
                    proc, conn = _spawn(_inprocess_child, game, n, decisions)
                    _, per, _ = await _recv(conn)
                    samples["referee"].append(per)
                    proc.join(5)
                    f_rate, f_cpu = await floor([(echo, echo_conn, echo_port)], n, decisions)
                    samples["floor"].append(f_cpu)
                    samples["rate"].append(f_rate)
                    _, r_cpu, _, _, _, _ = await referee_run([(ref, ref_conn, port, tokens)], game, n, decisions, True)
                    samples["grpc"].append(r_cpu)
                med = {k: sorted(v)[len(v) // 2] for k, v in samples.items()}
                network = med["grpc"] - med["referee"]
                own = med["referee"] - med["engine"]
                print(
                    f"{game:<18} {n:>7} | {med['engine'] * 1e6:>9.0f} {own * 1e6:>6.0f} {med['referee'] * 1e6:>10.0f} "
                    f"{network * 1e6:>10.0f} {med['grpc'] * 1e6:>8.0f} | {med['floor'] * 1e6:>11.0f} "
                    f"{med['rate']:>10.0f} | {med['grpc'] / med['floor']:>8.2f} "
                    f"{(med['engine'] + network) / med['floor']:>10.2f}",
                    flush=True,
                )
    finally:
        echo_conn.send("stop")
        ref_conn.send(("stop",))
        for proc in (echo, ref):
            proc.join(5)
            if proc.is_alive():
                proc.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="scrumbrawl,superfantasybrawl")
    parser.add_argument("--concurrency", default=",".join(map(str, CONCURRENCY)))
    parser.add_argument("--processes", default="1,2")
    parser.add_argument("--decisions", type=int, default=4_000)
    parser.add_argument(
        "--batching",
        default="off,on",
        help="bots whose Hello asks for batches ('on', answering a batch with one RequestBatch) or not ('off')",
    )
    parser.add_argument(
        "--step-cpu",
        action="store_true",
        help="also time each step in the loop thread's CPU time (two system calls per decision; off: 'cpu' is '-')",
    )
    parser.add_argument(
        "--lag",
        action="store_true",
        help="also time how late a 2 ms timer on each referee's loop fires at worst (the 'lag' column)",
    )
    parser.add_argument(
        "--no-yield",
        action="store_true",
        help="the referee does not yield between applying answers and asking the next decision (for comparison)",
    )
    parser.add_argument(
        "--components",
        action="store_true",
        help="only time the loop mechanics of a decision, old way against new, in thread CPU (see components())",
    )
    parser.add_argument(
        "--messages",
        action="store_true",
        help="only time the referee's own per-decision work around the engine, in thread CPU (see messages())",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="only print where a decision's CPU goes: the engine, the referee without the network, the network "
        "(see breakdown_async(); --concurrency defaults to 10 here, --rounds sets the interleaved runs)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved runs per row of --breakdown")
    args = parser.parse_args()
    if args.breakdown:
        games = [g for g in args.games.split(",") if g]
        given = "--concurrency" in " ".join(sys.argv)
        conc = [int(x) for x in args.concurrency.split(",")] if given else [10]
        asyncio.run(breakdown_async(games, conc, args.decisions, args.rounds))
        return 0
    if args.messages:
        messages([g for g in args.games.split(",") if g])
        return 0
    if args.components:
        components()
        return 0
    games = [g for g in args.games.split(",") if g]
    _register_test_games(games)
    asyncio.run(
        main_async(
            games,
            [int(x) for x in args.concurrency.split(",")],
            [int(x) for x in args.processes.split(",")],
            args.decisions,
            args.step_cpu,
            args.no_yield,
            [{"off": False, "on": True}[x] for x in args.batching.split(",")],
            args.lag,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
