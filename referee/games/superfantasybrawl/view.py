"""Super Fantasy Brawl's generic view: the arena as cells, champions as pieces, traps and statues as markers.

Everything here is built from one viewer's observation (``observe``) and the fixed content (the map,
the champions' and cards' names), so a view shows what that viewer may see and nothing more: the
hexes holding a face-down trap, never what the trap is; the viewer's own hand, the other hands as
counts. Event sentences name champions and cards by their names; a hex is written ``(q, r)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core.contract import Event, Option
from referee.core.ids import Seat
from referee.core.view import Area, BoardView, Card, Marker, Phrases, Piece, Targets, hex_cell
from referee.games.superfantasybrawl.content import Content
from referee.games.superfantasybrawl.hexes import hex_id, parse_hex

ZONE_FILL = {"red": "#f6d5cf", "yellow": "#f7ecc2", "blue": "#d3e1f7"}
STATUE_FILL = {"red": "#c0392b", "yellow": "#d4a017", "blue": "#2e6fdb"}
DEPLOY_FILL = "#e4efe4"


def _cells(content: Content) -> tuple[Any, ...]:
    arena = content.arena
    zone_of = {h: colour for colour, hexes in arena.zones.items() for h in hexes}
    deploy_of = {h: side for side, hexes in enumerate(arena.deployment) for h in hexes}
    cells = []
    for q, r in sorted(arena.cells, key=lambda h: (h[1], h[0])):
        h = (q, r)
        if h in zone_of:
            kw: dict[str, Any] = {"kind": f"zone-{zone_of[h]}", "fill": ZONE_FILL.get(zone_of[h], "")}
        elif h in deploy_of:
            kw = {"kind": f"deploy-{deploy_of[h]}", "fill": DEPLOY_FILL}
        else:
            kw = {}
        cells.append(hex_cell(hex_id(h), q, r, **kw))
    return tuple(cells)


_CELLS: dict[int, tuple[Any, ...]] = {}


def champion_name(content: Content, cid: str) -> str:
    """A champion's name, or its id when the content does not know it."""
    champ = content.champions.get(cid)
    return champ.name if champ is not None else str(cid)


def card_name(content: Content, card: str) -> str:
    """A card's name, or its id when the content does not know it."""
    found = content.cards.get(card)
    return found.name if found is not None else str(card)


def _card(content: Content, card: str) -> Card:
    found = content.cards.get(card)
    return Card(card, found.name, f"{found.colour} {found.type}") if found is not None else Card(card, card)


