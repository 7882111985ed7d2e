"""The ScrumBrawl match: state, the step interpreter and the seven verbs of the contract.

Play is a stack of frames (plain dicts). A frame names a registered *step* (run once and popped)
or a registered *decision* (it stays on top until a seat answers). Rules modules register their
steps and decisions by name with :func:`step` and :func:`decision`; this module only runs them.
Because frames are data, a match deep-copies cleanly for :meth:`SBMatch.determinize`, and the
order of dice never depends on anything but the decisions taken.

This module holds no rule of the game itself: see ``turn``, ``movement``, ``orbs``, ``combat``,
``creatures``, ``cards`` and ``scoring``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.core.chance import Chance
from referee.core.contract import (
    EVERYONE,
    Decision,
    Event,
    GameInfo,
    JSONDict,
    Match,
    Option,
    Outcome,
    visible_events,
)
from referee.core.errors import IllegalOptionError, MatchOverError
from referee.core.ids import Seat

INFO = GameInfo("scrumbrawl", "ScrumBrawl", "3", min_seats=2, max_seats=4)

Frame = dict[str, Any]
Pos = tuple[int, int]
StepFn = Callable[["SBMatch", Frame], None]
OptionsFn = Callable[["SBMatch", Frame], list[Option]]
ApplyFn = Callable[["SBMatch", Frame, Option], None]


@dataclass(frozen=True, slots=True)
class DecisionSpec:
    """A registered decision: who decides, its options, what an answer does, the default."""

    name: str
    kind: str
    options: OptionsFn
    apply: ApplyFn
    default: str
    """``"pass"``, ``"end"``, ``"first"`` or another option id applied on a late answer."""
    window: bool
    """A window walks ``frame["queue"]`` of seats; a seat with no legal option is skipped. A window
    frame with a ``wid`` holds its answers until it closes (see ``cards.open_window``)."""


STEPS: dict[str, StepFn] = {}
DECISIONS: dict[str, DecisionSpec] = {}


def step(name: str) -> Callable[[StepFn], StepFn]:
    """Registers a step function under ``name``."""

    def wrap(fn: StepFn) -> StepFn:
        STEPS[name] = fn
        return fn

    return wrap


def decision(
    name: str, kind: str, options: OptionsFn, default: str = "pass", window: bool = False
) -> Callable[[ApplyFn], ApplyFn]:
    """Registers a decision under ``name`` with its option generator; decorates the apply function."""

    def wrap(fn: ApplyFn) -> ApplyFn:
        DECISIONS[name] = DecisionSpec(name, kind, options, fn, default, window)
        return fn

    return wrap


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


class SBMatch(Match):
    """One ScrumBrawl match. Build it with :class:`referee.games.scrumbrawl.ScrumBrawl`."""

    info = INFO

    def __init__(self, config: Mapping[str, Any], seats: int, chance: Chance) -> None:
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
        self.stack: list[Frame] = []
        self._events: list[Event] = []
        self._outcome: Outcome | None = None
        self._options: list[Option] | None = None
        self._by_id: dict[str, Option] = {}

    # -- plumbing used by the rules modules ---------------------------------------------------

    def push(self, name: str, **data: Any) -> Frame:
        """Pushes a frame named ``name``; it runs before everything already on the stack."""
        frame: Frame = {"s": name, **data}
        self.stack.append(frame)
        return frame

    def emit(self, kind: str, data: JSONDict, to: Sequence[int] | None = None) -> None:
        """Appends an event; ``to`` lists the seats of a private event."""
        vis = None if to is None else frozenset(Seat(s) for s in to)
        self._events.append(Event(len(self._events), kind, data, vis))

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

    def roll(self, purpose: str, dice: list[tuple[int, int, int | None]], then: Frame, alterable: bool = True) -> None:
        """Schedules a roll of ``dice``, then the Alter Reality window, then ``then`` with the results.

        Each die is ``(sides, low, high)``: the bounds an Alter Reality card may not cross
        (``None`` for an unbounded combat or throw roll). The dice are drawn when the roll frame
        runs (so frames pushed later roll first); the results land in ``then["dice"]`` and count
        as natural (``then["natural"]``) until a card alters them. The caller pushes whatever
        must follow ``then`` before calling this.
        """
        self.stack.append(then)
        self.push(
            "do_roll",
            purpose=purpose,
            sides=[d[0] for d in dice],
            bounds=[[d[1], d[2] if d[2] is not None else 999] for d in dice],
            ref=then,
            alterable=alterable,
        )

    def finish(self, outcome: Outcome) -> None:
        """Ends the match with ``outcome``."""
        if self._outcome is None:
            self._outcome = outcome
            self.emit("end", {"ranks": list(outcome.ranks), "detail": outcome.reason, "values": list(outcome.scores)})
            self.stack.clear()

    def do_roll(self, f: Frame) -> None:
        """Runs a ``do_roll`` frame: draws the dice, then opens the Alter Reality window."""
        values = [self.chance.roll(n) for n in f["sides"]]
        then: Frame = f["ref"]
        then["dice"] = values
        then["natural"] = [True] * len(values)
        then["bounds"] = f["bounds"]
        # A copy: Alter Reality changes ``then["dice"]`` later, and an emitted event never changes.
        self.emit("roll", {"purpose": f["purpose"], "dice": list(values), "seat": self.active})
        if f["alterable"]:
            # ``cards`` opens it (a held window for every live seat, see ``cards._alter_open``).
            self.push("alter_open", ref=then, purpose=f["purpose"], prompt="alter the roll?")

    def run(self) -> None:
        """Runs steps until a decision with legal options is on top, or the match ends."""
        self._options = None
        while self._outcome is None:
            if not self.stack:
                raise RuntimeError("scrumbrawl: the step stack ran empty before the match ended")
            top = self.stack[-1]
            spec = DECISIONS.get(top["s"])
            if spec is None:
                self.stack.pop()
                if top["s"] == "do_roll":
                    self.do_roll(top)
                else:
                    STEPS[top["s"]](self, top)
                continue
            opts = spec.options(self, top)
            if opts:
                self._options = opts
                self._by_id = {o.id: o for o in opts}
                return
            if spec.window and len(top["queue"]) > 1:
                top["queue"].pop(0)
            else:
                self.stack.pop()

    def decider(self, frame: Frame) -> int:
        """Returns the seat deciding ``frame``."""
        spec = DECISIONS[frame["s"]]
        return int(frame["queue"][0]) if spec.window else int(frame["seat"])

    # -- the contract --------------------------------------------------------------------------

    def to_move(self) -> Decision | None:
        """Returns the pending decision, or ``None`` when the match is over."""
        if self._outcome is not None or self._options is None:
            return None
        top = self.stack[-1]
        spec = DECISIONS[top["s"]]
        default = spec.default
        if default == "first" or default not in self._by_id:
            default = self._options[0].id
        return Decision(Seat(self.decider(top)), spec.kind, top.get("prompt", spec.kind), default, top.get("wid"))

    def window_decisions(self) -> list[tuple[Decision, Sequence[Option]]]:
        """Returns every decision of the pending held window, in order, without copying the match.

        A held window's options depend only on the match and the seat asked (``queue[0]``), never on
        the answers held so far, so each later seat's options are those of the frame with the queue
        starting at it; a seat with none is skipped, as :meth:`run` skips it. Agrees with the
        contract's generic walk (``tests/referee/test_windows.py`` checks it on random games).
        """
        first = self.to_move()
        if first is None:
            return []
        out: list[tuple[Decision, Sequence[Option]]] = [(first, tuple(self.legal_options()))]
        if first.window is None:
            return out
        top = self.stack[-1]
        spec = DECISIONS[top["s"]]
        queue = list(top["queue"])
        for i in range(1, len(queue)):
            view = {**top, "queue": queue[i:]}
            opts = spec.options(self, view)
            if not opts:
                continue
            default = spec.default
            if default == "first" or default not in {o.id for o in opts}:
                default = opts[0].id
            out.append(
                (Decision(Seat(queue[i]), spec.kind, top.get("prompt", spec.kind), default, first.window), tuple(opts))
            )
        return out

    def legal_options(self) -> Sequence[Option]:
        """Returns the options of the pending decision."""
        if self._outcome is not None or self._options is None:
            return ()
        return self._options

    def apply(self, option_id: str) -> Sequence[Event]:
        """Applies ``option_id`` for the deciding seat and runs until the next decision.

        Raises:
            IllegalOptionError: ``option_id`` is not legal now.
            MatchOverError: the match is over.
        """
        if self._outcome is not None:
            raise MatchOverError("the scrumbrawl match is over; no option can be taken")
        opt = self._by_id.get(option_id)
        if opt is None or self._options is None:
            self.option(option_id)
            raise IllegalOptionError(f"{option_id!r} is not legal")
        start = len(self._events)
        top = self.stack[-1]
        DECISIONS[top["s"]].apply(self, top, opt)
        self.run()
        return self._events[start:]

    def observe(self, viewer: Seat | None) -> JSONDict:
        """Returns what ``viewer`` may see (see ``observation``)."""
        from referee.games.scrumbrawl.observation import observe

        return observe(self, viewer)

    def events(self, since: int = 0, viewer: Any = EVERYONE) -> list[Event]:
        """Returns the events from ``since`` that ``viewer`` may see."""
        return visible_events(self._events, since, viewer)

    def outcome(self) -> Outcome | None:
        """Returns the outcome once the match is over."""
        return self._outcome

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

    def __deepcopy__(self, memo: dict[int, Any]) -> SBMatch:
        other = type(self).__new__(type(self))
        memo[id(self)] = other
        for key, value in self.__dict__.items():
            if key == "chance":
                other.__dict__[key] = value
            elif key == "_events":
                other.__dict__[key] = list(value)
            else:
                other.__dict__[key] = copy.deepcopy(value, memo)
        return other
