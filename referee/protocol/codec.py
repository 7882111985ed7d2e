"""Conversion between the engine's plain data and the bot protocol's messages, for any game.

The protocol carries each game's payloads in a ``oneof`` whose fields are named after the games
(``scrumbrawl``, ``superfantasybrawl``). A game with a field there and a generated module is sent
typed, parsed strictly by :mod:`referee.wire`; any other game (the test-only games) is sent in the
``generic`` :class:`google.protobuf.Struct` fallback. The decoding half is what the Python SDK
uses, so a bot sees exactly what the engine produced, keyed by proto field names.

This module knows no game; it reads the oneof fields from the message descriptors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from brawl.bot.v1 import bot_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.struct_pb2 import Struct, Value

from referee import wire
from referee.core.contract import Event, JSONDict, Option, Outcome, Termination

_TERMINATIONS = {
    Termination.VICTORY: bot_pb2.TERMINATION_VICTORY,
    Termination.ROUND_CAP: bot_pb2.TERMINATION_ROUND_CAP,
    Termination.LAST_STANDING: bot_pb2.TERMINATION_LAST_STANDING,
    Termination.FORFEIT: bot_pb2.TERMINATION_FORFEIT,
    Termination.CANCELLED: bot_pb2.TERMINATION_CANCELLED,
}
_TERMINATIONS_BACK = {v: k for k, v in _TERMINATIONS.items()}
_KINDS = {bot_pb2.Observation: "observation", bot_pb2.OptionParams: "option", bot_pb2.GameEvent: "event"}


_FIELDS: dict[tuple[str, str], str] = {}


def typed_field(game: str, wrapper: type[Message]) -> str:
    """Returns the oneof field of ``wrapper`` that carries ``game``'s payload: the game or ``generic``."""
    key = (game, wrapper.DESCRIPTOR.full_name)
    if key not in _FIELDS:
        oneof = wrapper.DESCRIPTOR.oneofs[0]
        field = "generic"
        if game != "generic" and game in {f.name for f in oneof.fields}:
            try:
                wire.message_class(game, _KINDS[wrapper])
                field = game
            except wire.WireError:
                pass
        _FIELDS[key] = field
    return _FIELDS[key]


_SIMPLE_SCALARS = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_BOOL,
    FieldDescriptor.TYPE_STRING,
}
_SIMPLE: dict[str, bool] = {}
_CLASSES: dict[tuple[str, str], type[Message]] = {}


