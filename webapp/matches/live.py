"""Live spectator frames of a running match, read from its referee's public ``WatchMatch`` stream.

The database only learns a match's replay once it ends; while it runs, its state lives in the
referee named by ``Match.referee_id``. This module keeps, per web process, one background thread
per watched match that reads the referee's ``WatchMatch`` stream (the spectator view only: the
referee builds each message from ``observe(None)`` and the events visible to nobody in
particular) and turns every message into a frame of the same shape as
:func:`webapp.matches.frames.spectator_frames` produces. Requests then read the frames after a
given index, optionally waiting (long-poll) for the next one.

It is not the replay: a live frame has no ``decision`` (the stream does not carry the seat's
answer) and no ``to_move``, and a watcher that joins a match mid-way starts at the decision the
match had reached, so its first frame's index may be above 0 and carries every event so far. The referee's last
message (after the result is stored) repeats the last decision count: it is folded into the last
frame. Nothing here touches the database.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import grpc

from referee import client as referee_client
from referee.core.contract import Event
from referee.core.registry import get_game
from referee.core.view import Cell
from referee.protocol import codec
from webapp.matches.boards import board_layout
from webapp.matches.frames import FRAMES_VERSION, frame_view

log = logging.getLogger(__name__)

MAX_WAIT_SECONDS = 20.0
"""The longest a request may wait for a new frame (it holds a server thread meanwhile: see ``webapp.longpoll``)."""
IDLE_SECONDS = 60.0
"""A watcher nobody asked about for this long stops reading its stream."""
KEEP_SECONDS = 120.0
"""How long an ended watcher's frames stay for late requests before they are dropped."""
RETRY_SECONDS = 3.0
"""A watcher that failed (referee down) is replaced by a new one after this long."""

_STATE_NAMES = {
    1: "pending",
    2: "running",
    3: "succeeded",
    4: "cancelled",
    5: "failed",
}


