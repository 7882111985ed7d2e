"""Content of the game as data: the arena, the champions and their cards, challenges, traps.

Content lives in JSON files under ``data/`` and is validated when loaded; every problem raises
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
from referee.games.superfantasybrawl.hexes import Hex, distance

COLOURS = ("red", "yellow", "blue")
"""The three cores of magic: Destruction, Creation, Manipulation."""
CARD_TYPES = ("attack", "skill", "reaction")
SHAPES = ("melee", "direct", "indirect", "aoe")
EFFECT_KEYWORDS = (
    "damage",
    "dash",
    "draw",
    "fear",
    "force",
    "heal",
    "jump",
    "place",
    "plan",
    "pull",
    "push",
    "root",
    "stun",
    "swoop",
)
"""Keywords an effect entry may name; each has a handler registered in :mod:`.keywords`."""
EFFECT_WHO = ("self", "target", "attacker")
RELATIONS = ("towards", "away")
"""Seed-ja's "towards" and "away" (向かう/遠ざかる): a movement effect may name one, with an element."""
RELATIVE_KEYWORDS = ("dash", "swoop", "jump", "force")
"""The movement keywords that may be made "towards" or "away from" an element."""
TARGET_KINDS = ("none", "ally", "enemy", "self_or_ally")
CONDITIONS = ("target_bloodied", "self_bloodied", "target_rooted")
TRAITS = ("guardian", "long_reach", "pierce", "steadfast", "strength_bonus", "unstunnable")
CHALLENGE_KINDS = (
    "control_zone",
    "adjacent_statue",
    "control_zones",
    "enemy_half",
    "bloodied_enemies",
    "enemy_on_gate",
    "control_row",
)
TRAP_KINDS = ("damage", "root", "stun")


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


def _req(obj: Any, key: str, typ: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict):
        raise ContentError(f"{where}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise ContentError(f"{where}: missing field {key!r}")
    value = obj[key]
    if isinstance(value, bool) and typ is int:
        raise ContentError(f"{where}.{key}: expected int, got bool")
    if not isinstance(value, typ):
        raise ContentError(f"{where}.{key}: expected {typ}, got {value!r}")
    return value


def _hex(value: Any, where: str) -> Hex:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)):
        raise ContentError(f"{where}: a hex is [q, r], got {value!r}")
    return (value[0], value[1])


def _range(value: Any, where: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)):
        raise ContentError(f"{where}: a range is [min, max], got {value!r}")
    lo, hi = value
    if not 0 <= lo <= hi:
        raise ContentError(f"{where}: range {value!r} must have 0 <= min <= max")
    return (lo, hi)


def _choice(value: Any, allowed: tuple[str, ...], where: str) -> str:
    if value not in allowed:
        raise ContentError(f"{where}: {value!r} is not one of {list(allowed)!r}")
    return str(value)


