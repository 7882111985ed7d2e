"""The generic view of a board: what a viewer draws of any game, and what an option acts on.

A game turns the observation of one viewer into a :class:`BoardView` (``Game.board_view``): cells
with their coordinates and outline (a hex, a square, a triangle, any polygon), pieces with their
owner seat, label and kind, markers on cells, per-seat areas of cards (a hand, a discard pile, the
pieces off the board) and a few facts and scores in words. Each event gets a sentence
(``Game.event_text``, as OpenSpiel and python-chess give a move its string) and each option the
cells, pieces and cards it acts on (``Game.option_targets`` returns :class:`Targets`), so a board
can offer an option on a click. A viewer that draws only this, a replay viewer or a table where
people play, knows no game.

The view is built from the viewer's observation and nothing else, so it shows exactly what that
viewer may see: another seat's hand is a count of face-down cards, never its cards.

Coordinates are board units: the y axis points down (as on a screen) and a cell's ``points`` are its
outline's corners, so a viewer fits the bounding box of every cell into its drawing and draws each
polygon as given. :func:`hex_cell`, :func:`square_cell` and :func:`polygon_cell` build the common
shapes. Every value is plain data once :meth:`BoardView.to_json` has run, and that JSON follows the
schema ``referee/core/data/schema/board_view.schema.json`` (checked by :func:`validate_view`).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Point = tuple[float, float]
"""A point in board units (x to the right, y down)."""

SHAPES = ("hex", "square", "triangle", "polygon")
"""The outlines a cell may say it has (its ``points`` are what is drawn)."""

PIECE_SHAPES = ("circle", "square", "rounded", "triangle", "diamond", "ring")
"""How a piece or a marker is drawn on its cell."""


def _round(value: float) -> float:
    out = round(float(value), 3)
    return 0.0 if out == 0 else out


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of the board: its id (what pieces, markers and targets name), centre and outline."""

    id: str
    """Unique on the board, the game's own name for the cell: ``"q0r-2"``, ``"r3c4"``, ``"t5"``."""
    center: Point
    """Where pieces on the cell are drawn."""
    points: tuple[Point, ...]
    """The outline's corners, in order (at least 3)."""
    shape: str = "polygon"
    """One of :data:`SHAPES`; informative, the outline is ``points``."""
    kind: str = ""
    """What sort of cell, for styling and tests: ``"zone"``, ``"deploy"``, ``"blocked"``; empty for a plain cell."""
    label: str = ""
    """A short caption drawn on the cell, or empty."""
    fill: str = ""
    """A CSS colour (``#rrggbb``) for the cell, or empty for the viewer's plain colour."""
    coords: tuple[int, ...] = ()
    """The game's coordinates of the cell (axial ``(q, r)``, ``(row, col)``...), for people and tables."""

    def to_json(self) -> dict[str, Any]:
        """Returns the cell as plain data."""
        out: dict[str, Any] = {
            "id": self.id,
            "shape": self.shape,
            "center": [_round(self.center[0]), _round(self.center[1])],
            "points": [[_round(x), _round(y)] for x, y in self.points],
        }
        for key in ("kind", "label", "fill"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.coords:
            out["coords"] = list(self.coords)
        return out


def hex_cell(cell_id: str, q: int, r: int, *, size: float = 1.0, **kw: Any) -> Cell:
    """A pointy-top hex at axial ``(q, r)`` with circumradius ``size``."""
    cx, cy = size * math.sqrt(3) * (q + r / 2), size * 1.5 * r
    corners = tuple(
        (cx + size * math.cos(math.radians(60 * i - 30)), cy + size * math.sin(math.radians(60 * i - 30)))
        for i in range(6)
    )
    kw.setdefault("coords", (q, r))
    return Cell(cell_id, (cx, cy), corners, "hex", **kw)


def square_cell(cell_id: str, col: int, row: int, *, size: float = 1.0, **kw: Any) -> Cell:
    """A square whose top left corner is at ``(col, row) * size``."""
    x, y = col * size, row * size
    kw.setdefault("coords", (row, col))
    return Cell(
        cell_id,
        (x + size / 2, y + size / 2),
        ((x, y), (x + size, y), (x + size, y + size), (x, y + size)),
        "square",
        **kw,
    )


def polygon_cell(cell_id: str, points: Sequence[Point], *, shape: str = "polygon", **kw: Any) -> Cell:
    """A cell of any outline; its centre is the mean of its corners unless ``center`` is given."""
    pts = tuple((float(x), float(y)) for x, y in points)
    center = kw.pop("center", None) or (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
    return Cell(cell_id, center, pts, shape, **kw)


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece: on a cell, or off the board (``cell`` empty: the viewer lists it beside the board)."""

    id: str
    """Unique among the view's pieces; the game's id (what options and events name)."""
    kind: str
    """What sort of piece: ``"champion"``, ``"creature"``, ``"orb"``..."""
    label: str
    """A short label drawn on the piece (one to three characters read best)."""
    cell: str = ""
    """The id of the cell it stands on, or empty when off the board."""
    owner: int | None = None
    """The seat that owns it, or ``None`` for a neutral piece."""
    name: str = ""
    """Its full name in words, for the log and a tooltip; defaults to the label."""
    shape: str = "circle"
    """One of :data:`PIECE_SHAPES`."""
    fill: str = ""
    """A CSS colour (``#rrggbb``) for its body; empty: the owner's seat colour."""
    size: float = 0.7
    """Its size relative to its cell (0 to 1); a smaller piece sharing a cell is drawn over a larger one."""
    badge: str = ""
    """A short caption under it (``"5/8"``), or empty."""
    flags: tuple[str, ...] = ()
    """States in words (``"levelled"``, ``"stone"``), listed in its tooltip and as classes."""

    def to_json(self) -> dict[str, Any]:
        """Returns the piece as plain data."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "label": self.label,
            "name": self.name or self.label,
            "shape": self.shape,
            "size": _round(self.size),
        }
        if self.cell:
            out["cell"] = self.cell
        if self.owner is not None:
            out["owner"] = self.owner
        for key in ("fill", "badge"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.flags:
            out["flags"] = list(self.flags)
        return out


@dataclass(frozen=True, slots=True)
class Marker:
    """A mark on a cell that is not a piece: a face-down token, a highlighted zone, an empty slot."""

    cell: str
    """The id of the cell it marks."""
    kind: str
    """What it marks: ``"trap"``, ``"trap-empty"``, ``"statue"``..."""
    label: str = ""
    """A word for its tooltip and the log; empty: the kind."""
    shape: str = "triangle"
    """One of :data:`PIECE_SHAPES`."""
    fill: str = ""
    """A CSS colour (``#rrggbb``), or empty for the viewer's marker colour."""
    hollow: bool = False
    """Drawn as an outline only (an empty slot)."""

    def to_json(self) -> dict[str, Any]:
        """Returns the marker as plain data."""
        out: dict[str, Any] = {
            "cell": self.cell,
            "kind": self.kind,
            "label": self.label or self.kind,
            "shape": self.shape,
        }
        if self.fill:
            out["fill"] = self.fill
        if self.hollow:
            out["hollow"] = True
        return out


@dataclass(frozen=True, slots=True)
class Card:
    """A card (or any item) shown face up in an area."""

    id: str
    """What options name it by (unique within its area): a card id, or the card's name when the game has no ids."""
    name: str
    """Its name in words."""
    kind: str = ""
    """Its type in words (``"event"``, ``"enchantment"``), or empty."""

    def to_json(self) -> dict[str, Any]:
        """Returns the card as plain data."""
        out: dict[str, Any] = {"id": self.id, "name": self.name}
        if self.kind:
            out["kind"] = self.kind
        return out


@dataclass(frozen=True, slots=True)
class Area:
    """A group of cards or items beside the board: a hand, a discard pile, the pieces off the board."""

    id: str
    """Unique among the view's areas: ``"hand:0"``, ``"discard"``."""
    title: str
    """Its heading in words: ``"Hand"``, ``"Discard"``, ``"On gate"``."""
    seat: int | None = None
    """The seat it belongs to, or ``None`` for a shared one."""
    cards: tuple[Card, ...] = ()
    """What the viewer may see face up, in order."""
    hidden: int = 0
    """How many more it holds face down (another seat's hand, a deck)."""

    def to_json(self) -> dict[str, Any]:
        """Returns the area as plain data."""
        out: dict[str, Any] = {"id": self.id, "title": self.title, "cards": [c.to_json() for c in self.cards]}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.hidden:
            out["hidden"] = self.hidden
        return out


@dataclass(frozen=True, slots=True)
class BoardView:
    """What one viewer may see of a match, drawn generically (see the module docstring)."""

    viewer: int | None
    """The seat this view is for, or ``None`` for a spectator."""
    cells: tuple[Cell, ...] = ()
    pieces: tuple[Piece, ...] = ()
    markers: tuple[Marker, ...] = ()
    areas: tuple[Area, ...] = ()
    scores: tuple[str, ...] = ()
    """One short text per seat (``"3 VP"``), in seat order; empty if the game shows none."""
    facts: tuple[tuple[str, str], ...] = ()
    """Public facts in words, ``("Round", "3 of 15")``, in the order they are shown."""

    def to_json(self, *, cells: bool = True) -> dict[str, Any]:
        """Returns the view as plain data (the schema's form); without ``cells`` when asked (sent once elsewhere)."""
        out: dict[str, Any] = {
            "viewer": -1 if self.viewer is None else self.viewer,
            "cells": [c.to_json() for c in self.cells] if cells else [],
            "pieces": [p.to_json() for p in self.pieces],
            "markers": [m.to_json() for m in self.markers],
            "areas": [a.to_json() for a in self.areas],
            "scores": list(self.scores),
            "facts": [[k, v] for k, v in self.facts],
        }
        if not cells:
            del out["cells"]
        return out

    def cell_ids(self) -> set[str]:
        """The ids of every cell."""
        return {c.id for c in self.cells}

    def piece_ids(self) -> set[str]:
        """The ids of every piece."""
        return {p.id for p in self.pieces}

    def card_ids(self, seat: int | None = None) -> set[str]:
        """The ids of the face-up cards of every area, or of the areas of ``seat`` and the shared ones."""
        return {c.id for a in self.areas if seat is None or a.seat in (None, seat) for c in a.cards}

    def names(self) -> dict[str, str]:
        """Each piece's name by id, for :meth:`~referee.core.contract.Game.event_text`."""
        return {p.id: p.name or p.label for p in self.pieces}


@dataclass(frozen=True, slots=True)
class Targets:
    """What an option acts on, so a board can offer it on a click: cell, piece and card ids of the view.

    The ids are those of the deciding seat's :class:`BoardView` (:meth:`missing_from` checks it). An
    option with no targets (``pass``, ``end turn``) is offered as a button.
    """

    cells: tuple[str, ...] = ()
    pieces: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.cells or self.pieces or self.cards)

    def to_json(self) -> dict[str, Any]:
        """Returns the targets as plain data: ``{"cells": [...], "pieces": [...], "cards": [...]}``."""
        return {"cells": list(self.cells), "pieces": list(self.pieces), "cards": list(self.cards)}

    @classmethod
    def of(cls, cells: Iterable[str] = (), pieces: Iterable[str] = (), cards: Iterable[str] = ()) -> Targets:
        """Builds targets from any iterables, dropping empty ids and repeats (keeping the first order)."""

        def clean(xs: Iterable[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(str(x) for x in xs if x))

        return cls(clean(cells), clean(pieces), clean(cards))

    def missing_from(self, view: BoardView, seat: int | None = None) -> list[str]:
        """The ids that name nothing of ``view`` (cards: of ``seat``'s areas and the shared ones), as ``kind:id``."""
        cells, pieces, cards = view.cell_ids(), view.piece_ids(), view.card_ids(seat)
        return (
            [f"cell:{c}" for c in self.cells if c not in cells]
            + [f"piece:{p}" for p in self.pieces if p not in pieces]
            + [f"card:{c}" for c in self.cards if c not in cards]
        )


def spelled_out(kind: str, data: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """A sentence for an event no game describes: its kind and data in words (``"Score: seat 0, amount 3"``)."""
    names = names or {}
    bits = []
    for key, value in data.items():
        if key == "seat" and isinstance(value, int):
            bits.append(f"seat {value}")
        elif isinstance(value, str) and value in names:
            bits.append(f"{key.replace('_', ' ')} {names[value]}")
        elif isinstance(value, list):
            bits.append(f"{key.replace('_', ' ')} {', '.join(str(v) for v in value)}")
        elif isinstance(value, dict):
            bits.append(f"{key.replace('_', ' ')} ({', '.join(f'{k} {v}' for k, v in value.items())})")
        else:
            bits.append(f"{key.replace('_', ' ')} {value}")
    head = kind.replace("_", " ").capitalize()
    return f"{head}: {'; '.join(bits)}" if bits else head


def _words(value: Any) -> str:
    """A value in words: an engine identifier (``killer_orb``) reads ``killer orb``."""
    return str(value).replace("_", " ")


class Phrases(string.Formatter):
    """Event sentences from templates: ``"{champion:ch} moves to {hex:hex}{source:ch? (pushed by @)}"``.

    A field's format spec is ``[filter][=argument][?text]``: the filter (one of ``filters``, or
    ``n``: a count with its noun, ``"{count:n=card}"`` gives ``"2 cards"``; none: the value with
    underscores as spaces) turns the value into words;
    ``?text`` writes ``text`` with ``@`` for those words, and nothing at all when the value is
    missing, empty or zero. A missing field is empty. A list is joined with commas, each item
    filtered (empty items left out), unless the filter is marked ``*`` (``{ranks:*ranks}``): then it
    gets the whole list.
    """

    def __init__(self, filters: Mapping[str, Callable[[Any], str]], templates: Mapping[str, str]) -> None:
        super().__init__()
        self.filters = filters
        self.templates = templates

    def get_value(self, key: int | str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        return kwargs.get(str(key), "")

    def format_field(self, value: Any, format_spec: str) -> str:
        spec, _, text = format_spec.partition("?")
        if _ and value in (None, "", 0, [], {}, False):
            return ""
        name, _eq, arg = spec.partition("=")
        whole = name.startswith("*")
        name = name.lstrip("*")
        if name == "n":
            count = value if isinstance(value, int) else 1
            words = f"{count} {arg}" + ("" if count == 1 else "s")
        else:
            say = self.filters.get(name, _words) if name else _words
            if isinstance(value, list) and not whole:
                words = ", ".join(say(v) for v in value if v not in (None, ""))
            else:
                words = say(value)
        return text.replace("@", words) if _ else words

    def say(self, kind: str, data: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
        """The sentence of an event of ``kind`` with ``data``; a kind with no template is spelled out."""
        template = self.templates.get(kind)
        if template is None:
            return spelled_out(kind, data, names)
        text = self.vformat(template, (), data)
        return text[:1].upper() + text[1:]


VIEW_SCHEMA = "board_view.json"
"""The schema file of :meth:`BoardView.to_json`'s output, under ``referee/core/data/schema/``."""


def validate_view(data: Mapping[str, Any]) -> None:
    """Checks a view's JSON against the schema, and that every id it refers to exists.

    Raises:
        ContentError: the view breaks the schema, repeats an id, or puts a piece or marker on no cell.
    """
    from referee.core.errors import ContentError
    from referee.core.schema import schema_for, validate

    validate(data, schema_for("referee.core", VIEW_SCHEMA), "board view")
    cells = [c["id"] for c in data["cells"]]
    for what, ids in (
        ("cell", cells),
        ("piece", [p["id"] for p in data["pieces"]]),
        ("area", [a["id"] for a in data["areas"]]),
    ):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ContentError(f"board view: {what} ids repeat: {repeated!r}")
    known = set(cells)
    for p in data["pieces"]:
        if p.get("cell") and p["cell"] not in known:
            raise ContentError(f"board view: piece {p['id']!r} stands on no cell of the board ({p['cell']!r})")
    for m in data["markers"]:
        if m["cell"] not in known:
            raise ContentError(f"board view: a {m['kind']!r} marker is on no cell of the board ({m['cell']!r})")