def board_view(content: Content, observation: Mapping[str, Any], viewer: Seat | None) -> BoardView:
    """Returns the board ``viewer`` sees, from its observation (see the module docstring)."""
    cells = _CELLS.get(id(content))
    if cells is None:
        cells = _CELLS[id(content)] = _cells(content)
    markers = [
        Marker(hex_id(h), "statue", f"{colour} statue", "square", STATUE_FILL.get(colour, ""))
        for colour, h in sorted(content.arena.statues.items())
    ]
    for t in observation.get("trap_hexes") or []:
        if t.get("has_trap"):
            markers.append(Marker(t["hex"], "trap", "face-down trap", "triangle", "#222222"))
        else:
            markers.append(Marker(t["hex"], "trap-empty", "empty trap hex", "triangle", hollow=True))
    pieces = []
    for c in observation.get("champions") or []:
        name = champion_name(content, c["id"])
        hp, damage = int(c.get("hp") or 0), int(c.get("damage") or 0)
        flags = tuple(f for f in ("levelled", "rooted", "bloodied") if c.get(f)) + (
            ("on the gate",) if c.get("on_gate") else ()
        )
        pieces.append(
            Piece(
                c["id"],
                "champion",
                name[:3],
                cell="" if c.get("on_gate") else str(c.get("hex") or ""),
                owner=int(c.get("seat") or 0),
                name=name,
                badge=f"{hp - damage}/{hp}" if hp else "",
                flags=flags,
                size=0.72,
            )
        )
    seats = int(observation.get("seats") or 2)
    players = observation.get("players") or []
    me = observation.get("viewer", -1)
    areas = []
    for p in players:
        s = int(p.get("seat") or 0)
        if s == me:
            hand = tuple(_card(content, k) for k in observation.get("hand") or [])
            areas.append(Area(f"hand:{s}", "Hand", s, hand))
        else:
            areas.append(Area(f"hand:{s}", "Hand", s, (), int(p.get("hand_size") or 0)))
        areas.append(Area(f"discard:{s}", "Discard", s, tuple(_card(content, k) for k in p.get("discard") or [])))
        areas.append(Area(f"deck:{s}", "Deck", s, (), int(p.get("deck_size") or 0)))
    track = [t for t in observation.get("track") or [] if t.get("challenge")]
    challenge_names = {k: v.name for k, v in content.challenges.items()}
    areas.append(
        Area(
            "track",
            "Challenge track",
            None,
            tuple(
                Card(
                    t["challenge"],
                    challenge_names.get(t["challenge"], t["challenge"]),
                    f"slot {t.get('slot', 0)}, {t.get('value', 0)} VP",
                )
                for t in track
            ),
            int(observation.get("challenge_deck_size") or 0),
        )
    )
    vp = list(observation.get("vp") or [])
    scores = tuple(f"{vp[s % len(vp)] if vp else 0} VP" for s in range(seats))
    facts = [
        ("Round", f"{observation.get('round', 0)} of {observation.get('round_cap', 0)}"),
        ("Phase", str(observation.get("phase") or "").replace("_", " ")),
        ("VP to win", str(observation.get("vp_to_win", ""))),
    ]
    for p in players:
        cores = [k for k, v in (p.get("cores") or {}).items() if v]
        facts.append((f"Cores of seat {p.get('seat', 0)}", ", ".join(cores) or "none"))
    used = observation.get("standard_used") or []
    if used:
        facts.append(("Standard actions used", ", ".join(used)))
    return BoardView(
        viewer=None if viewer is None else int(viewer),
        cells=cells,
        pieces=tuple(pieces),
        markers=tuple(markers),
        areas=tuple(areas),
        scores=scores,
        facts=tuple(facts),
    )


def option_targets(content: Content, option: Option, view: BoardView) -> Targets:
    """The hexes, champions and cards ``option`` acts on, in the deciding seat's ``view``."""
    p = option.params
    cells = [p["hex"]] if isinstance(p.get("hex"), str) else []
    if option.kind == "side" and isinstance(p.get("value"), int):
        side = content.arena.deployment[p["value"]] if 0 <= p["value"] < len(content.arena.deployment) else ()
        cells = [hex_id(h) for h in side]
    pieces = [p["champion"]] if isinstance(p.get("champion"), str) else []
    pieces = [x for x in pieces if x in view.piece_ids()]
    cards = [p["card"]] if isinstance(p.get("card"), str) else []
    cards += [c for c in p.get("cards") or [] if isinstance(c, str)]
    own = view.card_ids(view.viewer)
    return Targets.of(cells, pieces, [c for c in cards if c in own])


def _hex(h: Any) -> str:
    try:
        q, r = parse_hex(str(h))
    except ValueError:
        return str(h)
    return f"({q}, {r})"


