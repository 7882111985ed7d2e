"""The Python SDK for bot authors: write a class with ``choose``, run it with ``brawl bot run``.

    class MyBot:
        def choose(self, decision, observation, options):
            return options[0].id          # or (option_id, "a short note")

    brawl bot run mybot:MyBot --server HOST:PORT --token T

See ``docs/writing-a-bot.md``. The SDK is not a rules engine: a bot reads the observation and the
options it is sent and never needs the game's code.
"""

from referee.core.contract import Decision, Event, Option, Outcome
from referee.sdk.client import BotClient, BotConnectionError, run_bot
from referee.sdk.host import Bot, BotHost, MatchInfo, MatchResult, Turn
from referee.sdk.house import RandomBot

__all__ = [
    "Bot",
    "BotClient",
    "BotConnectionError",
    "BotHost",
    "Decision",
    "Event",
    "MatchInfo",
    "MatchResult",
    "Option",
    "Outcome",
    "RandomBot",
    "Turn",
    "run_bot",
]
