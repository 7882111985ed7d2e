"""The ScrumBrawl match: its state and its registry of steps and decisions.

Play runs on the shared step interpreter (:mod:`referee.core.steps`): a stack of typed frames, each
naming a *step* (run once and popped) or a standing *decision* (it stays on top until a seat
answers). Rules modules register theirs by name with :func:`step` and :func:`decision`; the
interpreter runs them and writes the contract's verbs. Because frames are data, a match deep-copies
cleanly for :meth:`SBMatch.determinize`, and the order of dice never depends on anything but the
decisions taken.

This module holds no rule of the game itself: see ``turn``, ``movement``, ``orbs``, ``combat``,
``creatures``, ``cards`` and ``scoring``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.core.chance import Chance
from referee.core.contract import GameInfo, JSONDict, Outcome, TeamSplit, TimeControl
from referee.core.ids import Seat
from referee.core.steps import Frame, Rules, StepMatch

INFO = GameInfo(
    "scrumbrawl",
    "ScrumBrawl",
    "4",
    seat_counts=frozenset({2, 3, 4}),
    table_sizes=(4, 3),
    free_for_all=True,
    # 2v2 only at four seats, and only with ``teams: true``; every other table is every seat for itself.
    teams=(TeamSplit(4, (0, 1, 0, 1), when="teams"),),
    # A handful of options per decision: a second is plenty, the bank absorbs the occasional deep
    # search, and five seconds of overrun forgives one network hiccup.
    time_control=TimeControl(),
    # The proto's squares are (row, col), both 1..20.
    board={"kind": "square", "size": 20, "origin": 1},
    # None: every window asks each seat the rules let play there, whatever it holds (public facts only).
    private_decisions=frozenset(),
)
"""What the game says of itself: the ladder plays pods of 4 (else 3), 2v2 with ``teams: true``.

The game and every match return this one object."""

Pos = tuple[int, int]

RULES = Rules("scrumbrawl")
"""Every step and decision of the game, registered by the rules modules on import."""
step = RULES.action
"""Registers ``fn(match, frame)`` as a step by name."""
decision = RULES.decision
"""Registers a standing decision by name with its option generator; decorates its apply function."""

__all__ = ["INFO", "RULES", "Creature", "Frame", "Pos", "SBMatch", "decision", "observer", "step"]

Observer = Callable[["SBMatch", Seat | None], JSONDict]
_OBSERVER: list[Observer] = []


def observer(fn: Observer) -> Observer:
    """Registers the observation function; ``observation`` registers it on import.

    The engine does not import ``observation`` itself: that module reads the rules modules, which
    import the engine, and the package imports no module in a circle (``pyproject.toml``'s
    import contracts).
    """
    _OBSERVER[:] = [fn]
    return fn


@dataclass
class Creature:
    """A creature token in the Arena. Its id is the id of its creature card (``"k12"``)."""

    id: str
    name: str
    owner: int
    pos: Pos
    entered: int
    """Turn number it entered the Arena; it cannot act in that turn."""
    enchant: str | None = None
    """Card id of the attached creature enchantment."""
    orb: str | None = None
    """Name of the orb carried."""
    steps: int = 0
    moved: bool = False
    done: bool = False
    attacked: bool = False
    maneuvered: bool = False
    stone_turn: int = -1
    """Turn number in which it turned to stone; stone lasts to the end of its owner's next turn."""
    gazed: bool = False
    extra_turn: bool = False
    """Mordrock: it destroyed an opponent's creature and takes another turn when its attacks end."""


