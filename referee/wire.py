"""Strict conversion between an engine's plain data and the game's typed proto messages.

Engines emit plain data (they import no protobuf); the keys are the field names of the game's
``Observation``, ``OptionParams`` and ``Event`` messages in ``proto/brawl/<game>/v1/``. This module
parses that data strictly (an unknown field is an error), for the server and for the tests that
prove the engine and the ``.proto`` files agree. A game's messages are found by their full names in
the protobuf descriptor pool, which the bot protocol's generated module fills with every game's.
"""

from __future__ import annotations

from typing import Any

from brawl.bot.v1 import bot_pb2  # noqa: F401 (imports every game's generated module: their messages are its fields)
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.message import Message

PAYLOADS = {"observation": "Observation", "option": "OptionParams", "event": "Event"}


class WireError(ValueError):
    """Engine data does not fit its proto message; the message names the game, kind and field."""


def message_class(game: str, kind: str) -> type[Message]:
    """Returns the proto class for ``kind`` (``observation``, ``option``, ``event``) of ``game``.

    Raises:
        WireError: unknown kind or game.
    """
    if kind not in PAYLOADS:
        raise WireError(f"unknown payload kind {kind!r}; expected one of {sorted(PAYLOADS)!r}")
    name = f"brawl.{game}.v1.{PAYLOADS[kind]}"
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
    except KeyError as exc:
        raise WireError(f"no generated proto message {name} for game {game!r}") from exc
    cls: type[Message] = message_factory.GetMessageClass(descriptor)
    return cls


def to_message(game: str, kind: str, data: Any) -> Message:
    """Parses engine data into its proto message, strictly.

    Raises:
        WireError: the data has a field the message lacks, or a value of the wrong type.
    """
    msg = message_class(game, kind)()
    try:
        json_format.ParseDict(data, msg, ignore_unknown_fields=False)
    except json_format.ParseError as exc:
        raise WireError(f"{game} {kind} does not fit its proto message: {exc}") from exc
    return msg


def to_data(msg: Message) -> dict[str, Any]:
    """Returns a message as plain data keyed by proto field names (what a Python bot reads)."""
    return json_format.MessageToDict(msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def validator(game: str):  # type: ignore[no-untyped-def]
    """Returns a conformance-kit validator that parses every payload of ``game`` strictly."""

    def check(kind: str, data: Any) -> None:
        to_message(game, kind, data)

    return check
