"""The game contract: what every rules engine offers to the referee, the tests and the bots.

A game is two objects. A :class:`Game` is a factory with metadata: it validates a config and
creates matches. A :class:`Match` is one game in progress, and it has seven verbs:

========================  ===============================================================
``to_move()``             who must decide now, and what kind of decision it is
``legal_options()``       the options of that decision, in a fixed order, with stable ids
``apply(option_id)``      take one option; returns the events it caused
``observe(viewer)``       the view of one seat, or of a spectator, hidden information removed
``events(since, viewer)`` the events from a point on, filtered for a viewer
``outcome()``             the result once the match is over, else ``None``
``determinize(viewer)``   a copy in which all that ``viewer`` cannot see is dealt anew
========================  ===============================================================

Every match also gets ``chance_outcomes(option_id)``: the dice an option rolls, as data (each
outcome with its probability and the match it leads to), for search bots.

Exactly one seat decides at a time. A reaction, an interrupt card or a hidden simultaneous
choice is an ordinary decision for another seat. Every value crossing this boundary is plain
JSON data (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``, ``None``) or a frozen
dataclass of this module, so the server, the workers and the web app never reach inside.

This module is not the server's policy: timeouts, strikes and forfeits are decided by the
referee, which ends a match itself with :func:`forfeit_outcome`.
"""

from __future__ import annotations

import abc
import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

from referee.core.chance import Chance, ChanceOutcome, chance_outcomes
from referee.core.errors import ConfigError
from referee.core.ids import Seat

JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"
"""Plain data that serialises to JSON as it is."""

JSONDict = dict[str, Any]
"""A JSON object; the shape of each game's objects is its ``.proto`` message."""


@dataclass(frozen=True, slots=True)
class Option:
    """One legal option of the pending decision.

    Ids are stable: the same choice in the same position always has the same id, and the id is
    readable (``"move:r3c4"``, ``"card:c17"``, ``"pass"``). ``params`` describes the option in
    structured form, so that a bot never has to re-implement the rules to know what it chooses.
    """

    id: str
    """Stable id, unique among the options of one decision; what a bot answers with."""
    kind: str
    """What sort of option this is: ``"move"``, ``"attack"``, ``"play_card"``, ``"pass"``..."""
    label: str
    """A short English description for people reading logs and replays."""
    params: JSONDict = field(default_factory=dict)
    """Structured description; its shape is the game's ``OptionParams`` proto message."""

    def __hash__(self) -> int:
        return hash((self.kind, self.id))

    def to_json(self) -> JSONDict:
        """Returns the option as plain data."""
        return {"id": self.id, "kind": self.kind, "label": self.label, "params": self.params}


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision a match is waiting for."""

    seat: Seat
    """The seat that must decide."""
    kind: str
    """The kind of decision, such as ``"main"``, ``"reaction"``, ``"alter_reality"``."""
    prompt: str
    """A short English prompt for logs."""
    default_option_id: str
    """What the referee applies when the seat answers late; documented per kind by each game."""
    window: str | None = None
    """Set on the decisions of one out-of-turn window, the same id for each seat asked in it. The
    engine guarantees that no seat's options or observation in the window depend on another seat's
    answer in it (answers are held until the last seat of the window has answered), so the seats of
    one window may be asked in parallel and their answers applied in the engine's order."""

    def to_json(self) -> JSONDict:
        """Returns the decision as plain data."""
        out: JSONDict = {
            "seat": self.seat,
            "kind": self.kind,
            "prompt": self.prompt,
            "default_option_id": self.default_option_id,
        }
        if self.window is not None:
            out["window"] = self.window
        return out


