"""One match of Super Fantasy Brawl behind the game contract.

:class:`BrawlMatch` holds the state and runs the step queue (:mod:`.steps`): it pops steps and
calls their handlers until one waits for a decision or the match ends. The seven contract verbs
are thin: ``to_move`` and ``legal_options`` read the pending decision, ``apply`` hands the chosen
id back to the waiting step. It is not the rules themselves; those are in the concept modules.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
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
    Termination,
    visible_events,
)
from referee.core.errors import IllegalOptionError, MatchOverError
from referee.core.ids import Seat

# The concept modules register their steps and hooks on import.
from referee.games.superfantasybrawl import (  # noqa: F401
    attacks,
    cards,
    challenges,
    keywords,
    movement,
    phases,
    traps,
)
from referee.games.superfantasybrawl.content import COLOURS, Content
from referee.games.superfantasybrawl.hexes import Hex
from referee.games.superfantasybrawl.state import ChampState, team
from referee.games.superfantasybrawl.steps import STEPS, Pending, Step

INFO = GameInfo("superfantasybrawl", "Super Fantasy Brawl", "2", min_seats=2, max_seats=4)


class BrawlMatch(Match):
    """A match in progress. Build one with :meth:`SuperFantasyBrawl.new_match` or :mod:`.scenario`."""

    info = INFO

    def __init__(self, content: Content, config: Mapping[str, Any], seats: int, chance: Chance) -> None:
        self.content = content
        self.config = dict(config)
        self.seats = seats
        self.chance = chance
        self.per_seat = 3 if seats == 2 else 2
        self.hand_size = 5 if seats == 2 else 4
        self.vp_to_win = int(config["vp_to_win"])
        self.track_key = 2 if seats == 2 else 4
        self.statues: frozenset[Hex] = content.arena.statue_hexes
        self.champs: dict[str, ChampState] = {}
        self.hands: list[list[str]] = [[] for _ in range(seats)]
        self.decks: list[list[str]] = [[] for _ in range(seats)]
        self.discards: list[list[str]] = [[] for _ in range(seats)]
        self.known_top = [0] * seats
        self.revealed: list[set[str]] = [set() for _ in range(seats)]
        """Cards in each hand that everyone has seen (a hand revealed by Stun), until they leave it."""
        self.cores: list[dict[str, bool]] = [dict.fromkeys(COLOURS, True) for _ in range(seats)]
        self.std_used: list[str] = []
        self.vp = [0, 0]
        self.traps: dict[Hex, tuple[str, int]] = {}
        self.trap_hexes: set[Hex] = set(content.arena.trap_hexes)
        self.trap_supply: list[tuple[str, int]] = list(content.trap_tokens)
        self.track: list[str | None] = []
        self.ch_deck: list[str] = []
        self.ch_discard: list[str] = []
        self.deploy_side = [0, 1]
        self.first = 0
        self.active = 0
        self.round = 0
        self.phase = "setup"
        self.attack: dict[str, Any] = {}
        self.levelups: list[str] = []
        self.queue: list[Step] = []
        self.pending: Pending | None = None
        self._events: list[Event] = []
        self.outcome_value: Outcome | None = None

    # --- the step machine ---------------------------------------------------------------------

    def push(self, steps: Sequence[Step]) -> None:
        """Puts ``steps`` at the front of the queue, in order."""
        self.queue[:0] = list(steps)

    def run(self) -> None:
        """Runs steps until one waits for a decision or the match ends."""
        while self.pending is None and self.outcome_value is None:
            if not self.queue:
                raise RuntimeError("the step queue ran dry before the match ended")
            st = self.queue.pop(0)
            self.pending = STEPS[st["op"]](self, st, None)

    def emit(self, kind: str, data: JSONDict, to: frozenset[Seat] | frozenset[int] | None = None) -> None:
        """Appends an event; ``to`` names the seats of a private event (an empty set: the log only)."""
        self._events.append(
            Event(len(self._events), kind, data, frozenset(Seat(s) for s in to) if to is not None else None)
        )

    # --- helpers the rules call ------------------------------------------------------------------

    def order_from(self, seat: int) -> list[int]:
        """Seats in turn order starting at ``seat``."""
        return [(seat + k) % self.seats for k in range(self.seats)]

    def add_champion(self, cid: str, seat: int) -> None:
        """Puts champion ``cid`` in ``seat``'s team, on its Gate."""
        self.champs[cid] = ChampState(cid, seat)

    def spend(self, seat: int, colour: str) -> None:
        """Exhausts ``seat``'s core of ``colour`` until its next upkeep."""
        self.cores[seat][colour] = False

    def draw(self, seat: int, n: int) -> None:
        """Draws ``n`` cards; an empty deck is refilled from the shuffled discard pile (A5)."""
        drawn: list[str] = []
        for _ in range(n):
            if not self.decks[seat]:
                if not self.discards[seat]:
                    break
                self.decks[seat] = list(self.discards[seat])
                self.discards[seat] = []
                self.chance.shuffle(self.decks[seat])
                self.known_top[seat] = 0
                self.emit("deck_reshuffled", {"seat": seat, "count": len(self.decks[seat])})
            drawn.append(self.decks[seat].pop())
            self.known_top[seat] = max(0, self.known_top[seat] - 1)
        if not drawn:
            return
        self.revealed[seat] -= set(drawn)
        self.hands[seat].extend(drawn)
        self.emit("draw", {"seat": seat, "count": len(drawn)})
        self.emit("drew", {"seat": seat, "cards": drawn}, frozenset({seat}))

    def check_victory(self) -> None:
        """Ends the match when a team has reached the VP target (A5), with the simultaneous-kill rule."""
        if self.outcome_value is not None:
            return
        winners = [t for t in (0, 1) if self.vp[t] >= self.vp_to_win]
        if not winners:
            return
        if len(winners) == 2:
            # Both reached the target at once: the player who did not play the card wins (A5).
            win = 1 - team(self, self.active)
            reason = f"both teams reached {self.vp_to_win} VP at once; team {win} did not play the card"
        else:
            win = winners[0]
            reason = f"team {win} reached {self.vp[win]} VP"
        self._finish(win, Termination.VICTORY, reason)

    def end_by_round_cap(self) -> None:
        """Ends the match after the round cap: most VP wins, equal VP is a draw."""
        if self.vp[0] == self.vp[1]:
            self._finish(None, Termination.ROUND_CAP, f"round cap {self.config['round_cap']} reached with equal VP")
        else:
            win = 0 if self.vp[0] > self.vp[1] else 1
            self._finish(win, Termination.ROUND_CAP, f"round cap reached; team {win} has more VP")

    def _finish(self, win: int | None, how: Termination, reason: str) -> None:
        ranks = tuple(1 if win is None or team(self, s) == win else 2 for s in range(self.seats))
        scores = tuple(self.vp[team(self, s)] for s in range(self.seats))
        self.outcome_value = Outcome(ranks, how, reason, scores)
        self.pending = None
        self.emit("match_over", {"ranks": list(ranks), "reason": reason, "vps": list(self.vp)})

    # --- the contract --------------------------------------------------------------------------

    def to_move(self) -> Decision | None:
        """Returns the pending decision, or ``None`` once the match is over."""
        if self.outcome_value is not None or self.pending is None:
            return None
        p = self.pending
        return Decision(Seat(p.seat), p.kind, p.prompt, p.default)

    def legal_options(self) -> Sequence[Option]:
        """Returns the options of the pending decision."""
        if self.outcome_value is not None or self.pending is None:
            return ()
        return tuple(self.pending.options)

    def apply(self, option_id: str) -> Sequence[Event]:
        """Takes option ``option_id``.

        Raises:
            MatchOverError: the match is over.
            IllegalOptionError: ``option_id`` is not legal now.
        """
        if self.outcome_value is not None or self.pending is None:
            raise MatchOverError("the match is over; no option can be taken")
        p = self.pending
        if not any(o.id == option_id for o in p.options):
            raise IllegalOptionError(
                f"{option_id!r} is not a legal option for seat {p.seat} ({p.kind}); "
                f"legal: {[o.id for o in p.options][:20]!r}"
            )
        start = len(self._events)
        self.pending = None
        self.pending = STEPS[p.step["op"]](self, p.step, option_id)
        self.run()
        return self._events[start:]

    def observe(self, viewer: Seat | None) -> JSONDict:
        """Returns what ``viewer`` may see (see :mod:`.observation`)."""
        from referee.games.superfantasybrawl.observation import observe

        return observe(self, viewer)

    def events(self, since: int = 0, viewer: Any = EVERYONE) -> list[Event]:
        """Returns the events from ``since`` that ``viewer`` may see."""
        return visible_events(self._events, since, viewer)

    def outcome(self) -> Outcome | None:
        """Returns the outcome once the match is over."""
        return self.outcome_value

    def determinize(self, viewer: Seat | None, chance: Chance) -> BrawlMatch:
        """Returns a copy with everything hidden from ``viewer`` dealt anew (see :mod:`.observation`)."""
        from referee.games.superfantasybrawl.observation import determinize

        return determinize(self, viewer, chance)

    def __deepcopy__(self, memo: dict[int, Any]) -> BrawlMatch:
        other = copy.copy(self)
        for name, value in self.__dict__.items():
            # Content and the outcome are immutable; events are frozen (the list is copied below).
            if name in ("content", "_events", "outcome_value"):
                continue
            setattr(other, name, copy.deepcopy(value, memo))
        other._events = list(self._events)
        return other
