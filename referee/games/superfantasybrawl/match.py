"""One match of Super Fantasy Brawl behind the game contract.

:class:`BrawlMatch` holds the state; the shared step interpreter (:class:`referee.core.steps.StepMatch`)
runs its frames (registered in :mod:`.steps`) until one waits for a decision or the match ends, and
writes the contract's verbs. It is not the rules themselves; those are in the concept modules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from referee.core.chance import Chance
from referee.core.contract import GameInfo, JSONDict, Outcome, TeamSplit, Termination, TimeControl
from referee.core.ids import Seat
from referee.core.steps import StepMatch

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
from referee.games.superfantasybrawl.observation import determinize, observe
from referee.games.superfantasybrawl.state import ChampState, team
from referee.games.superfantasybrawl.steps import RULES


def _board() -> dict[str, Any]:
    """The arena as the viewer draws it: hex radius, statues, coloured zones, trap hexes, deployment rows."""
    text = resources.files(__name__.rpartition(".")[0]).joinpath("data/map.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return {
        "kind": "hex",
        "name": data.get("name", ""),
        "radius": int(data.get("radius", 4)),
        "statues": data.get("statues", []),
        "zones": data.get("zones", {}),
        "trap_hexes": data.get("trap_hexes", []),
        "deployment": data.get("deployment", []),
    }


INFO = GameInfo(
    "superfantasybrawl",
    "Super Fantasy Brawl",
    "3",
    # Two players, or four in two teams (Super Team Tornado); three cannot be seated.
    seat_counts=frozenset({2, 4}),
    table_sizes=(2,),
    # Super Team Tornado: four seats are always two teams, seats 0 and 2 against 1 and 3.
    teams=(TeamSplit(4, (0, 1, 0, 1)),),
    time_control=TimeControl(),
    board=_board(),
    # A reaction window opens only for a defender holding a reaction with a ready core: being asked
    # tells of the hand, so no other seat or spectator may learn that it was asked.
    private_decisions=frozenset({"reaction"}),
)
"""What the game says of itself, to the referee, the workers and the site: the ladder plays duels; four seats
are always 2v2. The game and every match return this one object."""


class BrawlMatch(StepMatch):
    """A match in progress. Build one with :meth:`SuperFantasyBrawl.new_match` or :mod:`.scenario`."""

    info = INFO
    rules = RULES
    shared_on_copy = frozenset({"content"})
    """The content is immutable; the chance source is copied (a copy rolls its own dice)."""

    def __init__(self, content: Content, config: Mapping[str, Any], seats: int, chance: Chance) -> None:
        self.start_steps()
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
        if self._outcome is not None:
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
        self.end(Outcome(ranks, how, reason, scores))
        self.emit("match_over", {"ranks": list(ranks), "reason": reason, "vps": list(self.vp)})

    # --- the contract (the other verbs are the interpreter's) -----------------------------------

    def observe(self, viewer: Seat | None) -> JSONDict:
        """Returns what ``viewer`` may see (see :mod:`.observation`)."""
        return observe(self, viewer)

    def determinize(self, viewer: Seat | None, chance: Chance) -> BrawlMatch:
        """Returns a copy with everything hidden from ``viewer`` dealt anew (see :mod:`.observation`)."""
        return determinize(self, viewer, chance)
