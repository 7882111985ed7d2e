"""People's tables: from a bot's answer to the person's seat view arriving for the browser, against a bare push.

``--tables`` tables at once (20 by default), each a person's seat client (the
:class:`webapp.tables.seats.PersonSession` the ASGI server runs) against a random house bot (an SDK
client answering in its loop), on a real referee on loopback in this process. Each person's
"browser" reads the seat's channel group on the Channels layer (in memory, or Redis with
``--redis URL``), as the table socket does, and answers the first legal option at once. Measured:

* ``answer -> view``: from the bot returning its answer to the person's next view arriving on
  the layer (the referee applies the answer, asks the person, the seat client pushes), p50 and
  p95 over every person's decision that follows a bot's answer;
* ``bare push``: a ``group_send`` to ``receive`` round trip on the same layer, as many at once
  as there are tables, measured in the same run after the tables; the ratio is the first over it.

The table socket's own step (one ``json.dumps`` and the WebSocket write) is not in either; the
figures go in docs/benchmarks.md.

    python -m bench.bench_tables                       # 20 tables, the in-memory layer
    python -m bench.bench_tables --redis redis://127.0.0.1:6379/15 --tables 20
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import time
from collections.abc import Sequence
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run(game: str, config: dict[str, Any], tables: int) -> tuple[list[float], list[float], int]:
    from brawl.bot.v1 import bot_pb2

    from referee.core.ids import BotId
    from referee.sdk import BotClient
    from referee.sdk.house import RandomBot
    from referee.server.auth import BotIdentity, MemoryTokenStore
    from referee.server.hub import RefereeSettings
    from referee.server.match import SeatSpec
    from referee.server.service import create_server
    from referee.server.sinks import MemoryResultSink
    from webapp.tables import seats as seat_clients

    store = MemoryTokenStore()
    server = create_server("127.0.0.1:0", tokens=store, sink=MemoryResultSink(), settings=RefereeSettings())
    await server.start()
    address = f"127.0.0.1:{server.port}"
    answered: dict[str, float] = {}

    class TimedBot:
        """A random house bot that notes when it answers, per match."""

        def __init__(self) -> None:
            self.inner = RandomBot()

        def choose_turn(self, turn: Any) -> str:
            option = self.inner.choose(turn.decision, turn.observation, turn.options)
            answered[turn.match_id] = time.perf_counter()
            return option

    house = BotClient(
        TimedBot, address, store.issue(BotIdentity(BotId("house"), "house")), max_matches=tables, threaded=False
    )
    house_task = asyncio.create_task(house.run())
    people = []
    for i in range(tables):
        token = store.issue(BotIdentity(BotId(f"p{i}"), f"person{i}"))
        person = seat_clients.PersonSession(i, game, i, address, token)
        person.start()
        people.append(person)
    await asyncio.gather(*(p.connected.wait() for p in people))
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    assert layer is not None
    latencies: list[float] = []
    decisions = 0

    async def browser(i: int) -> None:
        nonlocal decisions
        match_id = f"t{i}"
        channel = await layer.new_channel()
        await layer.group_add(seat_clients.seat_group(match_id, 0), channel)
        mine = 0.0
        seen = ""
        while True:
            msg = await layer.receive(channel)
            arrived = time.perf_counter()
            view = msg["payload"]
            if view["outcome"] is not None:
                return
            turn = view["turn"]
            if turn is None or turn["decision_id"] == seen:
                continue
            seen = turn["decision_id"]
            bot_at = answered.get(match_id, 0.0)
            if bot_at > mine:  # the bot answered since this person last did: its answer led here
                latencies.append(arrived - bot_at)
            decisions += 1
            mine = time.perf_counter()
            people[i].answer(match_id, 0, turn["decision_id"], turn["options"][0]["id"])

    browsers = [asyncio.create_task(browser(i)) for i in range(tables)]
    await asyncio.sleep(0)  # each browser joins its group before its match starts
    tc = bot_pb2.TimeControl(max_strikes=100)
    runners = [
        server.referee.start_match(
            game=game,
            seats=[SeatSpec(bot_id=BotId(f"p{i}")), SeatSpec(bot_id=BotId("house"))],
            config=config,
            seed=1000 + i,
            match_id=f"t{i}",
            time_control=tc,
        )
        for i in range(tables)
    ]
    await asyncio.gather(*(r.wait() for r in runners))
    await asyncio.wait_for(asyncio.gather(*browsers), 30)
    floor = await bare_push(layer, tables, max(20, len(latencies) // max(1, tables)))
    for p in people:
        p.stop()
    house.stop()
    await asyncio.gather(house_task, *(p.task for p in people if p.task), return_exceptions=True)
    await server.stop(0.1)
    return latencies, floor, decisions


async def bare_push(layer: Any, pairs: int, rounds: int) -> list[float]:
    """``pairs`` concurrent group_send -> receive round trips, ``rounds`` each; returns every one's time."""
    out: list[float] = []

    async def pair(i: int) -> None:
        channel = await layer.new_channel()
        group = f"floor.{i}"
        await layer.group_add(group, channel)
        for _ in range(rounds):
            sent = time.perf_counter()
            await layer.group_send(group, {"type": "seat.push", "payload": {"turn": None}})
            await layer.receive(channel)
            out.append(time.perf_counter() - sent)

    await asyncio.gather(*(pair(i) for i in range(pairs)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--redis", default="", help="a Redis URL for the channel layer (default: in memory)")

    args = parser.parse_args(argv)
    import django
    from django.conf import settings

    django.setup()
    logging.disable(logging.INFO)  # the sessions' connect lines
    settings.CHANNEL_LAYERS = {
        "default": (
            {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [{"address": args.redis, "socket_timeout": 30}]},
            }
            if args.redis
            else {"BACKEND": "channels.layers.InMemoryChannelLayer"}
        )
    }
    layer_name = "redis" if args.redis else "in-memory"
    print(f"{args.tables} tables at once, {layer_name} channel layer; ms")
    print(
        f"{'game':<20} {'decisions':>9} {'answer->view p50':>17} {'p95':>7}"
        f" {'bare push p50':>14} {'p95':>7} {'ratio p95':>9}"
    )
    for game, config in (("superfantasybrawl", {"round_cap": 2}), ("scrumbrawl", {"max_rounds": 1})):
        latencies, floor, decisions = asyncio.run(run(game, config, args.tables))
        p50, p95 = _pct(latencies, 0.5) * 1e3, _pct(latencies, 0.95) * 1e3
        f50, f95 = _pct(floor, 0.5) * 1e3, _pct(floor, 0.95) * 1e3
        print(
            f"{game:<20} {decisions:>9} {p50:>17.2f} {p95:>7.2f} {f50:>14.2f} {f95:>7.2f} {p95 / f95:>9.1f}"
            f"   (mean {statistics.fmean(latencies) * 1e3:.2f} over {len(latencies)})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
