"""Content of the game as data: the arena, the champions and their cards, challenges, traps.

Content lives in JSON files under ``data/`` and is validated when loaded: first against its JSON
Schema (``data/schema/*.schema.json``, with :mod:`referee.core.schema`), then for what a schema cannot
say (a hex off the board, a duplicate id, a pattern a card names). Every problem raises
:class:`~referee.core.errors.ContentError` naming the file, the item and the field. This module
turns the files into frozen dataclasses. It is not the rules: how an effect resolves is the
business of :mod:`.keywords`; here an effect is only a validated name and its numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from referee.core.errors import ContentError
from referee.core.schema import schema_for, validate
from referee.games.superfantasybrawl.hexes import Hex, distance

COLOURS = ("red", "yellow", "blue")
"""The three cores of magic: Destruction, Creation, Manipulation."""
RELATIONS = ("towards", "away")
"""Seed-ja's "towards" and "away" (向かう/遠ざかる): a movement effect may name one, with an element.

The other vocabularies (card types, shapes, effect keywords, traits, challenge and trap kinds) are
the enums of the schemas in ``data/schema/``; ``tests/games/superfantasybrawl/test_content_schema.py``
checks that each effect keyword and challenge kind there has its handler."""
PLAYER_KEYWORDS = frozenset({"draw", "plan"})
"""Effect keywords whose subject is the card's player, not a champion: Draw X (seed-it "Pesca X:
pesca X carte", the player draws) and Plan X (cards from the player's hand onto the player's deck).
They resolve even when the champion they name was taken out of action earlier in the same card.
Every other keyword moves, damages, heals, roots or stuns a champion, and a champion on its Gate
"non può essere influenzato dagli effetti delle carte" (seed-it), so it does nothing there."""


@dataclass(frozen=True, slots=True)
class Effect:
    """One keyword effect of a card: ``kw`` applied to ``who`` with ``value``."""

    kw: str
    who: str
    value: int = 0
    range: int = 0
    near: str = ""
    relation: str = ""
    """``"towards"`` or ``"away"`` (seed-ja): the move must end nearer to / further from ``element``."""
    element: str = ""
    """What the move is towards or away from: ``"source"`` (the effect's champion) or ``"statue:<colour>"``."""


@dataclass(frozen=True, slots=True)
class AttackSpec:
    """The attack box of an attack card."""

    shape: str
    min_range: int
    max_range: int
    strength: int
    damage: int
    pattern: str = ""
    poison: int = 0
    lifesteal: bool = False
    double: bool = False
    bonus: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class TargetSpec:
    """Whom a skill may target."""

    kind: str
    min_range: int
    max_range: int
    row: bool = False


@dataclass(frozen=True, slots=True)
class Card:
    """One action card of a champion."""

    id: str
    name: str
    champion: str
    colour: str
    type: str
    move: int | None
    pre: tuple[Effect, ...] = ()
    attack: AttackSpec | None = None
    post: tuple[Effect, ...] = ()
    target: TargetSpec | None = None
    effects: tuple[Effect, ...] = ()
    defence: int = 0
    defence_turn: int = 0


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a champion card (basic or levelled up)."""

    hp: int
    defence: int
    move_bonus: int
    traits: frozenset[str]


@dataclass(frozen=True, slots=True)
class Champion:
    """A champion: two sides and six cards."""

    id: str
    name: str
    basic: Side
    levelled: Side
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Arena:
    """The board: cells, statues with coloured zones, trap hexes and two deployment areas."""

    id: str
    name: str
    cells: frozenset[Hex]
    statues: dict[str, Hex]
    zones: dict[str, frozenset[Hex]]
    trap_hexes: tuple[Hex, ...]
    deployment: tuple[tuple[Hex, ...], tuple[Hex, ...]]

    @property
    def statue_hexes(self) -> frozenset[Hex]:
        """Every hex holding a statue."""
        return frozenset(self.statues.values())


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge card: a named condition with parameters."""

    id: str
    name: str
    kind: str
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Track:
    """The challenge track for a number of seats: slot values, slots moved per advance, cards at set-up."""

    slots: tuple[int, ...]
    advance: int
    setup: int


@dataclass(frozen=True, slots=True)
class Content:
    """Everything loaded from ``data/``."""

    arena: Arena
    champions: dict[str, Champion]
    cards: dict[str, Card]
    patterns: dict[str, tuple[Hex, ...]]
    challenges: dict[str, Challenge]
    tracks: dict[int, Track]
    trap_tokens: tuple[tuple[str, int], ...]
    traps_on_board: int


FILES = ("map.json", "champions.json", "challenges.json", "traps.json")
"""The content files, each validated by its schema in ``data/schema/``."""


def _hex(value: list[int]) -> Hex:
    return (value[0], value[1])


def parse_arena(raw: Any) -> Arena:
    """Builds the arena from the map file that its schema has validated.

    Raises:
        ContentError: a hex is off the board or in the wrong place; the message names it.
    """
    where = "map.json"
    radius = raw["radius"]
    cells = frozenset(
        (q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if distance((q, r), (0, 0)) <= radius
    )
    statues: dict[str, Hex] = {}
    for i, s in enumerate(raw["statues"]):
        h = _hex(s["hex"])
        if h not in cells:
            raise ContentError(f"{where}.statues[{i}]: hex {h} is off the board")
        statues[s["colour"]] = h
    if sorted(statues) != sorted(COLOURS):
        raise ContentError(f"{where}.statues: need exactly one statue per colour {list(COLOURS)!r}")
    zones = {colour: frozenset(_hex(h) for h in raw["zones"][colour]) for colour in COLOURS}
    trap_hexes = tuple(_hex(h) for h in raw["trap_hexes"])
    areas = tuple(tuple(_hex(h) for h in area) for area in raw["deployment"])
    blocked = set(statues.values())
    for h in [*trap_hexes, *(h for a in areas for h in a), *(h for z in zones.values() for h in z)]:
        if h not in cells:
            raise ContentError(f"{where}: hex {h} is off the board")
    for h in [*trap_hexes, *(h for a in areas for h in a)]:
        if h in blocked:
            raise ContentError(f"{where}: hex {h} is a statue and cannot be a trap or deployment hex")
    if set(trap_hexes) & {h for a in areas for h in a}:
        raise ContentError(f"{where}: a trap hex lies in a deployment area")
    return Arena(
        id=raw["id"],
        name=raw["name"],
        cells=cells,
        statues=statues,
        zones=zones,
        trap_hexes=trap_hexes,
        deployment=(areas[0], areas[1]),
    )


def _effects(raw: list[dict[str, Any]]) -> tuple[Effect, ...]:
    out = []
    for e in raw:
        relation = next((rel for rel in RELATIONS if rel in e), "")
        out.append(
            Effect(
                e["kw"],
                e["who"],
                e.get("value", 0),
                e.get("range", 0),
                e.get("near", ""),
                relation,
                e[relation] if relation else "",
            )
        )
    return tuple(out)


def _card(raw: dict[str, Any], champion: str, patterns: dict[str, tuple[Hex, ...]], where: str) -> Card:
    where = f"{where}({raw['id']})"
    card = Card(
        id=raw["id"], name=raw["name"], champion=champion, colour=raw["colour"], type=raw["type"], move=raw.get("move")
    )
    if card.type == "attack":
        a = raw["attack"]
        lo, hi = a["range"]
        if lo > hi:
            raise ContentError(f"{where}.attack.range: range {a['range']!r} must have min <= max")
        pattern = a.get("pattern", "")
        if a["shape"] == "aoe" and pattern not in patterns:
            raise ContentError(f"{where}.attack.pattern: {pattern!r} is not a known AoE pattern {sorted(patterns)!r}")
        spec = AttackSpec(
            a["shape"],
            lo,
            hi,
            a.get("strength", 0),
            a.get("damage", 0),
            pattern,
            a.get("poison", 0),
            a.get("lifesteal", False),
            a.get("double", False),
            tuple((b["if"], b.get("strength", 0)) for b in a.get("bonus", [])),
        )
        return Card(
            **{
                **_fields(card),
                "attack": spec,
                "pre": _effects(raw.get("pre", [])),
                "post": _effects(raw.get("post", [])),
            }
        )
    if card.type == "skill":
        t = raw["target"]
        lo, hi = t.get("range", [0, 0])
        if lo > hi:
            raise ContentError(f"{where}.target.range: range {t['range']!r} must have min <= max")
        effects = _effects(raw["effects"])
        if t["kind"] == "none" and any(e.who == "target" for e in effects):
            raise ContentError(f"{where}: a skill without a target cannot have 'target' effects")
        return Card(
            **{**_fields(card), "target": TargetSpec(t["kind"], lo, hi, t.get("row", False)), "effects": effects}
        )
    r = raw["reaction"]
    return Card(
        **{
            **_fields(card),
            "effects": _effects(raw.get("effects", [])),
            "defence": r.get("defence", 0),
            "defence_turn": r.get("defence_turn", 0),
        }
    )


def _fields(card: Card) -> dict[str, Any]:
    return {name: getattr(card, name) for name in Card.__slots__}


def _side(raw: dict[str, Any]) -> Side:
    return Side(raw["hp"], raw["defence"], raw.get("move_bonus", 0), frozenset(raw.get("traits", [])))


def parse_champions(raw: Any) -> tuple[dict[str, Champion], dict[str, Card], dict[str, tuple[Hex, ...]]]:
    """Builds the roster from the champions file that its schema has validated.

    Raises:
        ContentError: an id is duplicated or a card names an unknown pattern; the message names it.
    """
    where = "champions.json"
    patterns = {name: tuple(_hex(h) for h in offs) for name, offs in raw["patterns"].items()}
    champions: dict[str, Champion] = {}
    cards: dict[str, Card] = {}
    for i, c in enumerate(raw["champions"]):
        cw = f"{where}.champions[{i}]"
        cid = c["id"]
        if cid in champions:
            raise ContentError(f"{cw}: duplicate champion id {cid!r}")
        ids = []
        for j, rc in enumerate(c["cards"]):
            card = _card(rc, cid, patterns, f"{cw}.cards[{j}]")
            if card.id in cards:
                raise ContentError(f"{cw}.cards[{j}]: duplicate card id {card.id!r}")
            cards[card.id] = card
            ids.append(card.id)
        champions[cid] = Champion(cid, c["name"], _side(c["basic"]), _side(c["levelled"]), tuple(ids))
    return champions, cards, patterns


def parse_challenges(raw: Any, arena: Arena) -> tuple[dict[str, Challenge], dict[int, Track]]:
    """Builds the challenge cards and track layouts from the file that its schema has validated.

    Raises:
        ContentError: a challenge names a statue the arena lacks, or a track's advance or set-up
            does not fit its slots.
    """
    where = "challenges.json"
    out: dict[str, Challenge] = {}
    for i, c in enumerate(raw["cards"]):
        w = f"{where}.cards[{i}]"
        cond = c["condition"]
        params = {k: v for k, v in cond.items() if k != "kind"}
        for key in ("zone", "statue"):
            if key in params and params[key] not in arena.statues:
                raise ContentError(f"{w}.condition.{key}: {params[key]!r} is not a statue colour")
        out[c["id"]] = Challenge(c["id"], c["name"], cond["kind"], params)
    tracks: dict[int, Track] = {}
    for seats, t in raw["track"].items():
        slots = tuple(t["slots"])
        if t["advance"] > len(slots) or t["setup"] > len(slots):
            raise ContentError(f"{where}.track.{seats}: advance and setup must fit the {len(slots)} slots")
        tracks[int(seats)] = Track(slots, t["advance"], t["setup"])
    return out, tracks


def parse_traps(raw: Any) -> tuple[tuple[tuple[str, int], ...], int]:
    """Builds the trap token mix from the file that its schema has validated.

    Raises:
        ContentError: there is no spare token beyond those on the board.
    """
    tokens: list[tuple[str, int]] = []
    for t in raw["tokens"]:
        tokens += [(t["kind"], t.get("value", 0))] * t["count"]
    on_board = raw["on_board"]
    if len(tokens) < on_board + 1:
        raise ContentError(f"traps.json: {len(tokens)} tokens leave no spare beyond the {on_board} on the board")
    return tuple(tokens), on_board


def build_content(files: dict[str, Any]) -> Content:
    """Builds the content from parsed JSON documents keyed by file name.

    Raises:
        ContentError: a file is missing or invalid.
    """
    for name in FILES:
        if name not in files:
            raise ContentError(f"missing content file {name!r}")
        validate(files[name], schema_for(__package__ or "referee.games.superfantasybrawl", name), name)
    arena = parse_arena(files["map.json"])
    champions, cards, patterns = parse_champions(files["champions.json"])
    challenges, tracks = parse_challenges(files["challenges.json"], arena)
    tokens, on_board = parse_traps(files["traps.json"])
    return Content(arena, champions, cards, patterns, challenges, tracks, tokens, on_board)


def load_default() -> Content:
    """Reads and validates the content shipped in the package's ``data`` folder.

    Raises:
        ContentError: a file is invalid JSON or invalid content.
    """
    base = resources.files("referee.games.superfantasybrawl").joinpath("data")
    files: dict[str, Any] = {}
    for name in FILES:
        try:
            files[name] = json.loads(base.joinpath(name).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ContentError(f"{name}: not valid JSON: {exc}") from exc
    return build_content(files)