class Termination(StrEnum):
    """Why a match ended."""

    VICTORY = "victory"
    """A seat (or team) met the game's victory condition."""
    ROUND_CAP = "round_cap"
    """The documented round or turn cap was reached and the tie rule decided."""
    LAST_STANDING = "last_standing"
    """Every other seat was eliminated."""
    FORFEIT = "forfeit"
    """The referee ended the match because a seat forfeited (timeouts, strikes, disconnect)."""
    CANCELLED = "cancelled"
    """The match was cancelled and counts for nobody."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a match, as data.

    ``ranks`` holds one rank per seat: 1 is first, equal ranks are a tie. A two-player win is
    ``(1, 2)``, a draw ``(1, 1)``; in team play team-mates share a rank.
    """

    ranks: tuple[int, ...]
    """Rank per seat, 1 best; equal ranks tie."""
    termination: Termination
    """Why the match ended."""
    reason: str = ""
    """One English sentence for people: ``"blue reached 5 VP"``."""
    scores: tuple[int, ...] = ()
    """The game's own score per seat (VP, chips), for display; empty if the game has none."""

    @property
    def winners(self) -> tuple[Seat, ...]:
        """The seats ranked first (several on a tie or a team win)."""
        return tuple(Seat(i) for i, r in enumerate(self.ranks) if r == 1)

    @property
    def is_draw(self) -> bool:
        """Whether every seat shares first place."""
        return len(set(self.ranks)) == 1

    def to_json(self) -> JSONDict:
        """Returns the outcome as plain data."""
        return {
            "ranks": list(self.ranks),
            "termination": self.termination.value,
            "reason": self.reason,
            "scores": list(self.scores),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        """Builds an outcome from :meth:`to_json` data."""
        return cls(
            ranks=tuple(int(r) for r in data["ranks"]),
            termination=Termination(data["termination"]),
            reason=str(data.get("reason", "")),
            scores=tuple(int(s) for s in data.get("scores", ())),
        )


def forfeit_outcome(seats: int, losers: Sequence[Seat], reason: str) -> Outcome:
    """Returns the outcome of a match that the referee ends because ``losers`` forfeited.

    The seats still in the match share first place; the forfeiting seats share last place.
    """
    lost = set(losers)
    ranks = tuple(2 if Seat(i) in lost else 1 for i in range(seats))
    if all(r == 2 for r in ranks):
        ranks = tuple(1 for _ in range(seats))
    return Outcome(ranks=ranks, termination=Termination.FORFEIT, reason=reason)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for viewers and replays.

    Events are numbered from 0 in the order they happened. An event seen by everyone has
    ``visible_to`` ``None``; a private one (a card drawn into a hand) names its seats.
    """

    index: int
    """Position in the match's full event log, from 0 (the engine's and the replay's numbering). A
    viewer is never sent this number: the referee numbers the events each viewer may see densely,
    from 0, in its own sequence (docs/bot-protocol.md, "Numbering")."""
    kind: str
    """What happened: ``"roll"``, ``"move"``, ``"attack"``, ``"draw"``..."""
    data: JSONDict
    """Details; its shape is the game's ``Event`` proto message."""
    visible_to: frozenset[Seat] | None = None
    """The seats that may see this event; ``None`` for a public event."""

    def visible(self, viewer: Seat | None) -> bool:
        """Whether ``viewer`` (``None`` for a spectator) may see this event."""
        return self.visible_to is None or (viewer is not None and viewer in self.visible_to)

    def to_json(self) -> JSONDict:
        """Returns the event as plain data."""
        out: JSONDict = {"i": self.index, "kind": self.kind, "data": self.data}
        if self.visible_to is not None:
            out["to"] = sorted(self.visible_to)
        return out


class _Everyone:
    """The omniscient viewer, for replays and audits only; never sent to a bot or spectator."""

    def __repr__(self) -> str:
        return "EVERYONE"


EVERYONE = _Everyone()
"""Pass as ``viewer`` to :meth:`Match.events` to get every event unfiltered."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Declarative facts about a game (compare OpenSpiel's game type).

    A game has one, defined once: its :class:`Game` and every :class:`Match` it creates return
    the same object. Whoever needs to know which table sizes a game takes reads
    :attr:`seat_counts` (or calls :meth:`check_seats`); nothing asks ``parse_config``.
    """

    name: str
    """Registry name, lower case: ``"scrumbrawl"``."""
    title: str
    """Display name: ``"ScrumBrawl"``."""
    rules_version: str
    """Bumped whenever a change alters any trajectory; replays record it."""
    seat_counts: frozenset[int]
    """Every table size a match may have, exactly: ``frozenset({2, 4})`` for a game of duels and 2v2."""
    has_chance: bool = True
    """Whether the game uses dice, shuffles or random picks."""
    has_hidden_information: bool = True
    """Whether some seat ever may not see part of the state."""
    table_sizes: tuple[int, ...] = (2,)
    """Seats per match the ladder schedules, preferred first: ``(2,)`` for duels, ``(4, 3)`` for pods.

    Each is one of :attr:`seat_counts`."""
    free_for_all: bool = False
    """Whether a table of three or more seats is every seat for itself (a pod) unless a team split applies."""
    teams: tuple[TeamSplit, ...] = ()
    """How seats split into teams, per table size; a table size not listed has no teams."""
    time_control: TimeControl = field(default_factory=lambda: TimeControl())
    """The default time control of a match of this game; a match may override it field by field."""
    board: Mapping[str, Any] | None = field(default=None, compare=False)
    """The fixed board layout a viewer draws (plain data; ``kind`` ``"hex"`` or ``"square"``), or ``None``."""
    private_decisions: frozenset[str] = frozenset()
    """The decision kinds whose very asking depends on the asked seat's hidden information (Super
    Fantasy Brawl's ``reaction``: a window opens only for a defender holding a playable reaction).
    Every other kind is asked on public facts alone. The referee keeps a private decision out of
    everything another seat or a spectator receives: numbering, counts and the moments spectators
    are updated (docs/bot-protocol.md, "Numbering")."""

    def __post_init__(self) -> None:
        counts = self.seat_counts
        if not isinstance(counts, frozenset) or not counts:
            raise ValueError(f"{self.name}: seat_counts must be a non-empty frozenset of table sizes, got {counts!r}")
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in counts):
            raise ValueError(f"{self.name}: every seat count must be a positive integer, got {sorted(counts)!r}")
        if not self.table_sizes or len(set(self.table_sizes)) != len(self.table_sizes):
            raise ValueError(f"{self.name}: table_sizes must name each ladder size once, got {self.table_sizes!r}")
        kinds = self.private_decisions
        if not isinstance(kinds, frozenset) or not all(isinstance(k, str) and k for k in kinds):
            raise ValueError(f"{self.name}: private_decisions must be a frozenset of decision kinds, got {kinds!r}")
        for n in (*self.table_sizes, *(split.seats for split in self.teams)):
            if n not in counts:
                raise ValueError(f"{self.name}: table size {n} is not one of its seat counts {self.seats_text()}")

    @property
    def min_seats(self) -> int:
        """Fewest seats a match may have (the smallest of :attr:`seat_counts`)."""
        return min(self.seat_counts)

    @property
    def max_seats(self) -> int:
        """Most seats a match may have (the largest of :attr:`seat_counts`)."""
        return max(self.seat_counts)

    def seats_text(self) -> str:
        """The seat counts in words, for messages: ``"2 or 4"``, ``"2, 3 or 4"``."""
        counts = [str(n) for n in sorted(self.seat_counts)]
        return counts[0] if len(counts) == 1 else f"{', '.join(counts[:-1])} or {counts[-1]}"

    def check_seats(self, seats: int) -> None:
        """Refuses a table size the game does not take.

        Raises:
            ConfigError: ``seats`` is not one of :attr:`seat_counts`; the message names both.
        """
        if isinstance(seats, bool) or seats not in self.seat_counts:
            raise ConfigError(f"{self.name} is played by {self.seats_text()} seats, got {seats!r}")

    def team_of(self, config: Mapping[str, Any], seats: int) -> tuple[int, ...]:
        """Returns the team of each seat of a match of ``seats`` seats with ``config``; ``()`` without teams."""
        for split in self.teams:
            if split.seats == seats and (split.when is None or config.get(split.when) is True):
                return split.team_of_seat
        return ()


