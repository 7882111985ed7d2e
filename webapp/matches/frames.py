"""Spectator frames of a recorded match, for the replay viewer.

The replay stores only (config, seed, decisions); the viewer needs to see the board after each
decision. :func:`spectator_frames` re-simulates the replay with the engine, exactly as
``referee.core.replay.simulate`` does, and after each decision takes the spectator's observation
(``observe(None)``) and the public events the decision caused. Hidden information never appears,
because only the spectator view is taken. This module does not verify digests; ``verify`` does.
"""

from __future__ import annotations

from typing import Any

from referee.core.contract import Game
from referee.core.errors import EngineError
from referee.core.replay import Replay, ReplayError, initial_match
from webapp.matches.boards import board_layout


def spectator_frames(
    replay: Replay, game: Game | None = None, *, start: int = 0, limit: int | None = None
) -> dict[str, Any]:
    """Re-simulates ``replay`` and returns spectator frames ``start`` .. ``start + limit``.

    Frame 0 is the position before any decision; frame ``n`` follows decision ``n - 1``.

    Returns:
        ``{"total": n_frames, "start": start, "frames": [{"index", "decision", "observation",
        "events", "to_move"}...]}``.

    Raises:
        ReplayError: the replay's rules version differs from the engine's or a decision is illegal.
    """
    match = initial_match(replay, game)
    total = len(replay.decisions) + 1
    end = total if limit is None else min(total, start + limit)
    frames: list[dict[str, Any]] = []
    seen = 0

    def frame(index: int, decision: dict[str, Any] | None) -> dict[str, Any]:
        nonlocal seen
        events = match.events(seen, None)
        seen = max([seen, *[e.index + 1 for e in events]])
        pending = match.to_move()
        return {
            "index": index,
            "decision": decision,
            "observation": match.observe(None),
            "events": [e.to_json() for e in events],
            "to_move": pending.to_json() if pending else None,
        }

    if start == 0:
        frames.append(frame(0, None))
    for n, d in enumerate(replay.decisions[: end - 1]):
        pending = match.to_move()
        if pending is None:
            raise ReplayError(f"decision {n} ({d.option_id!r}) comes after the match ended")
        if pending.seat != d.seat:
            raise ReplayError(f"decision {n} is recorded for seat {d.seat} but seat {pending.seat} was to move")
        try:
            label = match.option(d.option_id).label
            match.apply(d.option_id)
        except EngineError as exc:
            raise ReplayError(f"decision {n}: {exc}") from exc
        info = {"n": n, "seat": int(d.seat), "option_id": d.option_id, "label": label, "source": d.source}
        if d.note:
            info["note"] = d.note
        if d.think_ms is not None:
            info["think_ms"] = d.think_ms
        if n + 1 >= start:
            frames.append(frame(n + 1, info))
        else:
            # Skipped frames still consume their events so that the first returned frame shows only its own.
            seen = max([seen, *[e.index + 1 for e in match.events(seen, None)]])
    outcome = match.outcome()
    return {
        "total": total,
        "start": start,
        "seats": replay.seats,
        "game": replay.game,
        "frames": frames,
        "outcome": outcome.to_json() if outcome else (replay.outcome.to_json() if replay.outcome else None),
        "incidents": [i.to_json() for i in replay.incidents],
        "board": board_layout(replay.game),
    }
