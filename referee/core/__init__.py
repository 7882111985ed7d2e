"""The game contract shared by every rules engine, and the tools built on it.

Import from here: ``from referee.core import Game, Match, Option, Seat, SeededChance``.
"""

from referee.core.chance import (
    Chance,
    ChanceOutcome,
    Draw,
    EnumeratingChance,
    ScriptedChance,
    SeededChance,
    chance_outcomes,
)
from referee.core.contract import (
    EVERYONE,
    JSON,
    Decision,
    Event,
    Game,
    GameInfo,
    JSONDict,
    Match,
    Option,
    Outcome,
    TeamSplit,
    Termination,
    TimeControl,
    forfeit_outcome,
    visible_events,
)
from referee.core.errors import (
    ChanceExhaustedError,
    ConfigError,
    ContentError,
    EngineError,
    IllegalOptionError,
    MatchOverError,
)
from referee.core.ids import BotId, GameName, MatchId, Seat
from referee.core.registry import UnknownGameError, game_names, get_game, register

__all__ = [
    "EVERYONE",
    "JSON",
    "BotId",
    "Chance",
    "ChanceExhaustedError",
    "ChanceOutcome",
    "ConfigError",
    "ContentError",
    "Decision",
    "Draw",
    "EngineError",
    "EnumeratingChance",
    "Event",
    "Game",
    "GameInfo",
    "GameName",
    "IllegalOptionError",
    "JSONDict",
    "Match",
    "MatchId",
    "MatchOverError",
    "Option",
    "Outcome",
    "ScriptedChance",
    "Seat",
    "SeededChance",
    "TeamSplit",
    "Termination",
    "TimeControl",
    "UnknownGameError",
    "chance_outcomes",
    "forfeit_outcome",
    "game_names",
    "get_game",
    "register",
    "visible_events",
]
