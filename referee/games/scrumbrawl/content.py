"""ScrumBrawl content: creatures, enchantments, events, Alter Reality cards, orbs and the deck list.

Content is data (``data/*.json``), read once at import through :mod:`importlib.resources` and
validated here; a malformed file raises :class:`~referee.core.errors.ContentError` naming the entry
and the field. This module knows no rules: it only describes cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from referee.core.errors import ContentError

COLORS = ("red", "blue", "green", "orange", "purple")
KEYWORDS = frozenset({"flying", "strong", "weak", "adept", "resistant", "noncarrier", "aggressive", "venom"})
HOOKS = frozenset(
    {
        "magic_aura_mage",
        "magic_chaos_mage",
        "magic_transmuter",
        "magic_stump",
        "basilisk_gaze",
        "chicken_peck",
        "druid_save",
        "gargoyle_stone",
        "human_line_of_sight",
        "leprechaun_luck",
        "imp_kills_enchanted",
        "imp_storm",
        "stump_chaos",
        "minotaur_charge",
        "mordrock_extra_turn",
        "necromancer_raise",
        "nork_explodes",
        "phoenix_rebirth",
        "revenant",
        "troll_regenerate",
    }
)
EVENT_EFFECTS = frozenset(
    {
        "chaos",
        "dispel",
        "earthquake",
        "fissure",
        "fumble",
        "gypsy_bazaar",
        "hailstorm",
        "lightning_storm",
        "orbstorm",
        "sacrifice",
    }
)
STATS = ("T", "C", "R", "M", "A", "D")


@dataclass(frozen=True, slots=True)
class Bonus:
    """A conditional combat bonus: ``+value`` to ``stat`` against the named colours or creatures."""

    stat: str
    value: int
    vs_colors: tuple[str, ...]
    vs_names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CreatureSpec:
    """One creature card of the Bestiary (section 2.1). ``None`` stats are the card's dash."""

    name: str
    color: str
    T: int | None
    C: int | None
    R: int | None
    M: int | None
    attacks: int
    """Fixed number of attacks; 0 when ``variable_attacks`` decides."""
    A: int
    D: int
    keywords: frozenset[str]
    range_attack: int
    bonuses: tuple[Bonus, ...]
    hooks: frozenset[str]
    text: str
    variable_attacks: tuple[tuple[int, int, int], ...] = ()
    """``(low, high, attacks)`` rows of the d8 table (Demoness, Hydra)."""
    ground_only_range: bool = False
    """The Magic Stump's root attack hits non-flying creatures only."""


@dataclass(frozen=True, slots=True)
class EnchantmentSpec:
    """A creature or team enchantment (section 2.2)."""

    name: str
    scope: str
    mods: dict[str, int]
    grants: frozenset[str]
    text: str


@dataclass(frozen=True, slots=True)
class EventSpec:
    """An event card (section 2.3). ``effects`` has one entry, or 8 for a d8 multi-option card."""

    name: str
    timing: str
    effects: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class OrbSpec:
    """An orb (section 2.4)."""

    name: str
    mods: dict[str, int]
    text: str


@dataclass(frozen=True, slots=True)
class Content:
    """Everything the deck, the orb deck and the Arena are made of."""

    creatures: dict[str, CreatureSpec]
    enchantments: dict[str, EnchantmentSpec]
    events: dict[str, EventSpec]
    alter_reality: dict[str, int]
    """Card name (``"Alter Reality 3"``) to its value."""
    orbs: dict[str, OrbSpec]
    deck: dict[str, int] = field(default_factory=dict)
    """Copies per non-creature card name; every creature is one copy."""

    def card_type(self, name: str) -> str:
        """Returns ``creature``, ``enchantment``, ``event`` or ``alter_reality`` for a card name.

        Raises:
            ContentError: no card has that name.
        """
        if name in self.creatures:
            return "creature"
        if name in self.enchantments:
            return "enchantment"
        if name in self.events:
            return "event"
        if name in self.alter_reality:
            return "alter_reality"
        raise ContentError(f"unknown card name {name!r}")

    def deck_list(self) -> list[str]:
        """Returns the full deck as card names, creatures first, in a fixed order."""
        names = list(self.creatures)
        for name, n in self.deck.items():
            names.extend([name] * n)
        return names


