"""The rows of the learning dataset, built from replays: one row per decision, as the seat saw it.

A replay stores (config, seed, decisions); what a bot was sent is re-created by re-playing the
decision log through the engine with ``referee.core.replay.steps`` (the loop ``simulate``,
``verify`` and the viewer's frames use). Before each decision the deciding seat's observation and
the legal options are read, then passed through the bot protocol's codec and back
(``referee.protocol.codec``), exactly as the referee encodes them and the Python SDK decodes them:
the row holds what the bot was handed, keyed by proto field names. The events of a row are those
the decision caused that the deciding seat may see.

Two tables, never mixed:

- ``decisions``: only what the deciding seat could see at that moment (its observation, its
  options, its choice, its think time, the events it saw follow), and the final ranks.
- ``hidden``: one row per decision with every seat's observation and the private events the
  decision caused, and the seed: the other seats' hidden information. It exists only for matches
  whose secrets are revealed (the caller selects them, ``webapp.datasets.export``).

This module is not the selection of matches, nor the files (``export``); it reads no database.
See ``docs/dataset.md`` for every column.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
import pyarrow as pa

from referee.core.contract import EVERYONE, Event, Game, JSONDict, Option
from referee.core.ids import Seat
from referee.core.registry import get_game
from referee.core.replay import Replay, steps
from referee.protocol import codec

FORMAT = "brawl-dataset"
VERSION = 2
"""Bumped when a column changes meaning or goes; a new column at the end keeps the version."""

TABLES = ("decisions", "hidden")
"""The tables of a dataset: what each seat saw, and what only the end reveals."""

JSON_COLUMNS = {
    "decisions": ("observation", "options", "events"),
    "hidden": ("observations", "hidden_events"),
}
"""Columns holding game-shaped nested data: JSON text in Parquet, nested values in JSON Lines."""

_DECISION_FIELDS: list[pa.Field[Any]] = [
    pa.field("match_id", pa.int64(), nullable=False),
    pa.field("game", pa.string(), nullable=False),
    pa.field("rules_version", pa.string(), nullable=False),
    pa.field("finished_at", pa.timestamp("us", tz="UTC"), nullable=False),
    pa.field("decision", pa.int32(), nullable=False),
    pa.field("seat_decision", pa.int32(), nullable=False),
    pa.field("seat", pa.int16(), nullable=False),
    pa.field("seats", pa.int16(), nullable=False),
    pa.field("bot", pa.string(), nullable=False),
    pa.field("bot_id", pa.int64()),
    pa.field("bot_version_id", pa.int64()),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("prompt", pa.string(), nullable=False),
    pa.field("window", pa.string()),
    pa.field("default_option_id", pa.string(), nullable=False),
    pa.field("observation", pa.string(), nullable=False),
    pa.field("options", pa.string(), nullable=False),
    pa.field("option_ids", pa.list_(pa.string()), nullable=False),
    pa.field("choice", pa.string(), nullable=False),
    pa.field("choice_index", pa.int32(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("think_ms", pa.int32()),
    pa.field("note", pa.string(), nullable=False),
    pa.field("events", pa.string(), nullable=False),
    pa.field("rank", pa.int16(), nullable=False),
    pa.field("ranks", pa.list_(pa.int16()), nullable=False),
    pa.field("scores", pa.list_(pa.int32()), nullable=False),
    pa.field("termination", pa.string(), nullable=False),
]
DECISIONS_SCHEMA = pa.schema(_DECISION_FIELDS)
"""The ``decisions`` table: one row per decision, only what the deciding seat could see."""

_HIDDEN_FIELDS: list[pa.Field[Any]] = [
    pa.field("match_id", pa.int64(), nullable=False),
    pa.field("decision", pa.int32(), nullable=False),
    pa.field("seat", pa.int16(), nullable=False),
    pa.field("seed", pa.int64(), nullable=False),
    pa.field("observations", pa.string(), nullable=False),
    pa.field("hidden_events", pa.string(), nullable=False),
]
HIDDEN_SCHEMA = pa.schema(_HIDDEN_FIELDS)
"""The ``hidden`` table (after the end): every seat's view before each decision, the private events after it."""

SCHEMAS = {"decisions": DECISIONS_SCHEMA, "hidden": HIDDEN_SCHEMA}


@dataclass(frozen=True, slots=True)
class MatchSource:
    """One finished match to export: its replay and what the service knows of its seats."""

    match_id: int
    finished_at: datetime
    replay: Replay
    bot_ids: Sequence[int | None] = ()
    """The bot id of each seat, in seat order (empty when unknown)."""
    version_ids: Sequence[int | None] = ()
    """The bot version id of each seat, in seat order (empty when unknown)."""


def wire_observation(game: str, observation: JSONDict) -> JSONDict:
    """Returns ``observation`` as a bot receives it: encoded as the referee sends it, decoded as the SDK reads it."""
    return codec.payload_data(codec.observation(game, observation))


def wire_option(game: str, option: Option) -> JSONDict:
    """Returns ``option`` as a bot receives it (``{"id", "kind", "label", "params"}``)."""
    return codec.option_from(codec.option(game, option)).to_json()


def wire_event(game: str, event: Event, number: int | None = None) -> JSONDict:
    """Returns ``event`` as a bot receives it (``{"i", "kind", "data"}``; the protocol carries no visibility).

    ``number``: the event's index in the receiving seat's own sequence (the events that seat may
    see, from 0: docs/bot-protocol.md, "Numbering"); by default its index in the match's log.
    """
    msg = codec.event(game, event)
    if number is not None:
        msg.index = number
    return codec.event_from(msg).to_json()


