"""Spectator frames of a recorded match, for the replay viewer.

The replay stores only (config, seed, decisions); the viewer needs to see the board after each
decision. :func:`spectator_frames` re-simulates the replay with the engine through
``referee.core.replay.steps`` (the loop ``simulate`` and ``verify`` use), and after each decision
takes the spectator's observation (``observe(None)``), the game's generic board view of it
(``Game.board_view``, :mod:`referee.core.view`) and the public events the decision caused, each
with its sentence (``Game.event_text``); the decision carries the cells, pieces and cards its option
acted on (``Game.option_targets``). The viewer draws only the view and the sentences, so it knows no
game. Hidden information never appears, because only the spectator's observation is taken and the
view is built from it. This module does not verify digests; ``verify`` does.
"""

from __future__ import annotations

import copy
import json
from itertools import islice
from typing import Any

from referee.core.contract import Event, Game
from referee.core.registry import get_game
from referee.core.replay import Replay, steps
from referee.core.view import BoardView, Cell, Targets
from webapp.matches.boards import board_layout

FRAMES_VERSION = 2
"""The form of the frames: 1 had observations only; 2 adds each frame's ``view``, the top-level ``cells``,
each event's ``text`` and each decision's ``targets``. Stored frames of another version are recomputed."""


def frame_view(view: BoardView, cells: tuple[Cell, ...] | None) -> dict[str, Any]:
    """A frame's ``view``: the board view's JSON without its cells when they are the frames' ``cells``."""
    if cells is not None and (view.cells is cells or view.cells == cells):
        return view.to_json(cells=False)
    return view.to_json()


def event_json(game: Game, event: Event, names: dict[str, str]) -> dict[str, Any]:
    """An event as a frame carries it: its JSON and its spectator sentence (``text``)."""
    return {**event.to_json(), "text": game.event_text(event, None, names)}


def spectator_targets(game: Game, step_option: Any, view: BoardView | None) -> dict[str, Any] | None:
    """What a decision's option acted on, in the spectator's ``view`` before it (hidden cards left out)."""
    if step_option is None or view is None:
        return None
    targets = game.option_targets(step_option, view)
    cards = view.card_ids()
    shown = Targets.of(targets.cells, targets.pieces, [c for c in targets.cards if c in cards])
    return shown.to_json() if shown else None


