"""Triboard, a test game on a board of triangles, with hidden hands and a shuffled deck.

The board is a big triangle of side ``side`` cut into ``side * side`` small triangles, pointing up
and down in turn: row ``r`` (from the top) holds ``2r + 1`` of them, ``t<r>.<i>``. Two seats each
have one pawn (seat 0 starts at the top, seat 1 at the bottom left corner). On its turn a seat moves
its pawn to a free triangle that shares an edge with its own, and claims it; or plays a rune card
from its hidden hand to claim every free neighbour of its pawn, then draws a card from the
shuffled deck. After ``max_turns`` turns the seat with more claimed triangles wins.

Nothing here is drawn by the viewer's code: the game gives its own cells' outlines
(:func:`referee.core.view.polygon_cell`), pieces, markers and card areas, its sentences and its
options' targets through the three hooks of :class:`~referee.core.contract.Game`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core import (
    EVERYONE,
    Chance,
    ConfigError,
    Decision,
    Event,
    Game,
    GameInfo,
    JSONDict,
    Match,
    MatchOverError,
    Option,
    Outcome,
    Seat,
    Termination,
)
from referee.core.contract import visible_events
from referee.core.view import Area, BoardView, Card, Marker, Phrases, Piece, Targets, polygon_cell

INFO = GameInfo("triboard", "Triboard", "1", seat_counts=frozenset({2}), board=None)
RUNES = ("ash", "elm", "oak", "yew")
SEAT_FILL = ("#f3c1b8", "#bcd0f3")
H = math.sqrt(3) / 2


def cell_id(r: int, i: int) -> str:
    return f"t{r}.{i}"


def cells(side: int) -> list[tuple[int, int]]:
    return [(r, i) for r in range(side) for i in range(2 * r + 1)]


def neighbours(side: int, r: int, i: int) -> list[tuple[int, int]]:
    """The triangles sharing an edge with ``(r, i)``: its row neighbours, and the one below (up) or above (down)."""
    out = [(r, j) for j in (i - 1, i + 1) if 0 <= j <= 2 * r]
    if i % 2 == 0 and r + 1 < side:
        out.append((r + 1, i + 1))
    if i % 2 == 1:
        out.append((r - 1, i - 1))
    return out


def outline(r: int, i: int) -> list[tuple[float, float]]:
    """The corners of triangle ``(r, i)``, side 1, y down."""
    x0 = -(r + 1) / 2
    k = i // 2
    if i % 2 == 0:
        return [(x0 + k, (r + 1) * H), (x0 + k + 1, (r + 1) * H), (x0 + k + 0.5, r * H)]
    return [(x0 + k + 0.5, r * H), (x0 + k + 1.5, r * H), (x0 + k + 1, (r + 1) * H)]


class TriMatch(Match):
    info = INFO

    def __init__(self, config: Mapping[str, Any], chance: Chance) -> None:
        self.side = int(config["side"])
        self.max_turns = int(config["max_turns"])
        self.chance = chance
        self.deck = [f"{rune}{n}" for rune in RUNES for n in range(3)]
        chance.shuffle(self.deck)
        self.hands = [[self.deck.pop() for _ in range(2)] for _ in range(2)]
        self.pawns = [(0, 0), (self.side - 1, 0)]
        self.claims: dict[tuple[int, int], int] = {self.pawns[0]: 0, self.pawns[1]: 1}
        self.turn = 0
        self._events: list[Event] = []
        self._outcome: Outcome | None = None
        for s in range(2):
            self._emit("dealt", {"seat": s, "cards": list(self.hands[s])}, frozenset({Seat(s)}))

    def _emit(self, kind: str, data: JSONDict, to: frozenset[Seat] | None = None) -> None:
        self._events.append(Event(len(self._events), kind, data, to))

    @property
    def current(self) -> Seat:
        return Seat(self.turn % 2)

    def _free(self, r: int, i: int) -> list[tuple[int, int]]:
        return [n for n in neighbours(self.side, r, i) if n not in self.pawns and n not in self.claims]

    def to_move(self) -> Decision | None:
        if self._outcome:
            return None
        return Decision(self.current, "main", "move the pawn or play a rune", self.legal_options()[0].id)

    def legal_options(self) -> Sequence[Option]:
        if self._outcome:
            return ()
        s = self.current
        pawn = self.pawns[s]
        opts = [
            Option(f"move:{cell_id(*n)}", "move", f"move to {cell_id(*n)}", {"cell": cell_id(*n)})
            for n in neighbours(self.side, *pawn)
            if n not in self.pawns
        ]
        if self._free(*pawn):
            opts += [Option(f"rune:{c}", "rune", f"play the rune {c}", {"card": c}) for c in sorted(set(self.hands[s]))]
        return tuple(opts) or (Option("pass", "pass", "stay"),)

    def apply(self, option_id: str) -> Sequence[Event]:
        if self._outcome:
            raise MatchOverError("the match is over")
        option = self.option(option_id)
        start = len(self._events)
        s = self.current
        if option.kind == "move":
            r, i = (int(x) for x in option.params["cell"][1:].split("."))
            self._emit("moved", {"seat": s, "from": cell_id(*self.pawns[s]), "to": option.params["cell"]})
            self.pawns[s] = (r, i)
            if (r, i) not in self.claims:
                self.claims[(r, i)] = s
                self._emit("claimed", {"seat": s, "cells": [option.params["cell"]]})
        elif option.kind == "rune":
            card = option.params["card"]
            self.hands[s].remove(card)
            won = self._free(*self.pawns[s])
            self._emit("rune", {"seat": s, "card": card})
            for n in won:
                self.claims[n] = s
            self._emit("claimed", {"seat": s, "cells": [cell_id(*n) for n in won]})
            if self.deck:
                drawn = self.deck.pop()
                self.hands[s].append(drawn)
                self._emit("draw", {"seat": s})
                self._emit("drew", {"seat": s, "card": drawn}, frozenset({s}))
        self.turn += 1
        if self.turn >= self.max_turns or len(self.claims) == len(cells(self.side)):
            scores = [sum(1 for v in self.claims.values() if v == seat) for seat in range(2)]
            ranks = (1, 1) if scores[0] == scores[1] else ((1, 2) if scores[0] > scores[1] else (2, 1))
            self._outcome = Outcome(ranks, Termination.VICTORY, f"{max(scores)} triangles claimed", tuple(scores))
            self._emit("over", {"ranks": list(ranks), "scores": scores})
        return self._events[start:]

    def observe(self, viewer: Seat | None) -> JSONDict:
        return {
            "side": self.side,
            "turn": self.turn,
            "max_turns": self.max_turns,
            "pawns": [cell_id(*p) for p in self.pawns],
            "claims": {cell_id(*c): s for c, s in sorted(self.claims.items())},
            "hand_sizes": [len(h) for h in self.hands],
            "deck_size": len(self.deck),
            "hand": sorted(self.hands[viewer]) if viewer is not None else [],
        }

    def events(self, since: int = 0, viewer: Any = EVERYONE) -> list[Event]:
        return visible_events(self._events, since, viewer)

    def outcome(self) -> Outcome | None:
        return self._outcome

    def determinize(self, viewer: Seat | None, chance: Chance) -> TriMatch:
        other = copy.deepcopy(self, {id(self.chance): chance})
        hidden = [s for s in range(2) if s != viewer]
        pool = list(self.deck) + [c for s in hidden for c in self.hands[s]]
        chance.shuffle(pool)
        for s in hidden:
            n = len(self.hands[s])
            other.hands[s], pool = pool[:n], pool[n:]
        other.deck = pool
        return other


SENTENCES = Phrases(
    {"seat": lambda s: f"seat {s}"},
    {
        "dealt": "{seat:seat} is dealt {cards}",
        "moved": "{seat:seat} moves the pawn from {from} to {to}",
        "claimed": "{seat:seat} claims {cells:*count}",
        "rune": "{seat:seat} plays the rune {card}",
        "draw": "{seat:seat} draws a rune",
        "drew": "{seat:seat} draws {card}",
        "over": "the board is full or the time is up: {scores:*scores}",
    },
)
SENTENCES.filters["count"] = lambda cs: ", ".join(cs) if cs else "nothing"
SENTENCES.filters["scores"] = lambda ss: " to ".join(str(s) for s in ss)


class TriBoard(Game):
    info = INFO

    def parse_config(self, raw: Mapping[str, Any], seats: int) -> JSONDict:
        INFO.check_seats(seats)
        unknown = set(raw) - {"side", "max_turns"}
        if unknown:
            raise ConfigError(f"unknown config fields {sorted(unknown)!r}")
        side, turns = raw.get("side", 4), raw.get("max_turns", 24)
        if not isinstance(side, int) or not 2 <= side <= 8:
            raise ConfigError(f"side must be an integer 2..8, got {side!r}")
        if not isinstance(turns, int) or turns < 1:
            raise ConfigError(f"max_turns must be a positive integer, got {turns!r}")
        return {"side": side, "max_turns": turns}

    def new_match(self, config: Mapping[str, Any], seats: int, chance: Chance) -> TriMatch:
        return TriMatch(self.parse_config(config, seats), chance)

    def board_view(self, observation: Mapping[str, Any], viewer: Seat | None) -> BoardView:
        side = int(observation["side"])
        claims = observation.get("claims") or {}
        board = tuple(
            polygon_cell(
                cell_id(r, i), outline(r, i), shape="triangle", coords=(r, i), kind="up" if i % 2 == 0 else "down"
            )
            for r, i in cells(side)
        )
        pawns = tuple(
            Piece(f"pawn{s}", "pawn", f"P{s}", cell=c, owner=s, name=f"pawn of seat {s}", shape="diamond", size=0.45)
            for s, c in enumerate(observation.get("pawns") or [])
        )
        marks = tuple(
            Marker(c, "claim", f"claimed by seat {s}", "circle", SEAT_FILL[int(s) % 2]) for c, s in claims.items()
        )
        me = -1 if viewer is None else int(viewer)
        areas = tuple(
            Area(f"hand:{s}", "Runes", s, tuple(Card(c, f"rune {c}") for c in observation.get("hand") or []))
            if s == me
            else Area(f"hand:{s}", "Runes", s, (), int(n))
            for s, n in enumerate(observation.get("hand_sizes") or [])
        )
        scores = tuple(f"{sum(1 for v in claims.values() if v == s)} claimed" for s in range(2))
        facts = (("Turn", f"{observation.get('turn', 0)} of {observation.get('max_turns', 0)}"),)
        return BoardView(None if viewer is None else int(viewer), board, pawns, marks, areas, scores, facts)

    def event_text(self, event: Event, viewer: Seat | None, names: Mapping[str, str] | None = None) -> str:
        return SENTENCES.say(event.kind, event.data, names)

    def option_targets(self, option: Option, board: BoardView) -> Targets:
        if option.kind == "move":
            return Targets.of(cells=[option.params["cell"]])
        if option.kind == "rune":
            return Targets.of(cards=[option.params["card"]])
        return Targets()
