"""ScrumBrawl content: creatures, enchantments, events, Alter Reality cards, orbs and the deck list.

Content is data (``data/*.json``), read once at import through :mod:`importlib.resources` and
validated against its JSON Schema (``data/schema/*.schema.json``, with :mod:`referee.core.schema`);
what a schema cannot say (unique names, a d8 table covering 1..8, the deck naming known cards) is
checked here. A malformed file raises :class:`~referee.core.errors.ContentError` naming the file,
the path to the value and the rule. This module knows no rules of play: it only describes cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from referee.core.errors import ContentError
from referee.core.schema import schema_for, validate

COLORS = ("red", "blue", "green", "orange", "purple")
STATS = ("T", "C", "R", "M", "A", "D")
FILES = ("creatures.json", "cards.json", "orbs.json")
"""The content files, each validated by its schema in ``data/schema/``."""


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
    simple_rules_removed: bool = False
    """The Simple Rules variant takes the creature out of the deck (section 1.8)."""


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
    hooks: frozenset[str] = frozenset()
    """Its effects, each a hook registered at some hook point (``hooks.py``)."""


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


def parse_creature(entry: dict[str, Any]) -> CreatureSpec:
    """Builds one creature entry that its schema has validated.

    Raises:
        ContentError: its d8 table of attacks does not cover 1..8 exactly.
    """
    name = entry["name"]
    variable = tuple(tuple(row) for row in entry.get("variable_attacks", []))
    if variable and sorted(v for row in variable for v in range(row[0], row[1] + 1)) != list(range(1, 9)):
        raise ContentError(
            f"creatures.json: creature {name!r}: variable_attacks must cover 1..8 exactly, got {variable!r}"
        )
    return CreatureSpec(
        name=name,
        color=entry["color"],
        T=entry["T"],
        C=entry["C"],
        R=entry["R"],
        M=entry["M"],
        attacks=entry["attacks"],
        A=entry["A"],
        D=entry["D"],
        keywords=frozenset(entry["keywords"]),
        range_attack=entry["range_attack"],
        bonuses=tuple(
            Bonus(b["stat"], b["value"], tuple(b["vs_colors"]), tuple(b["vs_names"])) for b in entry["bonuses"]
        ),
        hooks=frozenset(entry["hooks"]),
        text=entry["text"],
        variable_attacks=variable,
        ground_only_range=bool(entry.get("ground_only_range", False)),
        simple_rules_removed=bool(entry.get("simple_rules_removed", False)),
    )


def _unique(names: list[str], file: str, what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ContentError(f"{file}: duplicate {what} name {name!r}")
        seen.add(name)


def parse_content(creatures: Any, cards: Any, orbs: Any) -> Content:
    """Validates the three content documents against their schemas and returns the content.

    Raises:
        ContentError: anything is malformed; the message names the file, the path and the rule.
    """
    for file, doc in zip(FILES, (creatures, cards, orbs), strict=True):
        validate(doc, schema_for(__package__ or "referee.games.scrumbrawl", file), file)
    _unique([c["name"] for c in creatures["creatures"]], "creatures.json", "creature")
    _unique([e["name"] for e in cards["enchantments"] + cards["events"]], "cards.json", "card")
    _unique([o["name"] for o in orbs["orbs"]], "orbs.json", "orb")
    cre = {c.name: c for c in (parse_creature(e) for e in creatures["creatures"])}
    ench = {
        e["name"]: EnchantmentSpec(e["name"], e["scope"], dict(e["mods"]), frozenset(e["grants"]), e["text"])
        for e in cards["enchantments"]
    }
    events = {e["name"]: EventSpec(e["name"], e["timing"], tuple(e["effects"]), e["text"]) for e in cards["events"]}
    for ev in events.values():
        if ev.timing == "played" and len(ev.effects) != 1:
            # The windows find a played card by its one effect (Dispel by "dispel", Fumble by "fumble").
            raise ContentError(
                f"cards.json: event {ev.name!r}: a played event has exactly one effect, got {list(ev.effects)!r}"
            )
    alter = {f"Alter Reality {v}": int(v) for v in cards["alter_reality"]}
    orb_specs = {o["name"]: OrbSpec(o["name"], dict(o["mods"]), o["text"], frozenset(o["hooks"])) for o in orbs["orbs"]}
    deck = dict(cards["deck"])
    deck.pop("creatures", None)
    content = Content(cre, ench, events, alter, orb_specs, deck)
    for name in deck:
        if name in cre or not (name in ench or name in events or name in alter):
            raise ContentError(f"cards.json: deck: {name!r} is not an enchantment, event or Alter Reality card")
    return content


def load_content() -> Content:
    """Reads and validates the packaged content files.

    Raises:
        ContentError: a file is missing, not JSON, or malformed.
    """
    base = resources.files("referee.games.scrumbrawl") / "data"
    docs = []
    for fname in FILES:
        try:
            docs.append(json.loads((base / fname).read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise ContentError(f"cannot read content file {fname}: {exc}") from exc
    return parse_content(*docs)


CONTENT = load_content()
"""The packaged content, validated once at import."""
