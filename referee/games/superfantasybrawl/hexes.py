"""Hex geometry of the arena: axial coordinates, distance, hex rows, rotation.

A hex is a tuple ``(q, r)`` in axial coordinates (the third cube coordinate is ``-q - r``). Its
string form ``"q2r-1"`` round-trips through :func:`hex_id` and :func:`parse_hex`. This module
knows nothing of statues, champions or traps; the board and movement modules build on it.
"""

from __future__ import annotations

import re

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""The six neighbour offsets, counter-clockwise; index ``d`` is direction ``d``."""

_HEX_RE = re.compile(r"^q(-?\d+)r(-?\d+)$")


def hex_id(h: Hex) -> str:
    """Returns the readable id of ``h``: ``"q2r-1"``."""
    return f"q{h[0]}r{h[1]}"


def parse_hex(text: str) -> Hex:
    """Parses a hex id made by :func:`hex_id`.

    Raises:
        ValueError: ``text`` is not a hex id.
    """
    m = _HEX_RE.match(text)
    if not m:
        raise ValueError(f"not a hex id: {text!r}")
    return (int(m.group(1)), int(m.group(2)))


def distance(a: Hex, b: Hex) -> int:
    """Returns the hex distance (number of steps) between ``a`` and ``b``."""
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def add(a: Hex, b: Hex) -> Hex:
    """Returns ``a + b``."""
    return (a[0] + b[0], a[1] + b[1])


def scale(d: Hex, k: int) -> Hex:
    """Returns ``d`` multiplied by ``k``."""
    return (d[0] * k, d[1] * k)


def neighbours(h: Hex) -> list[Hex]:
    """Returns the six neighbours of ``h`` (some may be off the board), in direction order."""
    return [(h[0] + d[0], h[1] + d[1]) for d in DIRECTIONS]


def row_direction(a: Hex, b: Hex) -> int | None:
    """Returns the direction ``d`` such that ``b`` lies on ``a``'s hex row ``d``, else ``None``.

    Two distinct hexes share a hex row when one cube coordinate is equal (FAQ: a hex row is a
    continuous straight line of adjacent hexes).
    """
    if a == b:
        return None
    dq = b[0] - a[0]
    dr = b[1] - a[1]
    n = distance(a, b)
    if dq % n or dr % n:
        return None
    unit = (dq // n, dr // n)
    return DIRECTIONS.index(unit) if unit in DIRECTIONS else None


def between(a: Hex, b: Hex) -> list[Hex]:
    """Returns the hexes strictly between ``a`` and ``b`` on their shared hex row (empty if none)."""
    d = row_direction(a, b)
    if d is None:
        return []
    step = DIRECTIONS[d]
    return [add(a, scale(step, k)) for k in range(1, distance(a, b))]


def rotate(offset: Hex, turns: int) -> Hex:
    """Rotates an axial offset by ``turns`` sixths of a turn, so ``DIRECTIONS[d]`` becomes ``DIRECTIONS[d + turns]``."""
    q, r = offset
    for _ in range(turns % 6):
        q, r = q + r, -q
    return (q, r)


def mirror(h: Hex) -> Hex:
    """Reflects ``h`` across the middle row (``r = 0``): the map's symmetry between the sides."""
    return (h[0] + h[1], -h[1])