def match_rows(source: MatchSource, game: Game | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Re-plays ``source``'s replay and returns its ``decisions`` and ``hidden`` rows, in decision order.

    Nested values (observations, options, events) are plain data here; :func:`to_table` writes
    them as JSON text.

    Raises:
        ReplayError: the replay does not re-play (another rules version, an illegal decision).
        ValueError: the replay has no outcome.
    """
    replay = source.replay
    if replay.outcome is None:
        raise ValueError(f"match {source.match_id} has no outcome; only finished matches are exported")
    name = replay.game
    game = game or get_game(name)
    outcome = replay.outcome
    n_seats = len(replay.seats)
    decisions: list[dict[str, Any]] = []
    hidden: list[dict[str, Any]] = []
    pending: tuple[dict[str, Any], dict[str, Any]] | None = None
    # Each seat's own numbering, as the referee sends it: its decisions counted, and the events it may see.
    seat_decisions = [0] * n_seats
    seat_events = [0] * n_seats
    numbers: dict[int, list[int | None]] = {}
    """Each event's number in every seat's own sequence (``None``: the seat may not see it), by log index."""
    log_seen = 0
    for step in steps(replay, game):
        for e in step.match.events(log_seen, EVERYONE):
            row_numbers: list[int | None] = []
            for s in range(n_seats):
                if e.visible(Seat(s)):
                    row_numbers.append(seat_events[s])
                    seat_events[s] += 1
                else:
                    row_numbers.append(None)
            numbers[e.index] = row_numbers
            log_seen = e.index + 1
        if pending is not None:
            row, secret = pending
            seat = Seat(row["seat"])
            row["events"] = [wire_event(name, e, numbers[e.index][seat]) for e in step.events if e.visible(seat)]
            secret["hidden_events"] += [e.to_json() for e in step.events if e.visible_to is not None]
            decisions.append(row)
            hidden.append(secret)
            pending = None
        if step.index >= len(replay.decisions):
            break
        match = step.match
        # The setup's private events (the deal) happen before decision 0: its hidden row starts with them.
        setup = [e.to_json() for e in match.events(0, EVERYONE) if e.visible_to is not None] if step.index == 0 else []
        decision = match.to_move()
        assert decision is not None  # steps checks the next decision is for the seat to move
        record = replay.decisions[step.index]
        options = list(match.legal_options())
        option_ids = [o.id for o in options]
        seat = decision.seat
        row = {
            "match_id": source.match_id,
            "game": name,
            "rules_version": replay.rules_version,
            "finished_at": source.finished_at,
            "decision": step.index,
            "seat_decision": seat_decisions[seat],
            "seat": int(seat),
            "seats": n_seats,
            "bot": replay.seats[seat],
            "bot_id": _at(source.bot_ids, seat),
            "bot_version_id": _at(source.version_ids, seat),
            "kind": decision.kind,
            "prompt": decision.prompt,
            "window": decision.window,
            "default_option_id": decision.default_option_id,
            "observation": wire_observation(name, match.observe(seat)),
            "options": [wire_option(name, o) for o in options],
            "option_ids": option_ids,
            "choice": record.option_id,
            "choice_index": option_ids.index(record.option_id) if record.option_id in option_ids else -1,
            "source": record.source,
            "think_ms": record.think_ms,
            "note": record.note,
            "events": [],
            "rank": outcome.ranks[seat],
            "ranks": list(outcome.ranks),
            "scores": list(outcome.scores),
            "termination": outcome.termination.value,
        }
        secret = {
            "match_id": source.match_id,
            "decision": step.index,
            "seat": int(seat),
            "seed": replay.seed,
            "observations": [wire_observation(name, match.observe(Seat(s))) for s in range(n_seats)],
            "hidden_events": setup,
        }
        seat_decisions[seat] += 1
        pending = (row, secret)
    return decisions, hidden


def _at(values: Sequence[int | None], seat: int) -> int | None:
    return values[seat] if seat < len(values) else None


def json_text(value: Any) -> str:
    """Returns ``value`` as compact JSON text with sorted keys (the Parquet form of a nested column)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def to_table(table: str, rows: Sequence[dict[str, Any]]) -> pa.Table:
    """Returns ``rows`` of ``table`` as an Arrow table of its schema, nested columns as JSON text."""
    nested = JSON_COLUMNS[table]
    columns: dict[str, list[Any]] = {f.name: [] for f in SCHEMAS[table]}
    for row in rows:
        for key, values in columns.items():
            value = row[key]
            values.append(json_text(value) if key in nested else value)
    return pa.table(columns, schema=SCHEMAS[table])


def jsonl_lines(table: str, rows: Sequence[dict[str, Any]]) -> Iterator[bytes]:
    """Yields one JSON line per row, nested columns as nested values and times as ISO 8601 text."""
    for row in rows:
        yield orjson.dumps(row, option=orjson.OPT_SORT_KEYS | orjson.OPT_UTC_Z | orjson.OPT_APPEND_NEWLINE)


def decode_row(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """Returns a Parquet row with its JSON text columns parsed (a JSON Lines row is returned as it is)."""
    out = dict(row)
    for key in JSON_COLUMNS[table]:
        if isinstance(out.get(key), str):
            out[key] = orjson.loads(out[key])
    return out