TEMPLATES = {
    "activation_ended": "{seat:seat} ends the activation",
    "attack": "{champion:ch} attacks {targets:ch} with {card:card}",
    "attack_declined": "{champion:ch} does not attack with {card:card}",
    "attack_roll": "{champion:ch} is attacked: strength {strength:int} against defence {defence:int}, "
    "{amount:n=damage point}",
    "banned": "{seat:seat} bans {champion:ch}",
    "card_played": "{seat:seat} plays {card:card} on {champion:ch}{core:? (@ core)}",
    "challenge_scored": "{seat:seat} scores the challenge {challenge:chal} for {amount:int} VP (VP now {vps})",
    "challenges_reshuffled": "the challenge deck is reshuffled ({count:n=card})",
    "damage": "{champion:ch} takes {amount:n=damage point}{source:ch? from @}{hp_left:int?, @ HP left}",
    "deck_reshuffled": "{seat:seat} reshuffles the deck ({count:n=card})",
    "deployed": "{seat:seat} deploys {champion:ch} on {hex:hex}",
    "draw": "{seat:seat} draws {count:n=card}",
    "drew": "{seat:seat} draws {cards:card}",
    "first_player": "{seat:seat} plays first",
    "hand_discarded": "{seat:seat} discards {cards:card}",
    "hand_revealed": "{seat:seat} reveals the hand: {cards:card}",
    "heal": "{champion:ch} heals {amount:int}{source:ch? (@)}",
    "ignored": "{champion:ch} ignores {keyword:words}{reason:words?: @}",
    "immune": "{champion:ch} is immune to {keyword:words}",
    "level_up": "{champion:ch} levels up",
    "match_over": "game over: {ranks:*ranks}{reason:? (@)}",
    "moved": "{champion:ch} {mode:verb} from {from_hex:hex} to {path:*last}",
    "mulligan": "{seat:seat} redraws {count:n=card}",
    "no_attack": "{champion:ch} has no one to attack with {card:card}",
    "no_target": "{champion:ch} has no target for {card:card}",
    "out_of_action": "{champion:ch} is taken out of action{source:ch? by @}",
    "picked": "{seat:seat} picks {champion:ch}",
    "planned": "{seat:seat} puts {count:n=card} on top of the deck",
    "planned_card": "{seat:seat} puts {card:card} on top of the deck",
    "post_attack_declined": "{champion:ch} declines the {keyword:words} of {card:card}",
    "reaction": "{seat:seat} reacts with {card:card} on {champion:ch} (defence {defence:int})",
    "reaction_passed": "{seat:seat} does not react",
    "rooted": "{champion:ch} is rooted{source:ch? by @}",
    "side_chosen": "{seat:seat} deploys on side {value:int}",
    "skill": "{champion:ch} uses {card:card}{target:ch? on @}",
    "standard_action": "{seat:seat} takes the {action} standard action with {champion:ch}",
    "stunned": "{champion:ch} is stunned{card:card? by @}",
    "track_advanced": "the challenge track advances: {challenges:*chals}",
    "trap_placed": "{seat:seat} places a trap on {hex:hex}",
    "trap_sprung": "{champion:ch} springs a {trap_kind:words} trap on {hex:hex}{amount:? (@)}",
    "trap_token": "the trap on {hex:hex} is a {trap_kind:words} trap{amount:? (@)}",
    "turn": "turn of {seat:seat}, round {round:int}",
    "vp": "team {team:int} gains {amount:int} VP{reason:words? for a @} (VP now {vps})",
}
"""Every event kind's sentence (see :class:`~referee.core.view.Phrases`)."""


def phrases(content: Content, names: Mapping[str, str]) -> Phrases:
    """The sentences of the events, champions, cards and challenges by name."""

    def ch(cid: Any) -> str:
        return names.get(str(cid)) or champion_name(content, str(cid))

    def chal(k: Any) -> str:
        found = content.challenges.get(str(k))
        return found.name if found is not None else str(k)

    def verb(mode: Any) -> str:
        text = str(mode or "move").replace("_", " ")
        return text + ("es" if text.endswith(("sh", "ch")) else "s")

    return Phrases(
        {
            "ch": ch,
            "card": lambda k: card_name(content, str(k)),
            "chal": chal,
            "chals": lambda ks: ", ".join(chal(k) for k in ks if k) if isinstance(ks, list) else chal(ks),
            "hex": _hex,
            "last": lambda path: _hex(path[-1]) if isinstance(path, list) and path else _hex(path),
            "int": lambda v: str(v or 0),
            "seat": lambda s: f"seat {s or 0}",
            "verb": verb,
            "words": lambda v: str(v).replace("_", " "),
            "ranks": lambda ranks: ", ".join(f"seat {s} ranks {r}" for s, r in enumerate(ranks)),
        },
        TEMPLATES,
    )


def event_text(content: Content, event: Event, names: Mapping[str, str] | None = None) -> str:
    """The sentence of ``event``; a kind without one is spelled out."""
    return phrases(content, names or {}).say(event.kind, event.data, names)