def parse_arena(raw: Any) -> Arena:
    """Validates the map file.

    Raises:
        ContentError: a field is missing or out of place; the message names it.
    """
    where = "map.json"
    radius = _req(raw, "radius", int, where)
    if radius < 2:
        raise ContentError(f"{where}.radius must be at least 2, got {radius}")
    cells = frozenset(
        (q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if distance((q, r), (0, 0)) <= radius
    )
    statues: dict[str, Hex] = {}
    for i, s in enumerate(_req(raw, "statues", list, where)):
        colour = _choice(_req(s, "colour", str, f"{where}.statues[{i}]"), COLOURS, f"{where}.statues[{i}].colour")
        h = _hex(s.get("hex"), f"{where}.statues[{i}].hex")
        if h not in cells:
            raise ContentError(f"{where}.statues[{i}]: hex {h} is off the board")
        statues[colour] = h
    if sorted(statues) != sorted(COLOURS):
        raise ContentError(f"{where}.statues: need exactly one statue per colour {list(COLOURS)!r}")
    zones_raw = _req(raw, "zones", dict, where)
    zones: dict[str, frozenset[Hex]] = {}
    for colour in COLOURS:
        hexes = [_hex(h, f"{where}.zones.{colour}") for h in zones_raw.get(colour, [])]
        if not hexes:
            raise ContentError(f"{where}.zones: colour {colour!r} has no zone")
        zones[colour] = frozenset(hexes)
    trap_hexes = tuple(_hex(h, f"{where}.trap_hexes") for h in _req(raw, "trap_hexes", list, where))
    deployment = _req(raw, "deployment", list, where)
    if len(deployment) != 2:
        raise ContentError(f"{where}.deployment: need exactly two deployment areas")
    areas = tuple(tuple(_hex(h, f"{where}.deployment[{i}]") for h in area) for i, area in enumerate(deployment))
    blocked = set(statues.values())
    for h in [*trap_hexes, *(h for a in areas for h in a), *(h for z in zones.values() for h in z)]:
        if h not in cells:
            raise ContentError(f"{where}: hex {h} is off the board")
    for h in [*trap_hexes, *(h for a in areas for h in a)]:
        if h in blocked:
            raise ContentError(f"{where}: hex {h} is a statue and cannot be a trap or deployment hex")
    if len(set(trap_hexes)) != 6:
        raise ContentError(f"{where}.trap_hexes: need 6 distinct trap hexes, got {len(set(trap_hexes))}")
    if set(trap_hexes) & {h for a in areas for h in a}:
        raise ContentError(f"{where}: a trap hex lies in a deployment area")
    for i, a in enumerate(areas):
        if len(set(a)) < 4:
            raise ContentError(f"{where}.deployment[{i}]: needs at least 4 hexes (4 champions in team play)")
    return Arena(
        id=_req(raw, "id", str, where),
        name=_req(raw, "name", str, where),
        cells=cells,
        statues=statues,
        zones=zones,
        trap_hexes=trap_hexes,
        deployment=(areas[0], areas[1]),
    )


def _effects(raw: Any, where: str) -> tuple[Effect, ...]:
    if not isinstance(raw, list):
        raise ContentError(f"{where}: expected a list of effects")
    out = []
    for i, e in enumerate(raw):
        w = f"{where}[{i}]"
        kw = _choice(_req(e, "kw", str, w), EFFECT_KEYWORDS, f"{w}.kw")
        who = _choice(_req(e, "who", str, w), EFFECT_WHO, f"{w}.who")
        value = e.get("value", 0)
        if not isinstance(value, int) or value < 0:
            raise ContentError(f"{w}.value must be a non-negative int, got {value!r}")
        rng = e.get("range", 0)
        near = e.get("near", "")
        if kw == "place" and not (rng or near):
            raise ContentError(f"{w}: a place effect needs 'range' or 'near'")
        if near not in ("", "self"):
            raise ContentError(f"{w}.near must be 'self' if given, got {near!r}")
        relation, element = "", ""
        for rel in RELATIONS:
            if rel in e:
                if relation:
                    raise ContentError(f"{w}: an effect may be towards or away, not both")
                relation, element = rel, e[rel]
        if relation:
            if kw not in RELATIVE_KEYWORDS:
                raise ContentError(f"{w}.{relation}: only {list(RELATIVE_KEYWORDS)} may move {relation}, not {kw!r}")
            statues = tuple(f"statue:{c}" for c in COLOURS)
            if element not in ("source", *statues):
                raise ContentError(f"{w}.{relation} must be 'source' or one of {list(statues)}, got {element!r}")
            if element == "source" and who == "self":
                raise ContentError(f"{w}.{relation}: 'source' is the champion itself when who is 'self'")
        out.append(Effect(kw, who, value, int(rng), str(near), relation, str(element)))
    return tuple(out)


def _card(raw: Any, champion: str, patterns: dict[str, tuple[Hex, ...]], where: str) -> Card:
    cid = _req(raw, "id", str, where)
    where = f"{where}({cid})"
    colour = _choice(_req(raw, "colour", str, where), COLOURS, f"{where}.colour")
    ctype = _choice(_req(raw, "type", str, where), CARD_TYPES, f"{where}.type")
    move = raw.get("move")
    if move is not None and (not isinstance(move, int) or move < 0):
        raise ContentError(f"{where}.move must be null or a non-negative int, got {move!r}")
    card = Card(id=cid, name=_req(raw, "name", str, where), champion=champion, colour=colour, type=ctype, move=move)
    if ctype == "attack":
        a = _req(raw, "attack", dict, where)
        shape = _choice(_req(a, "shape", str, f"{where}.attack"), SHAPES, f"{where}.attack.shape")
        lo, hi = _range(a.get("range"), f"{where}.attack.range")
        if lo < 1:
            raise ContentError(f"{where}.attack.range: the minimum range of an attack is at least 1")
        pattern = a.get("pattern", "")
        if shape == "aoe" and pattern not in patterns:
            raise ContentError(f"{where}.attack.pattern: {pattern!r} is not a known AoE pattern {sorted(patterns)!r}")
        bonus = []
        for b in a.get("bonus", []):
            bonus.append((_choice(b.get("if"), CONDITIONS, f"{where}.attack.bonus.if"), int(b.get("strength", 0))))
        spec = AttackSpec(
            shape,
            lo,
            hi,
            int(a.get("strength", 0)),
            int(a.get("damage", 0)),
            pattern,
            int(a.get("poison", 0)),
            bool(a.get("lifesteal", False)),
            bool(a.get("double", False)),
            tuple(bonus),
        )
        if spec.strength <= 0 and spec.damage <= 0:
            raise ContentError(f"{where}.attack: needs a positive strength or damage")
        return Card(
            **{
                **_fields(card),
                "attack": spec,
                "pre": _effects(raw.get("pre", []), f"{where}.pre"),
                "post": _effects(raw.get("post", []), f"{where}.post"),
            }
        )
    if ctype == "skill":
        t = _req(raw, "target", dict, where)
        kind = _choice(_req(t, "kind", str, f"{where}.target"), TARGET_KINDS, f"{where}.target.kind")
        lo, hi = _range(t.get("range", [0, 0]), f"{where}.target.range")
        effects = _effects(_req(raw, "effects", list, where), f"{where}.effects")
        if kind == "none" and any(e.who == "target" for e in effects):
            raise ContentError(f"{where}: a skill without a target cannot have 'target' effects")
        return Card(
            **{**_fields(card), "target": TargetSpec(kind, lo, hi, bool(t.get("row", False))), "effects": effects}
        )
    r = _req(raw, "reaction", dict, where)
    effects = _effects(raw.get("effects", []), f"{where}.effects")
    if any(e.who == "target" for e in effects):
        raise ContentError(f"{where}: reaction effects name 'self' or 'attacker', not 'target'")
    if card.move is not None:
        raise ContentError(f"{where}: a reaction has no movement")
    return Card(
        **{
            **_fields(card),
            "effects": effects,
            "defence": int(r.get("defence", 0)),
            "defence_turn": int(r.get("defence_turn", 0)),
        }
    )


def _fields(card: Card) -> dict[str, Any]:
    return {name: getattr(card, name) for name in Card.__slots__}


def _side(raw: Any, where: str) -> Side:
    hp = _req(raw, "hp", int, where)
    defence = _req(raw, "defence", int, where)
    if not 1 <= hp <= 12 or not 0 <= defence <= 3:
        raise ContentError(f"{where}: hp must be 1..12 and defence 0..3, got {hp}, {defence}")
    traits = frozenset(_choice(t, TRAITS, f"{where}.traits") for t in raw.get("traits", []))
    return Side(hp, defence, int(raw.get("move_bonus", 0)), traits)


def parse_champions(raw: Any) -> tuple[dict[str, Champion], dict[str, Card], dict[str, tuple[Hex, ...]]]:
    """Validates the champions file.

    Raises:
        ContentError: a champion or card is malformed; the message names it and the field.
    """
    where = "champions.json"
    patterns = {
        name: tuple(_hex(h, f"{where}.patterns.{name}") for h in offs)
        for name, offs in _req(raw, "patterns", dict, where).items()
    }
    champions: dict[str, Champion] = {}
    cards: dict[str, Card] = {}
    for i, c in enumerate(_req(raw, "champions", list, where)):
        cw = f"{where}.champions[{i}]"
        cid = _req(c, "id", str, cw)
        if cid in champions:
            raise ContentError(f"{cw}: duplicate champion id {cid!r}")
        card_list = _req(c, "cards", list, cw)
        if len(card_list) != 6:
            raise ContentError(f"{cw}({cid}): a champion has exactly 6 cards, got {len(card_list)}")
        ids = []
        for j, rc in enumerate(card_list):
            card = _card(rc, cid, patterns, f"{cw}.cards[{j}]")
            if card.id in cards:
                raise ContentError(f"{cw}.cards[{j}]: duplicate card id {card.id!r}")
            cards[card.id] = card
            ids.append(card.id)
        champions[cid] = Champion(
            cid,
            _req(c, "name", str, cw),
            _side(_req(c, "basic", dict, cw), f"{cw}.basic"),
            _side(_req(c, "levelled", dict, cw), f"{cw}.levelled"),
            tuple(ids),
        )
    if len(champions) < 6:
        raise ContentError(f"{where}: need at least 6 champions for a draft, got {len(champions)}")
    return champions, cards, patterns


def parse_challenges(raw: Any, arena: Arena) -> tuple[dict[str, Challenge], dict[int, Track]]:
    """Validates the challenges file (cards and track layouts).

    Raises:
        ContentError: a challenge or the track is malformed.
    """
    where = "challenges.json"
    out: dict[str, Challenge] = {}
    for i, c in enumerate(_req(raw, "cards", list, where)):
        w = f"{where}.cards[{i}]"
        cid = _req(c, "id", str, w)
        cond = _req(c, "condition", dict, w)
        kind = _choice(cond.get("kind"), CHALLENGE_KINDS, f"{w}.condition.kind")
        params = {k: v for k, v in cond.items() if k != "kind"}
        for key in ("zone", "statue"):
            if key in params and params[key] not in arena.statues:
                raise ContentError(f"{w}.condition.{key}: {params[key]!r} is not a statue colour")
        out[cid] = Challenge(cid, _req(c, "name", str, w), kind, params)
    tracks: dict[int, Track] = {}
    for seats, t in _req(raw, "track", dict, where).items():
        w = f"{where}.track.{seats}"
        slots = tuple(_req(t, "slots", list, w))
        advance = _req(t, "advance", int, w)
        setup = _req(t, "setup", int, w)
        if not slots or slots[0] != 0 or not 1 <= advance <= len(slots) or not 1 <= setup <= len(slots):
            raise ContentError(f"{w}: the first slot is worth 0 and advance/setup fit the slots")
        tracks[int(seats)] = Track(tuple(int(s) for s in slots), advance, setup)
    if len(out) < 4:
        raise ContentError(f"{where}: need at least 4 challenge cards, got {len(out)}")
    return out, tracks


def parse_traps(raw: Any) -> tuple[tuple[tuple[str, int], ...], int]:
    """Validates the trap token mix.

    Raises:
        ContentError: a token kind or count is malformed.
    """
    where = "traps.json"
    tokens: list[tuple[str, int]] = []
    for i, t in enumerate(_req(raw, "tokens", list, where)):
        w = f"{where}.tokens[{i}]"
        kind = _choice(t.get("kind"), TRAP_KINDS, f"{w}.kind")
        count = _req(t, "count", int, w)
        value = int(t.get("value", 0))
        if kind == "damage" and value < 1:
            raise ContentError(f"{w}: a damage trap needs a value of at least 1")
        tokens += [(kind, value)] * count
    on_board = _req(raw, "on_board", int, where)
    if not 1 <= on_board <= 5 or len(tokens) < on_board + 1:
        raise ContentError(f"{where}: on_board must be 1..5 with at least one spare token")
    return tuple(tokens), on_board


def build_content(files: dict[str, Any]) -> Content:
    """Builds the content from parsed JSON documents keyed by file name.

    Raises:
        ContentError: a file is missing or invalid.
    """
    for name in ("map.json", "champions.json", "challenges.json", "traps.json"):
        if name not in files:
            raise ContentError(f"missing content file {name!r}")
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
    for name in ("map.json", "champions.json", "challenges.json", "traps.json"):
        try:
            files[name] = json.loads(base.joinpath(name).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ContentError(f"{name}: not valid JSON: {exc}") from exc
    return build_content(files)
