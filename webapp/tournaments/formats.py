"""The boundary between tournaments and the pure format functions in ``ladder.tournaments``.

The service layer asks five things of a format, over the plain-data state stored in
``Tournament.state``: build the state (:func:`start`), list the games ready to be played
(:func:`ready_games`), record a game's result (:func:`record`), forget a disputed game
(:func:`forget`) and say whether it is over (:func:`is_finished`). Each call is delegated to
``ladder.tournaments``; when that package does not provide a format yet, :class:`FormatUnavailable`
is raised and nothing is written. This module holds no pairing logic itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from webapp.api import DomainError


class FormatUnavailable(DomainError):
    """``ladder.tournaments`` does not (yet) provide this format."""

    status_code = 501
    default_code = "format_unavailable"


@dataclass(frozen=True)
class ReadyGame:
    """One game the format wants played now."""

    slot: str
    """Pairing key (``"W1-2"``...); the games of a series share it."""
    round: int
    """Round number from 1."""
    game_in_series: int
    """1-based game number within the series."""
    participants: tuple[int, ...]
    """Bot version ids, in seat order."""


def _ladder() -> ModuleType:
    try:
        return importlib.import_module("ladder.tournaments.service_api")
    except ImportError as exc:
        raise FormatUnavailable(f"ladder.tournaments does not provide the format functions yet ({exc})") from exc


def start(format: str, participants: Sequence[int], *, best_of: int, rounds: int | None, seed: int) -> dict[str, Any]:
    """Returns the initial state of a tournament of ``participants`` (in seed order).

    Raises:
        FormatUnavailable: the format functions are not available.
    """
    state: dict[str, Any] = _ladder().start(format, list(participants), best_of=best_of, rounds=rounds, seed=seed)
    return state


def ready_games(state: dict[str, Any]) -> list[ReadyGame]:
    """Returns the games the format wants played now.

    Raises:
        FormatUnavailable: the format functions are not available.
    """
    if not state:
        return []
    return [ReadyGame(**g) for g in _ladder().ready_games(state)]


def record(state: dict[str, Any], slot: str, game_in_series: int, participants: Sequence[int], ranks: Sequence[int]) -> dict[str, Any]:
    """Returns the state after a game's result.

    Raises:
        FormatUnavailable: the format functions are not available.
    """
    new: dict[str, Any] = _ladder().record(state, slot, game_in_series, list(participants), list(ranks))
    return new


def forget(state: dict[str, Any], slot: str, game_in_series: int) -> dict[str, Any]:
    """Returns the state without a game's result (a disputed game to be replayed).

    Raises:
        FormatUnavailable: the format functions are not available.
    """
    new: dict[str, Any] = _ladder().forget(state, slot, game_in_series)
    return new


def is_finished(state: dict[str, Any]) -> bool:
    """Whether the tournament is over.

    Raises:
        FormatUnavailable: the format functions are not available.
    """
    return bool(_ladder().is_finished(state))