@dataclass(frozen=True, slots=True)
class TeamSplit:
    """How the seats of one table size form teams (compare OpenSpiel's ``GameType``, which has no teams)."""

    seats: int
    """The table size this split applies to."""
    team_of_seat: tuple[int, ...]
    """The team of each seat, in seat order: ``(0, 1, 0, 1)`` puts seats 0 and 2 against 1 and 3."""
    when: str | None = None
    """A boolean config field that must be true for the split to apply; ``None``: it always applies."""

    def __post_init__(self) -> None:
        if len(self.team_of_seat) != self.seats:
            raise ValueError(f"a team split of {self.seats} seats needs {self.seats} teams, got {self.team_of_seat!r}")


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A game's default time control, in seconds (the referee's ``TimeControl`` message in plain values)."""

    decision_time: float = 1.0
    """Free think time per decision."""
    bank_time: float = 30.0
    """Extra think time per seat for the whole match."""
    max_overrun: float = 5.0
    """Most bank time one decision may draw before the answer counts as late."""
    max_strikes: int = 3
    """Strikes at which a seat forfeits."""
    reconnect_grace: float = 10.0
    """How long a disconnected seat has to come back before it forfeits."""
    max_rtt_credit: float = 0.5
    """Most network round-trip time credited back per answer."""


def visible_events(log: Sequence[Event], since: int, viewer: Seat | _Everyone | None) -> list[Event]:
    """Returns the events of ``log`` from index ``since`` that ``viewer`` may see.

    The usual body of :meth:`Match.events` for an engine that keeps its events in one list.
    """
    if viewer is EVERYONE:
        return list(log[since:])
    return [e for e in log[since:] if e.visible(viewer)]  # type: ignore[arg-type]


class Match(abc.ABC):
    """One match in progress. See the module docstring for the contract."""

    info: ClassVar[GameInfo]

    @abc.abstractmethod
    def to_move(self) -> Decision | None:
        """Returns the pending decision, or ``None`` when the match is over."""

    @abc.abstractmethod
    def legal_options(self) -> Sequence[Option]:
        """Returns the options of the pending decision, in a fixed order; empty when over."""

    @abc.abstractmethod
    def apply(self, option_id: str) -> Sequence[Event]:
        """Takes the option ``option_id`` for the seat that must decide.

        Returns:
            The events the option caused, in order.

        Raises:
            IllegalOptionError: ``option_id`` is not a legal option now.
            MatchOverError: the match has already ended.
        """

    @abc.abstractmethod
    def observe(self, viewer: Seat | None) -> JSONDict:
        """Returns what ``viewer`` may see; ``None`` is a spectator, who sees public facts only.

        The shape is the game's ``Observation`` proto message.
        """

    @abc.abstractmethod
    def events(self, since: int = 0, viewer: Seat | _Everyone | None = EVERYONE) -> list[Event]:
        """Returns the events with ``index >= since`` that ``viewer`` may see."""

    @abc.abstractmethod
    def outcome(self) -> Outcome | None:
        """Returns the outcome once the match is over, else ``None``."""

    @abc.abstractmethod
    def determinize(self, viewer: Seat | None, chance: Chance) -> Match:
        """Returns a copy in which everything hidden from ``viewer`` is dealt anew with ``chance``.

        The copy agrees with this match on everything ``viewer`` can see, so
        ``copy.observe(viewer) == self.observe(viewer)``; hands, deck orders and face-down
        tokens that ``viewer`` cannot see are re-drawn consistently with the public history.
        The conformance kit uses it to prove that observations leak nothing; search bots use
        it to sample worlds.
        """

    # Helpers every game gets for free.

    def with_chance(self, chance: Chance) -> Match:
        """Returns an independent copy of this match that draws every later die from ``chance``.

        The default deep-copies the match and sets its ``chance`` attribute; an engine that keeps
        its chance source elsewhere overrides this. Used by :meth:`chance_outcomes`.
        """
        other = copy.deepcopy(self)
        if not hasattr(other, "chance"):
            raise TypeError(f"{type(self).__name__} keeps no 'chance' attribute; override with_chance")
        other.chance = chance
        return other

    def chance_outcomes(
        self, option_id: str, *, sample: Chance | None = None, depth: int | None = None, limit: int = 10_000
    ) -> list[ChanceOutcome[Match]]:
        """Returns every outcome of the dice that option ``option_id`` rolls, with exact probabilities.

        Chance as data, as OpenSpiel's chance nodes: each roll and random pick the option makes is
        enumerated (a branch per face), shuffles are described by their size and sampled; each
        :class:`~referee.core.chance.ChanceOutcome` holds its probability, its draws and a copy of the
        match after it. The match itself is not changed. See :func:`referee.core.chance.chance_outcomes`.
        """
        return chance_outcomes(self, option_id, sample=sample, depth=depth, limit=limit)

    def window_decisions(self) -> list[tuple[Decision, Sequence[Option]]]:
        """Returns every decision of the pending out-of-turn window, with its options, in the engine's order.

        Outside a window (``to_move().window`` is ``None``) this is the pending decision alone; once
        over, an empty list. Inside one it is every seat the window will ask, so a referee may ask
        them all at once and then apply their answers in this order (:attr:`Decision.window`). The
        later seats come from :meth:`window_followers`.
        """
        first = self.to_move()
        if first is None:
            return []
        out: list[tuple[Decision, Sequence[Option]]] = [(first, tuple(self.legal_options()))]
        if first.window is not None:
            out.extend(self.window_followers(first))
        return out

    def window_followers(self, first: Decision) -> list[tuple[Decision, Sequence[Option]]]:
        """Returns the decisions of the pending window after ``first`` (its first seat), in order.

        The default walks a copy: by the window's guarantee no answer changes a later seat's options,
        so it answers each seat's default on a copy that draws from a throw-away chance source (the
        last answer closes the window there, which may roll dice: never from this match's source).
        This match is not changed. An engine that knows its window's seats may override it cheaply.
        """
        from referee.core.chance import SeededChance

        out: list[tuple[Decision, Sequence[Option]]] = []
        walk = self.with_chance(SeededChance(0))
        decision: Decision | None = first
        while decision is not None:
            walk.apply(decision.default_option_id)
            decision = walk.to_move()
            if decision is None or decision.window != first.window:
                break
            out.append((decision, tuple(walk.legal_options())))
        return out

    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.outcome() is not None

    def option(self, option_id: str) -> Option:
        """Returns the legal option with id ``option_id``.

        Raises:
            IllegalOptionError: no legal option has that id.
        """
        from referee.core.errors import IllegalOptionError, MatchOverError

        decision = self.to_move()
        if decision is None:
            raise MatchOverError("the match is over; no option can be taken")
        for opt in self.legal_options():
            if opt.id == option_id:
                return opt
        raise IllegalOptionError(
            f"{option_id!r} is not a legal option for seat {decision.seat} "
            f"({decision.kind}); legal: {[o.id for o in self.legal_options()][:20]!r}"
        )


class Game(abc.ABC):
    """A game: metadata, config validation and a factory of matches."""

    info: ClassVar[GameInfo]

    @abc.abstractmethod
    def parse_config(self, raw: Mapping[str, Any], seats: int) -> JSONDict:
        """Validates ``raw`` for a match of ``seats`` seats and returns the full config.

        The result has every default filled in, so it is what a replay records.

        Raises:
            ConfigError: a field is unknown, missing or out of range; the message names it.
        """

    @abc.abstractmethod
    def new_match(self, config: Mapping[str, Any], seats: int, chance: Chance) -> Match:
        """Creates a match from a config returned by :meth:`parse_config`.

        The match keeps ``chance`` and draws every die, shuffle and random pick from it, in
        the same order for the same decisions.

        Raises:
            ConfigError: the config is invalid for ``seats`` seats.
        """

    def default_config(self, seats: int) -> JSONDict:
        """Returns the config with every default, for ``seats`` seats."""
        return self.parse_config({}, seats)
