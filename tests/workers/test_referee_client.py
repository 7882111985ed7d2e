"""The workers' referee client against a real in-process referee: presence (``ListBots``), choosing a referee, starting.

Partitions: sessions none, one, several per bot; game filter matching or not; seats free or taken;
referee up or unreachable; a repeated ``StartMatch`` with one request id.
"""

from __future__ import annotations

import asyncio

import pytest

from referee import client as referee_client
from referee.client import RefereeUnavailable
from referee.core.bots import RandomPolicy
from tests.referee.harness import referee_env, wait_connected
from tests.workers.stack import free_port

TINY = "tinygame"


def run(coro_fn):  # type: ignore[no-untyped-def]
    return asyncio.run(coro_fn())


def test_list_bots_reports_sessions_with_their_load_and_filters_by_game() -> None:
    async def body() -> None:
        async with referee_env() as env:
            env.connect(lambda: RandomPolicy(1), "alpha", games=[TINY], max_matches=3)
            env.connect(lambda: RandomPolicy(2), "beta", games=[TINY], max_matches=1)
            await wait_connected(env, "alpha", "beta")
            accepting, bots = await asyncio.to_thread(referee_client.list_bots, env.internal)
            assert accepting
            by_id = {b.bot_id: b for b in bots}
            assert set(by_id) == {"alpha", "beta"}
            assert (by_id["alpha"].max_matches, by_id["alpha"].free, by_id["alpha"].games) == (3, 3, (TINY,))
            _, other_game = await asyncio.to_thread(referee_client.list_bots, env.internal, "scrumbrawl")
            assert other_game == []
            # A match in progress takes a seat of each bot: the load shows until it ends.
            runner = env.start(TINY, ["alpha", "beta"], seed=3)
            _, busy = await asyncio.to_thread(referee_client.list_bots, env.internal, TINY)
            assert {b.bot_id: b.active_matches for b in busy} == {"alpha": 1, "beta": 1}
            assert {b.bot_id: b.free for b in busy} == {"alpha": 2, "beta": 0}
            await runner.wait()

    run(body)


def test_presence_skips_a_silent_referee_and_start_is_idempotent_on_request_id() -> None:
    async def body() -> None:
        async with referee_env() as env:
            env.connect(lambda: RandomPolicy(1), "alpha", games=[TINY], max_matches=2)
            env.connect(lambda: RandomPolicy(2), "beta", games=[TINY], max_matches=2)
            await wait_connected(env, "alpha", "beta")
            dead = f"127.0.0.1:{free_port()}"
            sessions, silent = await asyncio.to_thread(referee_client.presence, TINY, [dead, env.internal])
            assert silent == [dead]
            assert sorted(s.bot_id for s in sessions) == ["alpha", "beta"]
            with pytest.raises(RefereeUnavailable):
                await asyncio.to_thread(referee_client.list_bots, dead, "", 1.0)

            def start() -> str:
                return str(
                    referee_client.start_match(
                        env.internal,
                        request_id="req-1",
                        match_id="41",
                        game=TINY,
                        bot_ids=["alpha", "beta"],
                        names=["Alpha", "Beta"],
                        config={},
                        seed=9,
                        join_timeout=5,
                        labels={"kind": "ladder"},
                        time_control={"per_decision_ms": 500},
                    ).match_id
                )

            first = await asyncio.to_thread(start)
            again = await asyncio.to_thread(start)
            assert first == again == "41"
            assert len(env.referee.matches) == 1
            await env.referee.wait_all(10)
            remote = await asyncio.to_thread(referee_client.get_match, env.internal, "41")
            assert remote is not None and remote.state in referee_client.ENDED
            assert remote.time_control.decision_time.ToMilliseconds() == 500
            assert await asyncio.to_thread(referee_client.get_match, env.internal, "nope") is None

    run(body)
