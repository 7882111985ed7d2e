"""The step interpreter both rules engines run on: typed frames on a stack, and the contract's verbs.

A match's future is a stack of :class:`Frame` values, the top last. Each frame names a registered
entry of the game's :class:`Rules` and carries that entry's arguments. There are two kinds of entry:

* a **step** is popped and then run as ``handler(match, frame, None)``. It pushes further frames,
  changes the state, emits events, and returns ``None``; or it returns a :class:`Pending` to wait
  for a seat's answer, and is then called again as ``handler(match, frame, option_id)``.
* a **standing decision** stays on top of the stack while it asks: its ``options(match, frame)``
  give the options (none: it is skipped), and ``apply(match, frame, option)`` takes the answer and
  pops the frame itself when the decision is done (a turn's main decision stays for several
  answers). A *window* decision asks each seat of ``frame["queue"]`` in turn.

:class:`StepMatch` runs the stack until a decision with options is pending or the match ends, and
writes the contract's verbs (``to_move``, ``legal_options``, ``apply``, ``events``, ``outcome``,
``window_decisions`` and deep copying) once for every engine on it. Because frames are plain data
with no reference outside the match, a match deep-copies cleanly (for ``determinize``), and the
order of dice depends on nothing but the decisions taken.

This module is machinery only: it holds no rule of any game, and does no I/O.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from referee.core.contract import EVERYONE, Decision, Event, JSONDict, Match, Option, Outcome, visible_events
from referee.core.errors import MatchOverError
from referee.core.ids import Seat


@dataclass(slots=True)
class Frame:
    """One scheduled step or decision: the name of its registered entry and its arguments.

    A frame reads and writes its arguments as a mapping (``frame["seat"]``), since a step often
    leaves a result for a later one (a roll writes ``then["dice"]``). Arguments are plain data or
    other frames of the same match.
    """

    name: str
    """The registered step or decision that runs this frame."""
    args: dict[str, Any] = field(default_factory=dict)
    """The entry's arguments, by name."""

    def __getitem__(self, key: str) -> Any:
        return self.args[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.args[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self.args

    def __iter__(self) -> Iterator[str]:
        return iter(self.args)

    def get(self, key: str, default: Any = None) -> Any:
        """Returns argument ``key``, or ``default`` when the frame has none."""
        return self.args.get(key, default)

    def copy(self) -> Frame:
        """Returns a frame of the same entry with a shallow copy of the arguments."""
        return Frame(self.name, dict(self.args))

    def but(self, **changes: Any) -> Frame:
        """Returns a frame of the same entry with the arguments ``changes`` replaced or added."""
        return Frame(self.name, {**self.args, **changes})

    def __deepcopy__(self, memo: dict[int, Any]) -> Frame:
        other = Frame(self.name, {})
        memo[id(self)] = other
        other.args = copy.deepcopy(self.args, memo)
        return other


@dataclass(slots=True)
class Pending:
    """The decision the stack waits for: who decides, what about, the options and the default."""

    seat: int
    """The deciding seat."""
    kind: str
    """The decision kind (:attr:`Decision.kind`)."""
    prompt: str
    """A short English prompt."""
    options: list[Option]
    """The legal options, in their fixed order (never empty)."""
    default: str
    """The option id applied on a late answer."""
    frame: Frame
    """The frame that answers: a step called again with the choice, or a standing decision."""
    window: str | None = None
    """The id of the held out-of-turn window this decision belongs to (:attr:`Decision.window`)."""
    decision: Decision | None = field(default=None, compare=False, repr=False)
    """This decision as :meth:`StepMatch.to_move` returns it, made on the first call (the referee
    asks three times per decision)."""

    def chosen(self, option_id: str) -> Option | None:
        """Returns the option with id ``option_id``, or ``None`` if it is not one of them."""
        for option in self.options:
            if option.id == option_id:
                return option
        return None


StepHandler = Callable[[Any, Frame, "str | None"], "Pending | None"]
"""``handler(match, frame, choice)``: a step, called with ``None`` first and with the chosen id if it waited."""
OptionsFn = Callable[[Any, Frame], list[Option]]
"""The options of a standing decision for the seat it asks now."""
ApplyFn = Callable[[Any, Frame, Option], None]
"""Takes the answer of a standing decision; pops its frame when the decision is done."""


@dataclass(frozen=True, slots=True)
class StandingDecision:
    """A registered decision that stays on top of the stack while it asks."""

    name: str
    kind: str
    options: OptionsFn
    apply: ApplyFn
    default: str
    """The late answer: an option id, or ``"first"`` (the first option); an id that is not legal at
    the time falls back to the first option."""
    window: bool
    """A window asks ``frame["queue"]`` of seats in order, skipping a seat with no option; a window
    frame with a ``wid`` holds its answers until it closes, so its seats may be asked at once."""

    def seat(self, frame: Frame) -> int:
        """Returns the seat this decision asks now."""
        return int(frame["queue"][0]) if self.window else int(frame["seat"])

    def pending(self, frame: Frame, options: list[Option]) -> Pending:
        """Returns the pending decision of ``frame`` with ``options``, for the seat it asks now."""
        default = self.default
        if default == "first":
            default = options[0].id
        else:
            for o in options:
                if o.id == default:
                    break
            else:
                default = options[0].id
        args = frame.args
        return Pending(
            int(args["queue"][0]) if self.window else int(args["seat"]),
            self.kind,
            args.get("prompt", self.kind),
            options,
            default,
            frame,
            args.get("wid"),
        )


ACTION, STEP, STANDING = 0, 1, 2
"""The kinds of entry in :attr:`Rules.table`."""


class Rules:
    """One game's registry of steps and standing decisions, filled by its rules modules on import."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.steps: dict[str, StepHandler] = {}
        """The steps by name (an action is wrapped as a step that never waits)."""
        self.decisions: dict[str, StandingDecision] = {}
        """The standing decisions by name."""
        self.table: dict[str, tuple[int, Any]] = {}
        """What the interpreter runs, by name: ``(ACTION, fn)``, ``(STEP, handler)`` or ``(STANDING, decision)``."""

    def _free(self, name: str) -> None:
        if name in self.table:
            raise ValueError(f"{self.game}: step {name!r} is registered twice")

    def step(self, name: str) -> Callable[[StepHandler], StepHandler]:
        """Registers the decorated ``handler(match, frame, choice)`` as step ``name``."""

        def wrap(fn: StepHandler) -> StepHandler:
            self._free(name)
            self.steps[name] = fn
            self.table[name] = (STEP, fn)
            return fn

        return wrap

    def action(self, name: str) -> Callable[[Callable[[Any, Frame], None]], Callable[[Any, Frame], None]]:
        """Registers the decorated ``fn(match, frame)`` as step ``name``, a step that never waits."""

        def wrap(fn: Callable[[Any, Frame], None]) -> Callable[[Any, Frame], None]:
            def handler(m: Any, frame: Frame, choice: str | None) -> Pending | None:
                fn(m, frame)
                return None

            self._free(name)
            self.steps[name] = handler
            self.table[name] = (ACTION, fn)
            return fn

        return wrap

    def decision(
        self, name: str, kind: str, options: OptionsFn, default: str = "pass", window: bool = False
    ) -> Callable[[ApplyFn], ApplyFn]:
        """Registers standing decision ``name`` with its option generator; decorates its apply function."""

        def wrap(fn: ApplyFn) -> ApplyFn:
            self._free(name)
            spec = StandingDecision(name, kind, options, fn, default, window)
            self.decisions[name] = spec
            self.table[name] = (STANDING, spec)
            return fn

        return wrap


class StepMatch(Match):
    """A match run by the step interpreter; an engine subclasses it and sets :attr:`rules`.

    The subclass's constructor calls :meth:`start_steps` and builds its state; the game pushes the
    first frames and calls :meth:`run`. The engine ends the match by calling :meth:`end`.
    """

    rules: ClassVar[Rules]
    """The game's registry of steps and decisions."""
    shared_on_copy: ClassVar[frozenset[str]] = frozenset()
    """Attributes a deep copy shares with the original (immutable content; a chance source shared on
    purpose). Events are frozen: a copy gets a new list of the same events."""

    def start_steps(self) -> None:
        """Sets up the interpreter's state: an empty stack, no pending decision, no events."""
        self.stack: list[Frame] = []
        self.pending: Pending | None = None
        self._events: list[Event] = []
        self._outcome: Outcome | None = None

    # -- scheduling ---------------------------------------------------------------------------

    def push(self, name: str, **args: Any) -> Frame:
        """Pushes a frame of entry ``name``; it runs before everything already on the stack."""
        frame = Frame(name, args)
        self.stack.append(frame)
        return frame

    def push_all(self, frames: Iterable[Frame]) -> None:
        """Pushes ``frames`` so that they run in the order given, before everything already on the stack."""
        self.stack.extend(reversed(list(frames)))

    def emit(self, kind: str, data: JSONDict, to: Iterable[int] | None = None) -> None:
        """Appends an event; ``to`` names the seats of a private event (empty: the log only)."""
        vis = None if to is None else frozenset(Seat(s) for s in to)
        self._events.append(Event(len(self._events), kind, data, vis))

    def end(self, outcome: Outcome) -> bool:
        """Ends the match with ``outcome``; returns ``False`` (and changes nothing) if it had ended."""
        if self._outcome is not None:
            return False
        self._outcome = outcome
        self.pending = None
        self.stack.clear()
        return True

    # -- the interpreter ----------------------------------------------------------------------

    def run(self) -> None:
        """Runs frames until a decision with options is pending or the match ends."""
        table = self.rules.table
        stack = self.stack
        while self.pending is None and self._outcome is None:
            if not stack:
                raise RuntimeError(f"{self.rules.game}: the step stack ran empty before the match ended")
            top = stack[-1]
            kind, entry = table[top.name]
            if kind == ACTION:
                stack.pop()
                entry(self, top)
            elif kind == STEP:
                stack.pop()
                self.pending = entry(self, top, None)
            else:
                options = entry.options(self, top)
                if options:
                    self.pending = entry.pending(top, options)
                elif entry.window and len(top["queue"]) > 1:
                    top["queue"].pop(0)
                else:
                    stack.pop()

    # -- the contract -------------------------------------------------------------------------

    def to_move(self) -> Decision | None:
        """Returns the pending decision, or ``None`` when the match is over."""
        p = self.pending
        if self._outcome is not None or p is None:
            return None
        d = p.decision
        if d is None:
            d = p.decision = Decision(Seat(p.seat), p.kind, p.prompt, p.default, p.window)
        return d

    def legal_options(self) -> Sequence[Option]:
        """Returns the options of the pending decision, in their fixed order; empty when over."""
        if self._outcome is not None or self.pending is None:
            return ()
        return tuple(self.pending.options)

    def apply(self, option_id: str) -> Sequence[Event]:
        """Takes option ``option_id`` for the deciding seat and runs until the next decision.

        Raises:
            IllegalOptionError: ``option_id`` is not legal now.
            MatchOverError: the match is over.
        """
        p = self.pending
        if self._outcome is not None or p is None:
            raise MatchOverError(f"the {self.info.name} match is over; no option can be taken")
        if p.chosen(option_id) is None:
            self.option(option_id)  # raises IllegalOptionError naming the legal options
        start = len(self._events)
        self.answer(p, option_id)
        self.run()
        return self._events[start:]

    def answer(self, p: Pending, option_id: str) -> None:
        """Hands the pending decision ``p`` the (legal) answer ``option_id`` without running on."""
        self.pending = None
        kind, entry = self.rules.table[p.frame.name]
        if kind == STANDING:
            option = p.chosen(option_id)
            assert option is not None
            entry.apply(self, p.frame, option)
        else:
            self.pending = entry(self, p.frame, option_id)

    def window_followers(self, first: Decision) -> list[tuple[Decision, Sequence[Option]]]:
        """Returns the later seats of the pending held window, read from the window's queue, without copying.

        A held window's options depend only on the match and the seat asked (``queue[0]``), never on
        the answers held so far, so each later seat's options are those of the frame with the queue
        starting at it; a seat with none is skipped, as :meth:`run` skips it. A pending step (not a
        standing window) falls back to the contract's walk on a copy.
        """
        p = self.pending
        assert p is not None
        standing = self.rules.decisions.get(p.frame.name)
        if standing is None or not standing.window:
            return super().window_followers(first)
        queue = list(p.frame["queue"])
        out: list[tuple[Decision, Sequence[Option]]] = []
        for i in range(1, len(queue)):
            view = p.frame.but(queue=queue[i:])
            options = standing.options(self, view)
            if options:
                later = standing.pending(view, options)
                out.append(
                    (Decision(Seat(later.seat), later.kind, later.prompt, later.default, first.window), tuple(options))
                )
        return out

    def events(self, since: int = 0, viewer: Any = EVERYONE) -> list[Event]:
        """Returns the events from ``since`` that ``viewer`` may see."""
        return visible_events(self._events, since, viewer)

    def outcome(self) -> Outcome | None:
        """Returns the outcome once the match is over, else ``None``."""
        return self._outcome

    def __deepcopy__(self, memo: dict[int, Any]) -> StepMatch:
        other = type(self).__new__(type(self))
        memo[id(self)] = other
        shared = self.shared_on_copy
        for key, value in self.__dict__.items():
            if key in shared or key == "_outcome":
                other.__dict__[key] = value
            elif key == "_events":
                other.__dict__[key] = list(value)
            else:
                other.__dict__[key] = copy.deepcopy(value, memo)
        return other