def spectator_frames(
    replay: Replay, game: Game | None = None, *, start: int = 0, limit: int | None = None
) -> dict[str, Any]:
    """Re-simulates ``replay`` and returns spectator frames ``start`` .. ``start + limit``.

    Frame 0 is the position before any decision; frame ``n`` follows decision ``n - 1``.

    Returns:
        ``{"total": n_frames, "start": start, "cells", "frames_version", "frames": [{"index", "decision",
        "observation", "view", "events", "to_move"}...]}``: ``cells`` are the board's cells (of the first
        frame returned), which each frame's ``view`` leaves out unless its own differ.

    Raises:
        ReplayError: the replay's rules version differs from the engine's or a decision is illegal.
    """
    total = len(replay.decisions) + 1
    end = total if limit is None else min(total, start + limit)
    frames: list[dict[str, Any]] = []
    seen = 0
    match = None
    engine = game or get_game(replay.game)
    cells: tuple[Cell, ...] | None = None
    names: dict[str, str] = {}
    before: BoardView | None = None
    # The one replay loop (``referee.core.replay.steps``); this module only shapes its frames.
    for step in islice(steps(replay, engine, labels=True), max(end, 1)):
        match = step.match
        events = match.events(seen, None)
        seen = max([seen, *[e.index + 1 for e in events]])
        observation = match.observe(None)
        view = engine.board_view(observation, None)
        names.update(view.names())
        targets = spectator_targets(engine, step.option, before)
        before = view
        if not start <= step.index < end:
            continue  # skipped frames still consume their events, so the first one returned shows only its own
        if cells is None:
            cells = view.cells
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
            if targets is not None:
                info["targets"] = targets
        pending = match.to_move()
        frames.append(
            {
                "index": step.index,
                "decision": info,
                "observation": observation,
                "view": frame_view(view, cells),
                "events": [event_json(engine, e, names) for e in events],
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
        "cells": [c.to_json() for c in cells or ()],
        "frames_version": FRAMES_VERSION,
    }


def replay_head(replay: Replay, game: Game | None = None) -> dict[str, Any]:
    """The viewer's first screen of ``replay``: frame 0, the frame count, the seats, the result and the board.

    It is :func:`spectator_frames` stopped after frame 0, so it costs the engine's set-up only (no
    decision is applied), and the match page embeds it: the viewer draws the start of a long match
    and its counter before the whole list of frames has arrived. Same keys as the whole list.
    """
    return spectator_frames(replay, game, limit=1)


PATCH_VERSION = 3
"""The form of :func:`observation_patch`'s operations: 1 had sets and removes only, 2 adds list rebuilds,
3 patches each frame's ``view`` as well (``view_patch``)."""


def _item_key(item: Any) -> Any:
    """The key an item of a list is matched by between two observations: its ``id`` if it has one, else itself."""
    if isinstance(item, dict) and "id" in item:
        return ("id", json.dumps(item["id"], sort_keys=True))
    return ("value", json.dumps(item, sort_keys=True))


def _list_spec(before: list[Any], after: list[Any]) -> list[Any] | None:
    """How ``after`` is made from the items of ``before``, or None when keys repeat (then it is sent whole).

    Each entry is an old index ``k`` (that item as it was), ``[k, n]`` (the ``n`` old items from
    ``k`` on), ``[k, ops]`` (old item ``k`` with ``ops`` applied) or ``[value]`` (a new item).
    """
    old: dict[Any, int] = {}
    for k, item in enumerate(before):
        key = _item_key(item)
        if key in old:
            return None
        old[key] = k
    spec: list[Any] = []
    used: set[int] = set()
    for item in after:
        found = old.get(_item_key(item))
        if found is None:
            spec.append([item])
            continue
        if found in used:
            return None  # the same key twice in the new list
        used.add(found)
        ops = observation_patch(before[found], item)
        last = spec[-1] if spec else None
        if ops:
            spec.append([found, ops])
        elif isinstance(last, int) and last == found - 1:
            spec[-1] = [last, 2]  # a run of unchanged items
        elif isinstance(last, list) and len(last) == 2 and isinstance(last[1], int) and sum(last) == found:
            spec[-1] = [last[0], last[1] + 1]
        else:
            spec.append(found)
    return spec


def observation_patch(
    before: Any, after: Any, path: list[Any] | None = None, out: list[list[Any]] | None = None
) -> list[list[Any]]:
    """Returns the operations that turn ``before`` into ``after`` (the patch form, version 2).

    ``[path, value]`` sets, ``[path]`` removes, ``[path, "L", spec]`` rebuilds the list at ``path``
    from its old items (see :func:`_list_spec`); an empty path is the whole value. Objects are
    compared key by key; lists of equal length whose items keep their keys (``id`` for objects,
    else the value) item by item; other lists are rebuilt, items matched by key, so a creature
    entering or leaving costs that creature, not the whole list. A rebuild longer than the new list
    itself is sent as a set.
    """
    path = path or []
    out = [] if out is None else out
    if before == after:
        return out
    if isinstance(before, dict) and isinstance(after, dict):
        for k, v in after.items():
            if k in before:
                observation_patch(before[k], v, [*path, k], out)
            else:
                out.append([[*path, k], v])
        out.extend([[*path, k]] for k in before if k not in after)
    elif isinstance(before, list) and isinstance(after, list):
        aligned = len(before) == len(after) and all(
            not (isinstance(x, dict) and isinstance(y, dict)) or x.get("id") == y.get("id")
            for x, y in zip(before, after, strict=True)
        )
        if aligned:
            for i, (x, y) in enumerate(zip(before, after, strict=True)):
                observation_patch(x, y, [*path, i], out)
            return out
        spec = _list_spec(before, after)
        if spec is not None and len(json.dumps(spec)) < len(json.dumps(after)):
            out.append([path, "L", spec])
        else:
            out.append([path, after])
    else:
        out.append([path, after])
    return out


def apply_patch(value: Any, ops: list[list[Any]]) -> Any:
    """Applies :func:`observation_patch`'s operations to ``value`` (in place where it can) and returns the result.

    What ``viewer.js`` does, in Python: the tests check it against the whole frames.
    """
    for op in ops:
        path = op[0]
        if not path:
            value = _rebuild(value, op[2]) if len(op) == 3 else copy.deepcopy(op[1])
            continue
        node = value
        for key in path[:-1]:
            node = node[key]
        if len(op) == 1:
            del node[path[-1]]
        elif len(op) == 3:
            node[path[-1]] = _rebuild(node[path[-1]], op[2])
        else:
            node[path[-1]] = copy.deepcopy(op[1])
    return value


def _rebuild(old: list[Any], spec: list[Any]) -> list[Any]:
    new: list[Any] = []
    for entry in spec:
        if isinstance(entry, int):
            new.append(copy.deepcopy(old[entry]))
        elif len(entry) == 1:
            new.append(copy.deepcopy(entry[0]))
        elif isinstance(entry[1], int):
            new.extend(copy.deepcopy(old[entry[0] : entry[0] + entry[1]]))
        else:
            new.append(apply_patch(copy.deepcopy(old[entry[0]]), entry[1]))
    return new


def patch_frames(data: dict[str, Any]) -> dict[str, Any]:
    """Turns whole frames (:func:`spectator_frames`) into the patch form, in place, and returns them.

    Frame 0 keeps its ``observation`` and ``view``; each later frame keeps ``patch`` and ``view_patch``,
    the operations of :func:`observation_patch` from the observation and the view before, instead.
    ``form`` is ``"patch"`` and ``patch_version`` is :data:`PATCH_VERSION`.
    """
    before: Any = None
    before_view: Any = None
    for n, frame in enumerate(data["frames"]):
        obs = frame.pop("observation")
        view = frame.pop("view", None)
        if n == 0:
            frame["observation"] = obs
            if view is not None:
                frame["view"] = view
        else:
            frame["patch"] = observation_patch(before, obs)
            if view is not None:
                frame["view_patch"] = observation_patch(before_view, view)
        before, before_view = obs, view
    data["form"] = "patch"
    data["patch_version"] = PATCH_VERSION
    return data