def _need(entry: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in entry:
        raise ContentError(f"{where}: missing field {key!r}")
    value = entry[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ContentError(f"{where}: field {key!r} has the wrong type: {value!r}")
    return value


def _stat(entry: dict[str, Any], key: str, where: str) -> int | None:
    value = entry.get(key, "missing")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 20:
        raise ContentError(f"{where}: stat {key!r} must be an integer 0..20 or null, got {value!r}")
    return value


def parse_creature(entry: dict[str, Any]) -> CreatureSpec:
    """Validates one creature entry.

    Raises:
        ContentError: a field is missing, of the wrong type, or names an unknown keyword or hook.
    """
    name = _need(entry, "name", str, "creature")
    where = f"creature {name!r}"
    color = _need(entry, "color", str, where)
    if color not in COLORS:
        raise ContentError(f"{where}: colour {color!r} is not one of {COLORS!r}")
    keywords = frozenset(_need(entry, "keywords", list, where))
    if not keywords <= KEYWORDS:
        raise ContentError(f"{where}: unknown keywords {sorted(keywords - KEYWORDS)!r}")
    hooks = frozenset(_need(entry, "hooks", list, where))
    if not hooks <= HOOKS:
        raise ContentError(f"{where}: unknown hooks {sorted(hooks - HOOKS)!r}")
    bonuses = []
    for raw in _need(entry, "bonuses", list, where):
        if raw.get("stat") not in ("A", "D") or not isinstance(raw.get("value"), int):
            raise ContentError(f"{where}: malformed bonus {raw!r}")
        bonuses.append(Bonus(raw["stat"], raw["value"], tuple(raw["vs_colors"]), tuple(raw["vs_names"])))
    variable = tuple(tuple(row) for row in entry.get("variable_attacks", []))
    attacks = _need(entry, "attacks", int, where)
    if attacks == 0 and not variable:
        raise ContentError(f"{where}: 0 attacks needs a variable_attacks table")
    if variable and sorted(v for row in variable for v in range(row[0], row[1] + 1)) != list(range(1, 9)):
        raise ContentError(f"{where}: variable_attacks must cover 1..8 exactly, got {variable!r}")
    return CreatureSpec(
        name=name,
        color=color,
        T=_stat(entry, "T", where),
        C=_stat(entry, "C", where),
        R=_stat(entry, "R", where),
        M=_stat(entry, "M", where),
        attacks=attacks,
        A=_need(entry, "A", int, where),
        D=_need(entry, "D", int, where),
        keywords=keywords,
        range_attack=_need(entry, "range_attack", int, where),
        bonuses=tuple(bonuses),
        hooks=hooks,
        text=_need(entry, "text", str, where),
        variable_attacks=variable,
        ground_only_range=bool(entry.get("ground_only_range", False)),
    )


def _mods(raw: Any, where: str) -> dict[str, int]:
    if not isinstance(raw, dict) or not set(raw) <= set(STATS) or not all(isinstance(v, int) for v in raw.values()):
        raise ContentError(f"{where}: mods must map stats {STATS!r} to integers, got {raw!r}")
    return dict(raw)


def parse_content(creatures: Any, cards: Any, orbs: Any) -> Content:
    """Validates the three content documents and returns the content.

    Raises:
        ContentError: anything is malformed; the message names the entry and field.
    """
    try:
        cre = {c.name: c for c in (parse_creature(e) for e in creatures["creatures"])}
        if len(cre) != len(creatures["creatures"]):
            raise ContentError("creatures: duplicate names")
        ench = {}
        for e in cards["enchantments"]:
            where = f"enchantment {e.get('name')!r}"
            scope = _need(e, "scope", str, where)
            if scope not in ("creature", "team"):
                raise ContentError(f"{where}: scope must be creature or team, got {scope!r}")
            ench[e["name"]] = EnchantmentSpec(
                e["name"], scope, _mods(e["mods"], where), frozenset(_need(e, "grants", list, where)), e["text"]
            )
        events = {}
        for e in cards["events"]:
            where = f"event {e.get('name')!r}"
            effects = tuple(_need(e, "effects", list, where))
            if len(effects) not in (1, 8) or not set(effects) <= EVENT_EFFECTS:
                raise ContentError(f"{where}: effects must be 1 or 8 known effects, got {effects!r}")
            timing = _need(e, "timing", str, where)
            if timing not in ("instant", "played"):
                raise ContentError(f"{where}: timing must be instant or played, got {timing!r}")
            events[e["name"]] = EventSpec(e["name"], timing, effects, e["text"])
        alter = {f"Alter Reality {v}": int(v) for v in cards["alter_reality"]}
        orb_specs = {
            o["name"]: OrbSpec(o["name"], _mods(o["mods"], f"orb {o['name']!r}"), o["text"]) for o in orbs["orbs"]
        }
        if len(orb_specs) != 8:
            raise ContentError(f"orbs: expected 8 orbs, got {len(orb_specs)}")
        deck = dict(cards["deck"])
        if deck.pop("creatures", 1) != 1:
            raise ContentError("deck: every creature is exactly one copy")
    except (KeyError, TypeError, AttributeError) as exc:
        raise ContentError(f"malformed content: {exc!r}") from exc
    content = Content(cre, ench, events, alter, orb_specs, deck)
    for name, n in deck.items():
        if content.card_type(name) == "creature" or not isinstance(n, int) or n < 0:
            raise ContentError(f"deck: bad entry {name!r}: {n!r}")
    return content


def load_content() -> Content:
    """Reads and validates the packaged content files.

    Raises:
        ContentError: a file is missing, not JSON, or malformed.
    """
    base = resources.files("referee.games.scrumbrawl") / "data"
    docs = []
    for fname in ("creatures.json", "cards.json", "orbs.json"):
        try:
            docs.append(json.loads((base / fname).read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise ContentError(f"cannot read content file {fname}: {exc}") from exc
    return parse_content(*docs)


CONTENT = load_content()
"""The packaged content, validated once at import."""