class LiveWatch:
    """The frames of one match read so far from its referee, and the thread that reads them."""

    def __init__(self, match_id: int, address: str, game: str) -> None:
        self.match_id = match_id
        self.address = address
        self.game = game
        self.frames: list[dict[str, Any]] = []
        self.cells: tuple[Cell, ...] | None = None
        """The board's cells, from the first view (each frame's ``view`` leaves them out while the same)."""
        self.cells_json: list[Any] = []
        self.names: dict[str, str] = {}
        """Every piece's name seen so far, for the events' sentences."""
        self.state = "connecting"
        self.outcome: dict[str, Any] | None = None
        self.error = ""
        self.ended = False
        self.ended_at = 0.0
        self.last_asked = time.monotonic()
        self.cond = threading.Condition()
        self._call: Any = None
        self._thread = threading.Thread(target=self._run, name=f"live-{match_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            call = referee_client.watch_match(self.address, str(self.match_id))
            self._call = call
            for msg in call:
                self._add(msg)
                if time.monotonic() - self.last_asked > IDLE_SECONDS:
                    call.cancel()
                    self.error = "stopped watching: nobody asked"
                    break
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            if code != grpc.StatusCode.CANCELLED:
                self.error = f"referee {self.address}: {getattr(code, 'name', code)}"
                log.info("live view of match %s: %s", self.match_id, self.error)
        except Exception as exc:  # a malformed message must not kill the web process; the viewer sees why
            self.error = f"cannot read the referee's view: {exc!r}"
            log.exception("live view of match %s", self.match_id)
        finally:
            with self.cond:
                self.ended = True
                self.ended_at = time.monotonic()
                self.cond.notify_all()

    def _add(self, msg: Any) -> None:
        index = int(msg.decision_count)
        observation = codec.payload_data(msg.observation)
        # The game's generic view of the spectator's observation, and each event's sentence: the
        # same as a stored replay's frames (webapp.matches.frames), from what the stream carries.
        game = get_game(self.game)
        view = game.board_view(observation, None)
        self.names.update(view.names())
        if self.cells is None:
            self.cells = view.cells
            self.cells_json = [c.to_json() for c in view.cells]
        events = []
        for e in msg.events:
            event = sparse_event(codec.event_from(e).to_json())
            sentence = game.event_text(Event(event["i"], event["kind"], event["data"]), None, self.names)
            events.append({**event, "text": sentence})
        shown = frame_view(view, self.cells)
        with self.cond:
            self.state = _STATE_NAMES.get(int(msg.state), "unknown")
            if msg.HasField("outcome"):
                self.outcome = codec.outcome_from(msg.outcome).to_json()
            if self.frames and self.frames[-1]["index"] >= index:
                # The final message repeats the last decision's count: fold it into that frame.
                last = self.frames[-1]
                last["observation"] = observation
                last["view"] = shown
                last["events"].extend(events)
            else:
                self.frames.append(
                    {
                        "index": index,
                        "decision": None,
                        "observation": observation,
                        "view": shown,
                        "events": events,
                        "to_move": None,
                    }
                )
            self.cond.notify_all()

    def stop(self) -> None:
        """Stops reading the stream (the thread ends soon after)."""
        call = self._call
        if call is not None:
            call.cancel()

    def stale(self, now: float) -> bool:
        """Whether this watcher should be replaced or dropped."""
        if not self.ended:
            return now - self.last_asked > IDLE_SECONDS
        if self.error and not self.error.startswith("stopped"):
            return now - self.ended_at > RETRY_SECONDS
        return now - self.ended_at > KEEP_SECONDS or bool(self.error)

    def after(self, since: int, wait: float) -> dict[str, Any]:
        """Returns the frames with an index above ``since``, waiting up to ``wait`` seconds for one."""
        self.last_asked = time.monotonic()
        with self.cond:
            self.cond.wait_for(lambda: self.ended or any(f["index"] > since for f in self.frames[-1:]), timeout=wait)
            frames = [dict(f, events=list(f["events"])) for f in self.frames if f["index"] > since]
            last = self.frames[-1]["index"] if self.frames else -1
            return {
                "referee_state": self.state,
                "ended": self.ended,
                "error": self.error,
                "outcome": self.outcome,
                "last": last,
                "frames": frames,
                "cells": self.cells_json,
                "frames_version": FRAMES_VERSION,
            }


def sparse_event(event: dict[str, Any]) -> dict[str, Any]:
    """Drops the zero and empty fields the typed wire message filled into an event's data.

    A game's ``Event`` message has no field presence, so every field arrives, set or not; the
    engine's event (and the stored replay) carries only the fields it set. Without this the event
    log would show a dozen empty fields per event. A field the engine set to zero is dropped too:
    the wire cannot tell it from an unset one.
    """
    data = event.get("data")
    if isinstance(data, dict):
        event = {**event, "data": {k: v for k, v in data.items() if v not in ("", 0, False, [], {})}}
    return event


_lock = threading.Lock()
_watches: dict[tuple[int, str], LiveWatch] = {}


def watch(match_id: int, address: str, game: str) -> LiveWatch:
    """Returns this process's watcher of a match on ``address``, starting one if needed."""
    now = time.monotonic()
    with _lock:
        for key, w in list(_watches.items()):
            if w.stale(now):
                w.stop()
                del _watches[key]
        found = _watches.get((match_id, address))
        if found is None:
            found = LiveWatch(match_id, address, game)
            _watches[(match_id, address)] = found
        return found


def live_frames(match_id: int, address: str, game: str, *, since: int = -1, wait: float = 0.0) -> dict[str, Any]:
    """Returns the live frames of a running match after index ``since``, long-polling up to ``wait`` s.

    Returns:
        ``{"game", "board", "cells", "frames_version", "referee_state", "ended", "error", "outcome", "last",
        "frames"}`` (each frame with its ``view`` and each event with its ``text``, as stored frames):
        ``last`` is the index of the newest frame known (-1 before the first), ``ended`` says the
        stream is over (the match ended, or the referee could not be read: see ``error``).
    """
    w = watch(match_id, address, game)
    data = w.after(since, max(0.0, min(wait, MAX_WAIT_SECONDS)))
    data["game"] = game
    data["board"] = board_layout(game)
    return data


def stop_all() -> None:
    """Stops every watcher of this process (tests, shutdown)."""
    with _lock:
        for w in _watches.values():
            w.stop()
        _watches.clear()