def _is_simple(desc: Any, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a message uses only fields the fast paths handle exactly like json_format.

    Those are 32-bit integers, bools, strings, messages of such, repeated ones and string-keyed
    maps. Anything else (64-bit integers, floats, enums, bytes, well-known types) takes the
    json_format path, whose output differs in detail (64-bit integers as strings, float rounding).
    """
    name = desc.full_name
    if name in _SIMPLE:
        return _SIMPLE[name]
    if name in seen:
        return True  # recursion: decided by the outer call
    ok = not name.startswith("google.protobuf.")
    for fd in desc.fields:
        if not ok:
            break
        if fd.message_type is not None:
            if fd.message_type.GetOptions().map_entry:
                key, value = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
                ok = key.type == FieldDescriptor.TYPE_STRING and (
                    value.type in _SIMPLE_SCALARS
                    or (value.message_type is not None and _is_simple(value.message_type, seen | {name}))
                )
            else:
                ok = _is_simple(fd.message_type, seen | {name})
        else:
            ok = fd.type in _SIMPLE_SCALARS
    _SIMPLE[name] = ok
    return ok


# How _fill_message writes each field of a message, by field name (see _plan).
_SCALAR, _REPEATED, _MESSAGE, _REPEATED_MESSAGE, _MAP, _MAP_MESSAGE = range(6)
_PLANS: dict[Any, dict[str, int]] = {}


def _plan(desc: Any) -> dict[str, int]:
    """Each field of ``desc`` by name, with how it is filled (worked out once per message type:
    ``GetOptions()`` and the descriptor lookups cost more than the fill itself)."""
    plan = _PLANS.get(desc)
    if plan is None:
        plan = {}
        for fd in desc.fields:
            mt = fd.message_type
            if mt is None:
                plan[fd.name] = _REPEATED if fd.is_repeated else _SCALAR
            elif mt.GetOptions().map_entry:
                plan[fd.name] = _MAP if mt.fields_by_name["value"].message_type is None else _MAP_MESSAGE
            else:
                plan[fd.name] = _REPEATED_MESSAGE if fd.is_repeated else _MESSAGE
        _PLANS[desc] = plan
    return plan


def _fill_message(msg: Any, data: Any) -> None:
    # Plain setattr/extend/add, not json_format.ParseDict (docs/benchmarks.md has the cost). Wrong
    # shapes raise (TypeError, ValueError, AttributeError, KeyError...) and the caller falls back
    # to the strict parser for its exact error message.
    plan = _plan(msg.DESCRIPTOR)
    for key, value in data.items():
        if value is None:
            continue
        how = plan[key]
        if how == _SCALAR:
            setattr(msg, key, value)
        elif how == _REPEATED_MESSAGE:
            target = getattr(msg, key)
            for item in value:
                _fill_message(target.add(), item)
        elif how == _MESSAGE:
            target = getattr(msg, key)
            target.SetInParent()
            _fill_message(target, value)
        elif how == _REPEATED:
            if isinstance(value, str | bytes | dict):
                raise TypeError(f"{key} must be a list")
            getattr(msg, key).extend(value)
        elif how == _MAP:
            target = getattr(msg, key)
            for k, v in value.items():
                target[k] = v
        else:
            target = getattr(msg, key)
            for k, v in value.items():
                _fill_message(target[k], v)


def typed_message(game: str, kind: str, data: Any) -> Message:
    """Parses engine data into the game's typed message: fast when the message is simple.

    Raises:
        referee.wire.WireError: the data does not fit the message (from the strict parser).
    """
    cls = _CLASSES.get((game, kind))
    if cls is None:
        cls = _CLASSES[(game, kind)] = wire.message_class(game, kind)
    if _is_simple(cls.DESCRIPTOR) and isinstance(data, dict):
        msg = cls()
        try:
            _fill_message(msg, data)
            return msg
        except Exception:
            pass  # the strict parser below raises the precise error
    return wire.to_message(game, kind, data)


def fill_typed(target: Message, game: str, kind: str, data: Any) -> None:
    """Fills ``target`` (a field of the message being built) in place with engine data.

    The same as ``target.CopyFrom(typed_message(game, kind, data))`` without building a separate
    message and copying it.

    Raises:
        referee.wire.WireError: the data does not fit the message (from the strict parser).
    """
    if _is_simple(target.DESCRIPTOR) and isinstance(data, dict):
        try:
            target.SetInParent()
            _fill_message(target, data)
            return
        except Exception:
            target.Clear()  # the strict parser below raises the precise error
            target.SetInParent()
    target.CopyFrom(wire.to_message(game, kind, data))


def message_data(msg: Message) -> JSONDict:
    """Returns a typed message as plain data, exactly as :func:`referee.wire.to_data` would."""
    if not _is_simple(msg.DESCRIPTOR):
        return wire.to_data(msg)
    return _dict_of(msg)


def _dict_of(msg: Any) -> JSONDict:
    out: JSONDict = {}
    for fd in msg.DESCRIPTOR.fields:
        name = fd.name
        value = getattr(msg, name)
        if fd.message_type is not None:
            if fd.message_type.GetOptions().map_entry:
                scalar = fd.message_type.fields_by_name["value"].message_type is None
                out[name] = {k: (v if scalar else _dict_of(v)) for k, v in value.items()}
            elif fd.is_repeated:
                out[name] = [_dict_of(v) for v in value]
            elif msg.HasField(name):
                out[name] = _dict_of(value)
        elif fd.is_repeated:
            out[name] = list(value)
        elif not fd.has_presence or msg.HasField(name):
            out[name] = value
    return out


def to_struct(data: Any) -> Struct:
    """Returns plain JSON data as a Struct (numbers become doubles)."""
    s = Struct()
    s.update(data)
    return s


def _fill(game: str, wrapper: Message, kind: str, data: Any) -> None:
    field = typed_field(game, type(wrapper))
    if field == "generic":
        cast(Any, wrapper).generic.update(data)
    else:
        fill_typed(getattr(wrapper, field), game, kind, data)


def observation(game: str, data: JSONDict) -> bot_pb2.Observation:
    """Returns an engine observation as a protocol message.

    Raises:
        referee.wire.WireError: the data does not fit the game's ``Observation`` message.
    """
    msg = bot_pb2.Observation()
    _fill(game, msg, "observation", data)
    return msg


def fill_observation(target: bot_pb2.Observation, game: str, data: JSONDict) -> None:
    """Fills an ``Observation`` field in place (see :func:`observation`).

    Raises:
        referee.wire.WireError: the data does not fit the game's ``Observation`` message.
    """
    _fill(game, target, "observation", data)


def option(game: str, opt: Option) -> bot_pb2.Option:
    """Returns an engine option as a protocol message.

    Raises:
        referee.wire.WireError: the params do not fit the game's ``OptionParams`` message.
    """
    msg = bot_pb2.Option(id=opt.id, kind=opt.kind, label=opt.label)
    _fill(game, msg.params, "option", opt.params)
    return msg


def event(game: str, ev: Event) -> bot_pb2.GameEvent:
    """Returns an engine event as a protocol message.

    Raises:
        referee.wire.WireError: the data does not fit the game's ``Event`` message.
    """
    msg = bot_pb2.GameEvent()
    _fill_event(msg, game, ev)
    return msg


def _fill_event(msg: bot_pb2.GameEvent, game: str, ev: Event) -> None:
    msg.index = ev.index
    msg.kind = ev.kind
    field = typed_field(game, bot_pb2.GameEvent)
    if field == "generic":
        msg.generic.update(ev.data)
    else:
        fill_typed(getattr(msg, field), game, "event", ev.data)


def events(game: str, evs: Iterable[Event]) -> list[bot_pb2.GameEvent]:
    """Returns engine events as protocol messages."""
    return [event(game, e) for e in evs]


def add_events(target: Any, game: str, evs: Iterable[Event]) -> None:
    """Appends engine events to a repeated ``GameEvent`` field, filling each in place.

    Raises:
        referee.wire.WireError: an event's data does not fit the game's ``Event`` message.
    """
    for e in evs:
        _fill_event(target.add(), game, e)


def outcome(o: Outcome) -> bot_pb2.Outcome:
    """Returns an outcome as a protocol message."""
    return bot_pb2.Outcome(
        ranks=list(o.ranks), termination=_TERMINATIONS[o.termination], reason=o.reason, scores=list(o.scores)
    )


def outcome_from(msg: bot_pb2.Outcome) -> Outcome:
    """Returns the outcome carried by a protocol message.

    Raises:
        ValueError: the termination is unspecified.
    """
    if msg.termination not in _TERMINATIONS_BACK:
        raise ValueError(f"outcome has no termination: {msg!r}")
    return Outcome(
        ranks=tuple(msg.ranks),
        termination=_TERMINATIONS_BACK[msg.termination],
        reason=msg.reason,
        scores=tuple(msg.scores),
    )


def _from_value(v: Value) -> Any:
    # A direct walk: json_format's generic path costs several times more per decision.
    kind = v.WhichOneof("kind")
    if kind == "number_value":
        n = v.number_value
        return int(n) if n.is_integer() else n
    if kind == "string_value":
        return v.string_value
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return {k: _from_value(x) for k, x in v.struct_value.fields.items()}
    if kind == "list_value":
        return [_from_value(x) for x in v.list_value.values]
    return None


def struct_data(s: Struct) -> JSONDict:
    """Returns a Struct as plain data, integral numbers as ``int``."""
    return {k: _from_value(x) for k, x in s.fields.items()}


def payload_data(wrapper: Message) -> JSONDict:
    """Returns the payload of an Observation, OptionParams or GameEvent as plain data.

    The typed payloads come back keyed by proto field names (:func:`referee.wire.to_data`); the
    generic one as the JSON it carried, integral numbers as ``int``.
    """
    name = wrapper.WhichOneof(wrapper.DESCRIPTOR.oneofs[0].name)
    if name is None:
        return {}
    payload = getattr(wrapper, name)
    if name == "generic":
        return struct_data(payload)
    return message_data(payload)


def option_from(msg: bot_pb2.Option) -> Option:
    """Returns the engine option carried by a protocol message."""
    return Option(id=msg.id, kind=msg.kind, label=msg.label, params=payload_data(msg.params))


def event_from(msg: bot_pb2.GameEvent) -> Event:
    """Returns the event carried by a protocol message (its visibility is not carried)."""
    return Event(index=msg.index, kind=msg.kind, data=payload_data(msg))


def options_from(msgs: Sequence[bot_pb2.Option]) -> list[Option]:
    """Returns the engine options carried by protocol messages."""
    return [option_from(m) for m in msgs]
