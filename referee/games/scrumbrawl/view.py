"""ScrumBrawl's generic view: the 20 by 20 arena as square cells, creatures, orbs and portals as pieces.

Built from one viewer's observation only, so it shows what that viewer may see: its own hand and
creature deck face up, the other seats' hands as counts. A square is ``r<row>c<col>`` (from 1, as
the options say it), drawn with row 1 at the top.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core.contract import Event, Option
from referee.core.ids import Seat
from referee.core.view import Area, BoardView, Card, Cell, Phrases, Piece, Targets, square_cell

CREATURE_FILL = {"red": "#d9412b", "blue": "#2e6fdb", "green": "#2a9d5b", "orange": "#e67e22", "purple": "#7b3fc4"}
ORB_FILL = "#f5c518"
PORTAL_FILL = "#7b3fc4"


def square_id(row: Any, col: Any) -> str:
    """The id of the square at ``row``, ``col``: ``"r3c4"``."""
    return f"r{row}c{col}"


def orb_id(name: str) -> str:
    """The piece id of an orb, by its name (an orb is unique in a match): ``"orb-killer-orb"``."""
    return "orb-" + "-".join(str(name).lower().split())


def _cells(size: int, origin: int) -> tuple[Cell, ...]:
    return tuple(
        square_cell(
            square_id(row, col),
            col - origin,
            row - origin,
            coords=(row, col),
            fill="" if (row + col) % 2 else "#e9e6da",
        )
        for row in range(origin, origin + size)
        for col in range(origin, origin + size)
    )


_CELLS: dict[tuple[int, int], tuple[Cell, ...]] = {}


def _on_board(o: Mapping[str, Any]) -> bool:
    return isinstance(o.get("row"), int) and isinstance(o.get("col"), int) and o["row"] > 0 and o["col"] > 0


def _card(c: Mapping[str, Any]) -> Card:
    return Card(str(c.get("card", "")), str(c.get("name", "")), str(c.get("type", "")).replace("_", " "))


_SHOWN: dict[str, tuple[Any, tuple[Card, ...]]] = {}
"""The cards of the last list seen under each name, with that list: the observation hands out the same
list object while it is unchanged, so the cards are built once per change (one slot per name)."""


def _cards(slot: str, entries: Any) -> tuple[Card, ...]:
    last = _SHOWN.get(slot)
    if last is not None and last[0] is entries:
        return last[1]
    cards = tuple(_card(c) for c in entries or ())
    _SHOWN[slot] = (entries, cards)
    return cards


def board_view(layout: Mapping[str, Any], observation: Mapping[str, Any], viewer: Seat | None) -> BoardView:
    """Returns the arena ``viewer`` sees, from its observation (see the module docstring)."""
    size, origin = int(layout.get("size", 20)), int(layout.get("origin", 1))
    cells = _CELLS.get((size, origin))
    if cells is None:
        cells = _CELLS[size, origin] = _cells(size, origin)
    pieces = []
    for p in observation.get("portals") or []:
        if not _on_board(p):
            continue
        owner = p.get("owner")
        pieces.append(
            Piece(
                str(p["id"]),
                "portal",
                str(p["id"]).upper(),
                cell=square_id(p["row"], p["col"]),
                owner=owner if isinstance(owner, int) and owner >= 0 else None,
                name=f"portal {p['id']}",
                shape="ring",
                fill=PORTAL_FILL,
                size=0.85,
            )
        )
    carried: dict[str, str] = {}
    enchantments: list[Card] = []
    for c in observation.get("creatures") or []:
        if not _on_board(c):
            continue
        flags = tuple(f for f in ("flying", "stone", "done") if c.get(f))
        if c.get("enchantment"):
            flags += (f"enchanted with {c.get('enchantment_name') or c['enchantment']}",)
            enchantments.append(
                Card(str(c["enchantment"]), f"{c.get('enchantment_name', '')} on {c.get('name', '')}", "enchantment")
            )
        if c.get("orb"):
            flags += (f"carries the {c['orb']}",)
            carried[str(c["orb"])] = str(c["id"])
        name = str(c.get("name") or c["id"])
        pieces.append(
            Piece(
                str(c["id"]),
                "creature",
                name[:3],
                cell=square_id(c["row"], c["col"]),
                owner=int(c.get("owner") or 0),
                name=name,
                shape="rounded" if c.get("flying") else "square",
                fill=CREATURE_FILL.get(str(c.get("color")), ""),
                size=0.8,
                flags=flags,
            )
        )
    for orb in observation.get("orbs") or []:
        if not _on_board(orb):
            continue
        pieces.append(
            Piece(
                orb_id(orb["name"]),
                "orb",
                "",
                cell=square_id(orb["row"], orb["col"]),
                name=str(orb["name"]),
                fill=ORB_FILL,
                size=0.35,
                flags=("carried",) if orb.get("carrier") else (),
            )
        )
    me = observation.get("viewer", -1)
    areas = []
    players = observation.get("players") or []
    for p in players:
        s = int(p.get("seat") or 0)
        if s == me:
            areas.append(Area(f"hand:{s}", "Hand", s, _cards(f"hand:{s}", observation.get("hand"))))
            deck = _cards(f"creatures:{s}", observation.get("creature_deck"))
            if deck:
                areas.append(Area(f"creatures:{s}", "Creature deck", s, deck))
        else:
            areas.append(Area(f"hand:{s}", "Hand", s, (), int(p.get("hand_size") or 0)))
            if p.get("creature_deck_size"):
                areas.append(Area(f"creatures:{s}", "Creature deck", s, (), int(p["creature_deck_size"])))
        team = _cards(f"team:{s}", p.get("team_enchantments"))
        if team:
            areas.append(Area(f"team:{s}", "Team enchantments", s, team))
    if enchantments:
        areas.append(Area("enchantments", "Enchantments in play", None, tuple(enchantments)))
    areas.append(Area("deck", "Deck", None, (), int(observation.get("deck_size") or 0)))
    areas.append(Area("discard", "Discard", None, _cards("discard", observation.get("discard"))))
    for i, pile in enumerate(observation.get("draft_piles") or []):
        areas.append(Area(f"pile:{i}", f"Draft pile {i + 1}", None, tuple(_card(c) for c in pile.get("cards") or [])))
    scores = tuple(
        f"{p.get('blue_chips', 0)} blue, {p.get('red_chips', 0)} red" + (" (out)" if p.get("eliminated") else "")
        for p in players
    )
    facts = [
        ("Round", f"{observation.get('round', 0)} of {observation.get('max_rounds', 0)}"),
        ("Phase", str(observation.get("phase") or "").replace("_", " ")),
        ("Orbs in the orb deck", str(observation.get("orb_deck_size", 0))),
    ]
    for p in players:
        if p.get("skins"):
            facts.append((f"Skins of seat {p.get('seat', 0)}", ", ".join(p["skins"])))
    return BoardView(
        viewer=None if viewer is None else int(viewer),
        cells=cells,
        pieces=tuple(pieces),
        areas=tuple(areas),
        scores=scores,
        facts=tuple(facts),
    )


def option_targets(option: Option, view: BoardView) -> Targets:
    """The squares, pieces and cards of ``view`` that ``option`` acts on.

    Every id-valued parameter is looked up: a piece (creature, portal), a face-up card of the view,
    (an enchantment in play is one, in the shared area). A square comes from
    ``row`` and ``col``.
    """
    p = option.params
    pieces = view.piece_ids()
    cards = view.card_ids()
    t_cells: list[str] = []
    t_pieces: list[str] = []
    t_cards: list[str] = []
    if isinstance(p.get("row"), int) and isinstance(p.get("col"), int):
        t_cells.append(square_id(p["row"], p["col"]))
    for key in ("creature", "target", "to", "portal", "card"):
        value = p.get(key)
        if not isinstance(value, str) or not value:
            continue
        if value in pieces:
            t_pieces.append(value)
        elif value in cards:
            t_cards.append(value)
    return Targets.of(t_cells, t_pieces, t_cards)


TEMPLATES = {
    "ability": "{who} uses {detail}",
    "alter": "{seat:seat} plays {name}{purpose:? to @}{dice:? (dice now @)}",
    "attack": "{creature:cr} attacks {target:cr}{detail:? (@)}",
    "catch_roll": "{target:cr} tries to catch from {creature:cr}: rolls {dice}, total {total:int}, {result}",
    "chip": "{seat:seat} gains a {detail} chip",
    "chip_lost": "{seat:seat} loses a last-man-standing chip",
    "creature_moved": "{creature:cr} is moved from ({from_row}, {from_col}) to ({row}, {col})",
    "creature_placed": "{seat:seat} places {name} on ({row}, {col})",
    "crushed": "{who} is crushed on ({row}, {col})",
    "destroyed": "{who} is destroyed on ({row}, {col}){target:cr? by @}{detail:? (@)}",
    "discard": "{seat:seat} discards {name}",
    "discard_hand": "{seat:seat} discards the hand",
    "dispel": "{seat:seat} dispels {detail}",
    "draft": "the draft begins ({values} cards per pile)",
    "draft_done": "the draft is over",
    "drafted": "{seat:seat} takes {name}",
    "draw": "{seat:seat} draws {count:n=card}",
    "drew": "{seat:seat} draws {name}",
    "effect": "{detail:words} takes effect",
    "eliminated": "{seat:seat} is eliminated",
    "enchanted": "{creature:cr} is enchanted with {name}",
    "enchantment_lost": "{name} is lost{detail:? (@)}",
    "enchantment_moved": "an enchantment moves from {creature:cr} to {target:cr}",
    "end": "game over{detail:?: @}",
    "event": "{seat:seat} plays the event {name}",
    "event_cancelled": "the event {name:words} is cancelled",
    "event_discarded": "{seat:seat} discards the event {name}",
    "event_option": "the event resolves as {name:words}{dice:? (dice @)}",
    "fissure": "a fissure opens on ({row}, {col})",
    "fumble": "{creature:cr} fumbles the {orb}",
    "goal": "the {orb} goes through portal {portal}",
    "handoff": "{creature:cr} hands the orb off to {target:cr}",
    "lightning": "lightning strikes ({row}, {col})",
    "magic": "{who} casts its magic{target:cr? on @}",
    "move": "{creature:cr} moves from ({from_row}, {from_col}) to ({row}, {col})",
    "orb_drawn": "the {orb} is drawn",
    "orb_loose": "the {orb} bounces from ({from_row}, {from_col}) to ({row}, {col})",
    "orb_placed": "the {orb} is placed on ({row}, {col})",
    "orb_removed": "the {orb} is removed",
    "orb_shatters": "the {orb} shatters",
    "pickup": "{creature:cr} picks up the {orb}",
    "play": "{seat:seat} plays {name}",
    "portal_destroyed": "portal {portal} is destroyed",
    "portal_placed": "portal {portal} is placed on ({row}, {col})",
    "redraw": "{seat:seat} reveals the hand and draws anew",
    "released": "{seat:seat} releases {name}",
    "removed": "{who} is removed{detail:? (@)}",
    "reroll": "reroll{detail:?: @}",
    "reshuffle": "the deck is reshuffled",
    "roll": "{seat:seat} rolls {dice}{purpose:? to @}",
    "setup": "the arena is set up",
    "shot": "{creature:cr} throws the orb at portal {portal}",
    "shot_roll": "{creature:cr} shoots at portal {portal}: rolls {dice}, total {total:int}, {result}",
    "skin": "{seat:seat} takes the skin of {name}",
    "skin_returned": "{seat:seat} returns the skin of {name}",
    "strike": "{creature:cr} strikes {target:cr}: {attack_total:int} against {defense_total:int}, {result}",
    "suicide": "{creature:cr} dives into portal {portal}",
    "summon": "{seat:seat} summons {name}",
    "throw": "{creature:cr} throws the {orb} to {target:cr}",
    "thrown": "{creature:cr} is thrown{detail:? @}",
    "transmute": "{creature:cr} turns into {name} on ({row}, {col})",
    "turn": "turn of {seat:seat}{round:?, round @}",
    "wrest": "{creature:cr} wrests the orb from {target:cr}",
}
"""Every event kind's sentence (see :class:`~referee.core.view.Phrases`)."""


def phrases(names: Mapping[str, str]) -> Phrases:
    """The sentences of the events, creatures by name."""
    return Phrases(
        {
            "cr": lambda cid: names.get(str(cid)) or str(cid),
            "int": lambda v: str(v or 0),
            "seat": lambda s: f"seat {s or 0}",
            "words": lambda v: str(v).replace("_", " "),
        },
        TEMPLATES,
    )


def event_text(event: Event, names: Mapping[str, str] | None = None) -> str:
    """The sentence of ``event``; a kind without one is spelled out.

    ``who`` is the piece an event is about: its ``name`` when the event says it, else the creature's name.
    """
    names = names or {}
    data = event.data
    creature = str(data.get("creature", ""))
    who = data.get("name") or names.get(creature) or creature
    return phrases(names).say(event.kind, {**data, "who": who}, names)
