"""Resign: a bot gives up a match and its seat forfeits at once, recorded like any forfeit.

Partitions: a seat that resigns mid-match (the match ends, the others share first place, the
resigner last, a forfeit incident naming the resignation, the replay verifies); a resign for a
match the session has no seat in gets an Error and changes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from referee.core import Decision, JSONDict, Option
from referee.core.contract import Termination
from referee.core.replay import IncidentKind, verify
from referee.sdk import BotClient
from tests.referee.bots import FirstBot
from tests.referee.harness import GAMES, eventually, referee_env

GAME = GAMES[0]


class ResignOnSecondBot:
    """Answers its first decision, then resigns the match on its second (through its client)."""

    client: BotClient | None = None

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        self.calls += 1
        if self.calls == 2 and ResignOnSecondBot.client is not None:
            for match_id in list(ResignOnSecondBot.client.host.games):
                ResignOnSecondBot.client.resign(match_id)
        return options[0].id


def test_a_resigning_seat_forfeits_and_a_stranger_resign_changes_nothing() -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            ResignOnSecondBot.client = env.connect(ResignOnSecondBot, "quitter", games=[GAME])
            other = env.connect(FirstBot, "stayer", games=[GAME])
            runner = env.start(GAME, ["quitter", "stayer"], seed=3)
            await asyncio.wait_for(runner.wait(), 30)
            replay = runner.replay
            assert replay is not None and replay.outcome is not None
            assert replay.outcome.termination is Termination.FORFEIT
            assert replay.outcome.ranks == (2, 1)
            assert "seat 0 resigned" in replay.outcome.reason
            assert [(i.seat, i.kind) for i in replay.incidents if i.kind is IncidentKind.FORFEIT] == [
                (0, IncidentKind.FORFEIT)
            ]
            verify(replay)
            # Resigning a match one has no seat in: an Error, and nothing else happens.
            before = len(other.errors)
            other.resign("no-such-match")
            await eventually(lambda: len(other.errors) > before, "the referee's error")
            assert "no seat in match 'no-such-match'" in other.errors[-1].message

    asyncio.run(scenario())