class SBMatch(StepMatch):
    """One ScrumBrawl match. Build it with :class:`referee.games.scrumbrawl.ScrumBrawl`."""

    info = INFO
    rules = RULES
    shared_on_copy = frozenset({"chance"})

    def __init__(self, config: Mapping[str, Any], seats: int, chance: Chance) -> None:
        self.start_steps()
        self.config = dict(config)
        self.seats = seats
        self.chance: Chance = chance
        self.teams = bool(config["teams"])
        self.lms = bool(config["last_man_standing"])
        self.max_rounds = int(config["max_rounds"])
        self.turn = 0
        self.round = 1
        self.active = 0
        self.phase = "setup"
        self.first_turn_done = [False] * seats
        self.card_names: dict[str, str] = {}
        self.deck: list[str] = []
        self.discard: list[str] = []
        self.hands: list[list[str]] = [[] for _ in range(seats)]
        self.personal: list[list[str]] = [[] for _ in range(seats)]
        """Creature Draft: each seat's face-down personal creature deck."""
        self.piles: list[list[str]] = []
        """Creature Draft: the face-up piles still to be drafted."""
        self.draw_from = "main"
        """Creature Draft: the deck the next card is drawn from."""
        self.orb_deck: list[str] = []
        self.orb_known = 0
        """How many cards at the bottom of the orb deck were put there face up (their order is public)."""
        self.orbs: dict[str, Pos | None] = {}
        """Orbs in play: a loose orb's square, or ``None`` when a creature carries it."""
        self.carrier: dict[str, str] = {}
        """Orb name to the id of the creature carrying it."""
        self.last_control: dict[str, tuple[int, int]] = {}
        """Orb name to (seat, turn) of the last player to control it."""
        self.base_orbs = 1
        self.portals: dict[str, Pos] = {}
        self.portal_owner: dict[str, int] = {}
        self.portal_home: dict[str, Pos] = {}
        """Last Man Standing: each portal's fixed square on its owner's edge."""
        self.creatures: dict[str, Creature] = {}
        self.limbo: dict[str, Creature] = {}
        """Creatures lifted off the Arena by Chaos while they are rolled back in."""
        self.team_ench: list[list[str]] = [[] for _ in range(seats)]
        self.enchant_of: dict[str, str] = {}
        self.blue = [0] * seats
        self.red = [0] * seats
        self.skins: list[list[str]] = [[] for _ in range(seats)]
        self.lms_chips = [3 if self.lms else 0 for _ in range(seats)]
        self.eliminated = [False] * seats
        self.elim_order: list[int] = []
        self.transmuted = False
        self.window_seq = 0
        """Numbers the out-of-turn windows (the ``window`` id of their decisions)."""

    # -- plumbing used by the rules modules ---------------------------------------------------

    def team_of(self, seat: int) -> int:
        """Returns the team (chip pool) of ``seat``: the seat itself, or seat % 2 in team play."""
        return seat % 2 if self.teams else seat

    def friendly(self, a: int, b: int) -> bool:
        """Whether seats ``a`` and ``b`` are the same player or teammates."""
        return self.team_of(a) == self.team_of(b)

    def order_from(self, seat: int) -> list[int]:
        """Returns the live seats clockwise starting with ``seat``."""
        return [(seat + i) % self.seats for i in range(self.seats) if not self.eliminated[(seat + i) % self.seats]]

    def new_card_id(self, name: str) -> str:
        """Creates a card instance and returns its id."""
        cid = f"k{len(self.card_names)}"
        self.card_names[cid] = name
        return cid

    def at(self, pos: Pos) -> Creature | None:
        """Returns the creature on ``pos``, if any."""
        for c in self.creatures.values():
            if c.pos == pos:
                return c
        return None

    def occupied(self) -> dict[Pos, Creature]:
        """Returns the creatures by square."""
        return {c.pos: c for c in self.creatures.values()}

    def loose_orb_at(self, pos: Pos) -> str | None:
        """Returns the loose orb on ``pos``, if any."""
        for name, p in self.orbs.items():
            if p == pos:
                return name
        return None

    def portal_at(self, pos: Pos) -> str | None:
        """Returns the portal on ``pos``, if any."""
        for pid, p in self.portals.items():
            if p == pos:
                return pid
        return None

    def creature_pos_of_orb(self, orb: str) -> Pos | None:
        """Returns where ``orb`` is: its square or its carrier's square."""
        p = self.orbs.get(orb)
        if p is not None:
            return p
        cid = self.carrier.get(orb)
        return self.creatures[cid].pos if cid in self.creatures else None

    def roll(
        self,
        purpose: str,
        dice: list[tuple[int, int, int | None]],
        then: Frame,
        alterable: bool = True,
        roller: int | None = None,
    ) -> None:
        """Schedules a roll of ``dice``, then the Alter Reality window, then ``then`` with the results.

        Each die is ``(sides, low, high)``: the bounds an Alter Reality card may not cross
        (``None`` for an unbounded combat or throw roll). The dice are drawn when the roll frame
        runs (so frames pushed later roll first); the results land in ``then["dice"]`` and count
        as natural (``then["natural"]``) until a card alters them. The caller pushes whatever
        must follow ``then`` before calling this. ``roller`` is the seat the ``roll`` event names
        (the rolling player), the active player when not given.
        """
        self.stack.append(then)
        self.push(
            "do_roll",
            purpose=purpose,
            sides=[d[0] for d in dice],
            bounds=[[d[1], d[2] if d[2] is not None else 999] for d in dice],
            ref=then,
            alterable=alterable,
            roller=roller,
        )

    def open_window(self, name: str, seats: list[int], prompt: str, **data: object) -> None:
        """Opens held window ``name`` (a window decision registered by ``cards``) for ``seats``, in that order.

        It resolves when the last seat has answered. Every seat is asked whatever it holds (a seat is
        skipped only when public facts leave it nothing to play, e.g. no enchantment in play for a
        Dispel), and no answer changes anything until the window closes: then the answers take effect
        in seat order (see ``cards._window_close``). The decisions share the id ``wid``
        (``Decision.window``).
        """
        if not seats:
            return
        self.window_seq += 1
        answers: list[list[object]] = []
        self.push("window_close", window=name, seats=list(seats), answers=answers, prompt=prompt, data=dict(data))
        self.push(name, queue=list(seats), answers=answers, wid=f"w{self.window_seq}", prompt=prompt, **data)

    def finish(self, outcome: Outcome) -> None:
        """Ends the match with ``outcome`` (once)."""
        if self.end(outcome):
            self.emit("end", {"ranks": list(outcome.ranks), "detail": outcome.reason, "values": list(outcome.scores)})

    def do_roll(self, f: Frame) -> None:
        """Runs a ``do_roll`` frame: draws the dice, then opens the Alter Reality window."""
        values = [self.chance.roll(n) for n in f["sides"]]
        then: Frame = f["ref"]
        then["dice"] = values
        then["natural"] = [True] * len(values)
        then["bounds"] = f["bounds"]
        # A copy: Alter Reality changes ``then["dice"]`` later, and an emitted event never changes.
        roller = f.get("roller")
        self.emit(
            "roll", {"purpose": f["purpose"], "dice": list(values), "seat": self.active if roller is None else roller}
        )
        if f["alterable"]:
            # ``cards`` opens it (a held window for every live seat, see ``cards._alter_open``).
            self.push("alter_open", ref=then, purpose=f["purpose"], prompt="alter the roll?")

    # -- the contract (the other verbs are the interpreter's) ---------------------------------

    def observe(self, viewer: Seat | None) -> JSONDict:
        """Returns what ``viewer`` may see (``observation.observe``, registered with :func:`observer`)."""
        return _OBSERVER[0](self, viewer)

    def determinize(self, viewer: Seat | None, chance: Chance) -> SBMatch:
        """Returns a copy with every card hidden from ``viewer`` dealt anew.

        The deck and the other seats' hands are dealt from one pool; the unseen part of the orb deck
        (above the cards returned face up to its bottom) and the personal creature decks are reshuffled.
        """
        other = copy.deepcopy(self)
        other.chance = chance
        hidden = [s for s in range(self.seats) if s != viewer]
        pool = list(other.deck) + [c for s in hidden for c in other.hands[s]]
        chance.shuffle(pool)
        for s in hidden:
            n = len(other.hands[s])
            other.hands[s], pool = pool[:n], pool[n:]
        other.deck = pool
        hidden_orbs = len(other.orb_deck) - other.orb_known
        top = other.orb_deck[:hidden_orbs]
        chance.shuffle(top)
        other.orb_deck[:hidden_orbs] = top
        for s in range(self.seats):
            chance.shuffle(other.personal[s])
        return other


@step("do_roll")
def _do_roll(m: SBMatch, f: Frame) -> None:
    m.do_roll(f)
