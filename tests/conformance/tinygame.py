"""A test-only game that exercises every part of the contract, to test the conformance kit.

Not a product game and never registered outside tests. Each seat holds a hidden hand drawn from a
shared shuffled deck of cards 0..5. On its turn a seat plays a card (its value scores, doubled on
a d6 roll of 6) or draws. Playing a card opens a reaction window for the next seat, offered only
when that seat holds a 0 (a "block"), which cancels the score. The match ends when the deck and
every hand are empty, or after ``max_turns``; the highest score wins.

``leaky`` makes the observation show every hand, so tests can prove the leak check catches it.
"""

from __future__ import annotations

import copy
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

INFO = GameInfo(
    "tinygame",
    "Tiny Game",
    "1",
    seat_counts=frozenset({2, 3, 4}),
    # The block window opens only for a seat holding a 0: being asked tells of its hand.
    private_decisions=frozenset({"reaction"}),
)


class TinyMatch(Match):
    info = INFO

    def __init__(self, config: Mapping[str, Any], seats: int, chance: Chance) -> None:
        self.seats = seats
        self.chance = chance
        self.leaky = bool(config["leaky"])
        self.max_turns = int(config["max_turns"])
        self.deck = [v for v in range(6) for _ in range(3)]
        chance.shuffle(self.deck)
        self.hands: list[list[int]] = [[self.deck.pop() for _ in range(2)] for _ in range(seats)]
        self.scores = [0] * seats
        self.turn = 0
        self.current = Seat(0)
        self.pending: tuple[Seat, int] | None = None  # (player, value) awaiting a block decision
        self._events: list[Event] = []
        self._outcome: Outcome | None = None
        for s in range(seats):
            self._emit("deal", {"seat": s, "cards": list(self.hands[s])}, frozenset({Seat(s)}))

    def _emit(self, kind: str, data: JSONDict, to: frozenset[Seat] | None = None) -> Event:
        e = Event(len(self._events), kind, data, to)
        self._events.append(e)
        return e

    def _reactor(self) -> Seat:
        return Seat((self.current + 1) % self.seats)

    def to_move(self) -> Decision | None:
        if self._outcome:
            return None
        if self.pending:
            return Decision(self._reactor(), "reaction", "block the card just played?", "pass")
        return Decision(self.current, "main", "play a card or draw", self.legal_options()[0].id)

    def legal_options(self) -> Sequence[Option]:
        if self._outcome:
            return ()
        if self.pending:
            return (Option("block", "block", "discard a 0 to block"), Option("pass", "pass", "let it score"))
        hand = self.hands[self.current]
        opts = [Option(f"play:{v}", "play", f"play a {v}", {"value": v}) for v in sorted(set(hand))]
        if self.deck:
            opts.append(Option("draw", "draw", "draw a card"))
        if not opts:
            opts.append(Option("pass", "pass", "nothing to do"))
        return tuple(opts)

    def apply(self, option_id: str) -> Sequence[Event]:
        if self._outcome:
            raise MatchOverError("the match is over")
        self.option(option_id)
        start = len(self._events)
        if self.pending:
            player, value = self.pending
            self.pending = None
            if option_id == "block":
                self.hands[self._reactor()].remove(0)
                self._emit("block", {"seat": self._reactor()})
            else:
                self.scores[player] += value
                self._emit("score", {"seat": player, "points": value})
            self._end_turn()
        elif option_id == "draw":
            card = self.deck.pop()
            self.hands[self.current].append(card)
            self._emit("draw", {"seat": self.current}, None)
            self._emit("drew", {"seat": self.current, "card": card}, frozenset({self.current}))
            self._end_turn()
        elif option_id == "pass":
            self._end_turn()
        else:
            value = int(option_id.split(":")[1])
            self.hands[self.current].remove(value)
            roll = self.chance.roll(6)
            points = value * 2 if roll == 6 else value
            self._emit("play", {"seat": self.current, "card": value, "roll": roll})
            if 0 in self.hands[self._reactor()] and points > 0:
                self.pending = (self.current, points)
            else:
                self.scores[self.current] += points
                self._emit("score", {"seat": self.current, "points": points})
                self._end_turn()
        return self._events[start:]

    def _end_turn(self) -> None:
        self.turn += 1
        self.current = Seat((self.current + 1) % self.seats)
        if (not self.deck and not any(self.hands)) or self.turn >= self.max_turns:
            best = max(self.scores)
            ranks = tuple(1 if s == best else 2 for s in self.scores)
            term = Termination.ROUND_CAP if self.turn >= self.max_turns else Termination.VICTORY
            self._outcome = Outcome(ranks, term, f"best score {best}", tuple(self.scores))
            self._emit("end", {"ranks": list(ranks)})

    def observe(self, viewer: Seat | None) -> JSONDict:
        return {
            "scores": list(self.scores),
            "deck": len(self.deck),
            "hand_sizes": [len(h) for h in self.hands],
            "my_hand": sorted(self.hands[viewer]) if viewer is not None else [],
            "current": self.current,
            "hands": [sorted(h) for h in self.hands] if self.leaky else [],
        }

    def events(self, since: int = 0, viewer: Any = EVERYONE) -> list[Event]:
        return visible_events(self._events, since, viewer)

    def outcome(self) -> Outcome | None:
        return self._outcome

    def determinize(self, viewer: Seat | None, chance: Chance) -> TinyMatch:
        other = copy.copy(self)
        other.chance = chance
        other.hands = [list(h) for h in self.hands]
        other._events = list(self._events)
        hidden = [s for s in range(self.seats) if s != viewer]
        pool = list(self.deck) + [c for s in hidden for c in self.hands[s]]
        chance.shuffle(pool)
        for s in hidden:
            n = len(self.hands[s])
            other.hands[s], pool = pool[:n], pool[n:]
        other.deck = pool
        return other


class TinyGame(Game):
    info = INFO

    def parse_config(self, raw: Mapping[str, Any], seats: int) -> JSONDict:
        unknown = set(raw) - {"max_turns", "leaky"}
        if unknown:
            raise ConfigError(f"unknown config fields {sorted(unknown)!r}")
        INFO.check_seats(seats)
        max_turns = raw.get("max_turns", 40)
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ConfigError(f"max_turns must be a positive integer, got {max_turns!r}")
        return {"max_turns": max_turns, "leaky": bool(raw.get("leaky", False))}

    def new_match(self, config: Mapping[str, Any], seats: int, chance: Chance) -> TinyMatch:
        return TinyMatch(self.parse_config(config, seats), seats, chance)


LOOSE_INFO = GameInfo("loosegame", "Loose Game", "1", seat_counts=frozenset({2, 3}), table_sizes=(3, 2))
"""The tiny game described as a game of 2 or 3 seats, for the doors that must read the info."""


class LooseGame(TinyGame):
    """The tiny game with an engine that forgets to check the table size.

    Its info takes 2 or 3 seats, but its ``parse_config`` accepts any number: a door that asked the
    engine instead of reading the info would let 4 seats through.
    """

    info = LOOSE_INFO

    def parse_config(self, raw: Mapping[str, Any], seats: int) -> JSONDict:
        return {"max_turns": int(raw.get("max_turns", 40)), "leaky": False}
