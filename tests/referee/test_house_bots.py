"""House bots run through the SDK: every game's HOUSE_BOTS, locally and as a connected client.

Partitions: each product game's named house bots (and ``random``) in ``brawl play``; a house bot
class connected over the network with the SDK client against a house seat of the referee.
"""

from __future__ import annotations

import asyncio

import pytest

from referee.core.replay import verify
from referee.play import play_series
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient
from referee.sdk.house import game_house_bots, house_bot_names, house_factory
from referee.server.match import MatchState
from tests.referee.harness import referee_env

PRODUCT_GAMES = ["scrumbrawl", "superfantasybrawl"]


@pytest.mark.parametrize("game", PRODUCT_GAMES)
def test_every_house_bot_plays_through_the_referee_path(game: str) -> None:
    names = house_bot_names(game)
    assert names[0] == "random" and set(game_house_bots(game)) <= set(names)
    for name in names:
        series = asyncio.run(play_series(game, [name, "random"], games=1, seed=2))
        assert len(series.replays) == 1, name
        replay = series.replays[0]
        assert not replay.incidents, (name, replay.incidents)
        verify(replay)


@pytest.mark.parametrize("game", PRODUCT_GAMES)
def test_a_house_bot_connects_with_the_sdk_client(game: str) -> None:
    name = house_bot_names(game)[-1]

    async def scenario() -> None:
        async with referee_env() as env:
            client = BotClient(house_factory(game, name, seed=3), env.address, env.token("house"), games=[game])
            task = asyncio.create_task(client.run(1))
            runner = env.start(
                game, ["house", "house:random"], seed=4, time=TimeSettings(decision_time=5, bank_time=60)
            )
            await asyncio.wait_for(runner.wait(), 120)
            await asyncio.wait_for(task, 10)
            assert runner.state is MatchState.SUCCEEDED and runner.replay is not None
            assert not runner.replay.incidents
            verify(runner.replay)

    asyncio.run(scenario())
