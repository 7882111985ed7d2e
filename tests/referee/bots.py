"""Bots with deliberate faults, for the referee tests (real SDK bots, run through real clients)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import Any, ClassVar

from referee.core import Decision, JSONDict, Option
from referee.sdk import Turn


class FirstBot:
    """Always the first option: instant and deterministic."""

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        return options[0].id


class RecordingBot:
    """Plays the last option and records every turn it was given (class-wide, thread-safe)."""

    turns: ClassVar[list[Turn]] = []
    lock = threading.Lock()

    def choose_turn(self, turn: Turn) -> tuple[str, str]:
        with self.lock:
            self.turns.append(turn)
        return turn.options[-1].id, "recorded"


class SlowFirstBot:
    """Sleeps ``delay`` seconds on its first decision only, then plays instantly."""

    delay: ClassVar[float] = 1.0

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        self.calls += 1
        if self.calls == 1:
            time.sleep(self.delay)
        return options[0].id


class IllegalOnceBot:
    """Answers an id that is never legal on its first decision, then legally."""

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        self.calls += 1
        return "no-such-option" if self.calls == 1 else options[0].id


class IllegalAlwaysBot:
    """Never answers a legal id."""

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        return "no-such-option"


class SilentBot:
    """Never answers: its choose raises, and the SDK sends nothing (the referee's clock decides)."""

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> Any:
        raise RuntimeError("this bot never answers")


class CrashBot:
    """Kills its own process on its third decision (run it in a subprocess only)."""

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        self.calls += 1
        if self.calls == 3:
            os._exit(3)
        return options[0].id
