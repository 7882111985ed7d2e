"""Observation deltas: the patch that turns a seat's previous observation into its new one.

The referee sends a seat's whole observation once (in ``MatchStart``, again after a reconnect or a
takeover); each ``DecisionRequest`` then carries only ``observation_patch``, a list of
:class:`~brawl.bot.v1.bot_pb2.PatchOp`, a subset of RFC 6902 JSON Patch applied to the
observation's *JSON form*. A client in any language keeps that JSON form and applies the ops in
order; the Python SDK does it with :func:`apply_patch`.

The JSON form of an observation is what :func:`referee.protocol.codec.payload_data` returns: the
typed payload message with its proto field names, every scalar, repeated and map field present
(at its default when not set), and unset message fields and unset ``optional`` scalars absent;
for the ``generic`` fallback, the Struct's JSON with integral numbers as integers.

Ops (``path`` is an RFC 6901 JSON Pointer, ``""`` being the whole observation; ``value`` is JSON
text):

* ``replace``: the value at ``path`` (which exists) becomes ``value``.
* ``add``: sets an object member (created or overwritten), or inserts ``value`` into an array
  before index ``N`` (``/.../N``) or appends it (``/.../-``).
* ``remove``: deletes an object member or an array element (later elements shift down).

The referee computes the patch from the engine's plain data, guided by the payload message's
descriptor so that what it emits is already in the JSON form (defaults filled in), without
building or encoding the whole observation: an unchanged subtree costs one ``==``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from brawl.bot.v1 import bot_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from referee import wire
from referee.protocol import codec

_DUMPS = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
_SCALAR_DEFAULTS = {
    FieldDescriptor.TYPE_INT32: 0,
    FieldDescriptor.TYPE_SINT32: 0,
    FieldDescriptor.TYPE_UINT32: 0,
    FieldDescriptor.TYPE_BOOL: False,
    FieldDescriptor.TYPE_STRING: "",
}

Op = tuple[str, str, Any]
"""One patch op before encoding: (op, path, value in the JSON form)."""


class PatchError(ValueError):
    """A patch does not apply to the observation it was given (a client bug, or a lost message)."""


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


class ObservationDiffer:
    """Computes observation patches for one game's observations.

    Args:
        game: The game's registry name (selects the typed payload or the generic fallback).
    """

    def __init__(self, game: str) -> None:
        self.game = game
        self._typed = codec.typed_field(game, bot_pb2.Observation) != "generic"
        desc: Any = None
        if self._typed:
            desc = wire.message_class(game, "observation").DESCRIPTOR
            if not codec._is_simple(desc):
                # Only a simple message's JSON form follows from its plain data; others go
                # through the encoder (slower, but exact).
                desc = None
        self.desc: Descriptor | None = desc

    def json_form(self, data: Any) -> Any:
        """Returns the JSON form of an engine observation (what a client holds after decoding it)."""
        if self.desc is not None:
            return _norm_message(data, self.desc)
        if self._typed:
            return codec.payload_data(codec.observation(self.game, data))
        return json.loads(_DUMPS(data))

    def diff(self, old: Any, new: Any) -> list[Op]:
        """Returns the ops that turn the JSON form of engine data ``old`` into that of ``new``."""
        ops: list[Op] = []
        if old is new:
            return ops
        if self.desc is not None:
            _diff_message(old, new, self.desc, "", ops)
        elif self._typed:
            _diff_plain(self.json_form(old), self.json_form(new), "", ops)
        else:
            _diff_plain(old, new, "", ops)
        return ops


def encode(ops: Iterable[Op]) -> list[bot_pb2.PatchOp]:
    """Returns patch ops as protocol messages."""
    return [bot_pb2.PatchOp(op=op, path=path, value="" if op == "remove" else json_text(v)) for op, path, v in ops]


def encode_into(target: Any, ops: Iterable[Op]) -> None:
    """Appends patch ops to a repeated ``PatchOp`` field, each built where it lives.

    The same messages as ``target.extend(encode(ops))`` without building each op apart and
    copying it in (a fifth of the encoding's CPU).
    """
    add = target.add
    for op, path, v in ops:
        if op == "remove":
            add(op=op, path=path)
        else:
            add(op=op, path=path, value=json_text(v))


def json_text(v: Any) -> str:
    """``v``'s compact JSON text; an int, a bool or ``None`` (most patch values) without the encoder."""
    t = type(v)
    if t is int:
        return str(v)
    if t is bool:
        return "true" if v else "false"
    if v is None:
        return "null"
    return _DUMPS(v)


# ----- the JSON form -----------------------------------------------------------------------


def _norm_field(value: Any, fd: FieldDescriptor) -> Any:
    """The JSON form of a present field value (``value`` is not ``None``)."""
    mt = fd.message_type
    if mt is not None:
        if mt.GetOptions().map_entry:
            vfd = mt.fields_by_name["value"]
            if vfd.message_type is None:
                return dict(value)
            return {k: _norm_message(v, vfd.message_type) for k, v in value.items()}
        if fd.is_repeated:
            return [_norm_message(v, mt) for v in value]
        return _norm_message(value, mt)
    if fd.is_repeated:
        return list(value)
    return value


def _default(fd: FieldDescriptor) -> Any:
    """The JSON form of an absent field, or ``_ABSENT`` when the field is then absent too."""
    mt = fd.message_type
    if mt is not None:
        if mt.GetOptions().map_entry:
            return {}
        return [] if fd.is_repeated else _ABSENT
    if fd.is_repeated:
        return []
    if fd.has_presence:
        return _ABSENT
    return _SCALAR_DEFAULTS[fd.type]


_ABSENT: Any = object()


def _norm_message(data: Any, desc: Descriptor) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for fd in desc.fields:
        value = data.get(fd.name)
        if value is None:
            d = _default(fd)
            if d is not _ABSENT:
                out[fd.name] = d
        else:
            out[fd.name] = _norm_field(value, fd)
    return out


# ----- diffs -------------------------------------------------------------------------------


def _diff_message(old: Any, new: Any, desc: Descriptor, path: str, ops: list[Op]) -> None:
    # No whole-message ``==`` first: each member is compared once below, and a top-level compare
    # would walk every unchanged subtree twice. Most members are the very objects of the previous
    # observation (the engines hand unchanged parts out again), so the walk keeps only the others.
    get = old.get
    changed = [(key, nv) for key, nv in new.items() if (ov := get(key)) is not nv and ov != nv]
    if changed:
        fields = desc.fields_by_name
        for key, nv in changed:
            ov = get(key)
            fd = fields[key]
            sub = f"{path}/{_escape(key)}" if "/" in key or "~" in key else f"{path}/{key}"
            if ov is None:
                d = _default(fd)
                ops.append(("add" if d is _ABSENT else "replace", sub, _norm_field(nv, fd)))
            elif nv is None:
                _clear(fd, sub, ops)
            else:
                _diff_field(ov, nv, fd, sub, ops)
    if len(old) != len(new) or old.keys() != new.keys():
        fields = desc.fields_by_name
        for key, ov in old.items():
            if ov is not None and key not in new:
                _clear(fields[key], f"{path}/{_escape(key)}", ops)


def _clear(fd: FieldDescriptor, path: str, ops: list[Op]) -> None:
    """A member gone from the new observation: removed, or set back to its field's default."""
    d = _default(fd)
    ops.append(("remove", path, None) if d is _ABSENT else ("replace", path, d))


def _diff_field(old: Any, new: Any, fd: FieldDescriptor, path: str, ops: list[Op]) -> None:
    mt = fd.message_type
    if mt is not None and mt.GetOptions().map_entry:
        vfd = mt.fields_by_name["value"]
        vdesc = vfd.message_type
        for k, nv in new.items():
            sub = f"{path}/{_escape(k)}"
            if k not in old:
                ops.append(("add", sub, _norm_message(nv, vdesc) if vdesc is not None else nv))
            elif old[k] != nv:
                if vdesc is not None:
                    _diff_message(old[k], nv, vdesc, sub, ops)
                else:
                    ops.append(("replace", sub, nv))
        for k in old:
            if k not in new:
                ops.append(("remove", f"{path}/{_escape(k)}", None))
    elif fd.is_repeated:
        _diff_list(old, new, mt, path, ops)
    elif mt is not None:
        _diff_message(old, new, mt, path, ops)
    else:
        ops.append(("replace", path, new))


def _norm_item(value: Any, desc: Descriptor | None) -> Any:
    return _norm_message(value, desc) if desc is not None else value


def _diff_list(old: Sequence[Any], new: Sequence[Any], desc: Descriptor | None, path: str, ops: list[Op]) -> None:
    """Diffs two lists: appended or truncated tails, one element inserted or removed, else in place.

    A change to more than half of the common elements replaces the whole list, so a patch is never
    much bigger than the full value; for a list of messages, only when diffing the changed elements
    one by one would take more ops than the list has elements (each op is then no bigger than the
    element it changes).
    """
    n_old, n_new = len(old), len(new)
    common = min(n_old, n_new)
    first = 0
    while first < common and (old[first] is new[first] or old[first] == new[first]):
        first += 1
    if first == n_old == n_new:
        return
    if n_new == n_old + 1 and list(old[first:]) == list(new[first + 1 :]):
        ops.append(("add", f"{path}/{first}", _norm_item(new[first], desc)))
        return
    if n_old == n_new + 1 and list(old[first + 1 :]) == list(new[first:]):
        ops.append(("remove", f"{path}/{first}", None))
        return
    changed = [i for i in range(first, common) if old[i] is not new[i] and old[i] != new[i]]
    if desc is not None and common > 1 and len(changed) * 2 > common:
        # Most elements changed: element by element while that stays at most one op per element
        # (a new turn clears a flag on every creature), else the whole list.
        mine: list[Op] = []
        for i in changed:
            _diff_message(old[i], new[i], desc, f"{path}/{i}", mine)
            if len(mine) > n_new:
                ops.append(("replace", path, [_norm_message(v, desc) for v in new]))
                return
        ops.extend(mine)
    elif len(changed) * 2 > max(common, 1) and common > 1:
        ops.append(("replace", path, list(new)))
        return
    else:
        for i in changed:
            sub = f"{path}/{i}"
            if desc is not None:
                _diff_message(old[i], new[i], desc, sub, ops)
            else:
                ops.append(("replace", sub, new[i]))
    for i in range(n_old - 1, n_new - 1, -1):
        ops.append(("remove", f"{path}/{i}", None))
    for i in range(n_old, n_new):
        ops.append(("add", f"{path}/-", _norm_item(new[i], desc)))


def _diff_plain(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    """Diffs two values already in the JSON form."""
    if old == new and type(old) is type(new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for k, nv in new.items():
            sub = f"{path}/{_escape(k)}"
            if k not in old:
                ops.append(("add", sub, nv))
            else:
                _diff_plain(old[k], nv, sub, ops)
        for k in old:
            if k not in new:
                ops.append(("remove", f"{path}/{_escape(k)}", None))
    elif isinstance(old, list) and isinstance(new, list):
        n_old, n_new = len(old), len(new)
        common = min(n_old, n_new)
        for i in range(common):
            _diff_plain(old[i], new[i], f"{path}/{i}", ops)
        for i in range(n_old - 1, n_new - 1, -1):
            ops.append(("remove", f"{path}/{i}", None))
        for i in range(n_old, n_new):
            ops.append(("add", f"{path}/-", new[i]))
    else:
        ops.append(("replace", path, new))


# ----- applying a patch (the client side) ---------------------------------------------------


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"a JSON Pointer starts with '/': {path!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def _index(container: list[Any], token: str, path: str, insert: bool) -> int:
    if token == "-" and insert:
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"{path!r}: {token!r} is not an array index")
    i = int(token)
    if i > len(container) or (i == len(container) and not insert):
        raise PatchError(f"{path!r}: index {i} is out of range (length {len(container)})")
    return i


def apply_patch(doc: Any, ops: Iterable[bot_pb2.PatchOp]) -> Any:
    """Returns ``doc`` with the ops applied; ``doc`` itself is left unchanged.

    Only the containers on each op's path are copied, so an observation handed to a bot earlier
    stays as it was (bots must still treat observations as read-only: unchanged parts are shared).

    Raises:
        PatchError: an op is unknown, its path does not exist, or its value is not JSON.
    """
    copied: set[int] = set()

    def own(container: Any) -> Any:
        # Copy a container once per patch, the first time an op writes into it.
        if not isinstance(container, dict | list):
            raise PatchError(f"{path!r} goes through a scalar")
        if id(container) in copied:
            return container
        fresh = dict(container) if isinstance(container, dict) else list(container)
        copied.add(id(fresh))
        return fresh

    for op in ops:
        kind, path = op.op, op.path
        if kind not in ("add", "replace", "remove"):
            raise PatchError(f"unknown patch op {kind!r} at {path!r}")
        try:
            value = json.loads(op.value) if kind != "remove" else None
        except ValueError as exc:
            raise PatchError(f"{path!r}: the value is not JSON ({exc})") from exc
        tokens = _tokens(path)
        if not tokens:
            if kind == "remove":
                raise PatchError("cannot remove the whole observation")
            doc = value
            if isinstance(doc, dict | list):
                copied.add(id(doc))
            continue
        doc = own(doc)
        parent = doc
        for t in tokens[:-1]:
            if isinstance(parent, dict):
                if t not in parent:
                    raise PatchError(f"{path!r}: no member {t!r}")
                child = own(parent[t])
                parent[t] = child
            elif isinstance(parent, list):
                i = _index(parent, t, path, insert=False)
                child = own(parent[i])
                parent[i] = child
            else:
                raise PatchError(f"{path!r}: {t!r} is inside a scalar")
            parent = child
        last = tokens[-1]
        if isinstance(parent, dict):
            if kind != "add" and last not in parent:
                raise PatchError(f"{path!r}: no member {last!r} to {kind}")
            if kind == "remove":
                del parent[last]
            else:
                parent[last] = value
        elif isinstance(parent, list):
            i = _index(parent, last, path, insert=kind == "add")
            if kind == "add":
                parent.insert(i, value)
            elif kind == "replace":
                parent[i] = value
            else:
                del parent[i]
        else:
            raise PatchError(f"{path!r}: the parent is a scalar")
    return doc
