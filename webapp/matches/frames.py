"""Spectator frames of a recorded match, for the replay viewer.

The replay stores only (config, seed, decisions); the viewer needs to see the board after each
decision. :func:`spectator_frames` re-simulates the replay with the engine through
``referee.core.replay.steps`` (the loop ``simulate`` and ``verify`` use), and after each decision
takes the spectator's observation (``observe(None)``) and the public events the decision caused.
Hidden information never appears, because only the spectator view is taken. This module does not
verify digests; ``verify`` does.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from referee.core.contract import Game
from referee.core.replay import Replay, steps
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
    total = len(replay.decisions) + 1
    end = total if limit is None else min(total, start + limit)
    frames: list[dict[str, Any]] = []
    seen = 0
    match = None
    # The one replay loop (``referee.core.replay.steps``); this module only shapes its frames.
    for step in islice(steps(replay, game, labels=True), max(end, 1)):
        match = step.match
        events = match.events(seen, None)
        seen = max([seen, *[e.index + 1 for e in events]])
        if not start <= step.index < end:
            continue  # skipped frames still consume their events, so the first one returned shows only its own
        info: dict[str, Any] | None = None
        d = step.decision
        if d is not None:
            info = {
                "n": step.index - 1,
                "seat": int(d.seat),
                "option_id": d.option_id,
                "label": step.label,
                "source": d.source,
            }
            if d.note:
                info["note"] = d.note
            if d.think_ms is not None:
                info["think_ms"] = d.think_ms
        pending = match.to_move()
        frames.append(
            {
                "index": step.index,
                "decision": info,
                "observation": match.observe(None),
                "events": [e.to_json() for e in events],
                "to_move": pending.to_json() if pending else None,
            }
        )
    assert match is not None  # steps always yields the start
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


def replay_head(replay: Replay, game: Game | None = None) -> dict[str, Any]:
    """The viewer's first screen of ``replay``: frame 0, the frame count, the seats, the result and the board.

    It is :func:`spectator_frames` stopped after frame 0, so it costs the engine's set-up only (no
    decision is applied), and the match page embeds it: the viewer draws the start of a long match
    and its counter before the whole list of frames has arrived. Same keys as the whole list.
    """
    return spectator_frames(replay, game, limit=1)
