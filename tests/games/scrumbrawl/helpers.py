"""Builds ScrumBrawl matches from an explicit position, with exact dice, for the rules tests.

``build`` lays out creatures, orbs, portals, hands, the deck and enchantments, sets the active
seat and phase, and hands the match a :class:`ScriptedChance` holding exactly the dice of the case.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.core.chance import ScriptedChance
from referee.core.contract import Event
from referee.games.scrumbrawl import ScrumBrawl
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.engine import Creature, SBMatch
from referee.games.scrumbrawl.turn import PHASES

Pos = tuple[int, int]


HELD_WINDOWS = frozenset({"alter_reality", "dispel_window", "fumble_window", "team_window", "dispel", "revenant"})
"""The window kinds offered to a seat whatever it holds (so often with "pass" as the only option)."""


class AutoPassMatch(SBMatch):
    """A match that answers "pass" for a seat whose only option in a window is "pass".

    This is what a bot gets from the referee when it opts in to auto-pass for every window kind;
    rules tests use it so a case shows only the decisions it is about. Build with
    ``auto_pass=False`` to see every window.
    """

    def run(self) -> None:
        """Runs, then answers every pass-only window, until a real decision is pending."""
        while True:
            super().run()
            decision = self.to_move()
            if decision is None or decision.kind not in HELD_WINDOWS:
                return
            if [o.id for o in self.legal_options()] != ["pass"]:
                return
            assert self.pending is not None
            self.answer(self.pending, "pass")


def build(
    creatures: Sequence[tuple[str, int, Pos]] = (),
    *,
    dice: Iterable[int] = (),
    seats: int = 2,
    config: Mapping[str, Any] | None = None,
    hands: Mapping[int, Sequence[str]] | None = None,
    deck: Sequence[str] = (),
    orbs: Mapping[str, Pos] | None = None,
    carry: Mapping[int, str] | None = None,
    portals: Mapping[str, Pos] | None = None,
    enchant: Mapping[int, str] | None = None,
    team: Mapping[int, Sequence[str]] | None = None,
    active: int = 0,
    phase: str = "act",
    first_turn: bool = False,
    new: Sequence[int] = (),
    auto_pass: bool = True,
) -> tuple[SBMatch, list[str]]:
    """Returns a match in ``phase`` of ``active``'s turn and the ids of ``creatures`` in order.

    ``carry`` maps a creature's index to the orb it carries; ``enchant`` to its enchantment;
    ``new`` lists indices of creatures that entered this turn. With ``auto_pass`` (the default) a
    window whose only option is "pass" is answered "pass" (see :class:`AutoPassMatch`).
    """
    cfg = ScrumBrawl().parse_config(dict(config or {}), seats)
    m = (AutoPassMatch if auto_pass else SBMatch)(cfg, seats, ScriptedChance(list(dice)))
    ids: list[str] = []
    m.turn = 5
    for i, (name, owner, pos) in enumerate(creatures):
        cid = m.new_card_id(name)
        m.creatures[cid] = Creature(cid, name, owner, pos, entered=5 if i in new else 1)
        ids.append(cid)
    for i, ench in (enchant or {}).items():
        m.creatures[ids[i]].enchant = m.new_card_id(ench)
    for seat, names in (team or {}).items():
        m.team_ench[seat] = [m.new_card_id(n) for n in names]
    for seat, names in (hands or {}).items():
        m.hands[seat] = [m.new_card_id(n) for n in names]
    m.deck = [m.new_card_id(n) for n in deck]
    for name, pos in (orbs or {}).items():
        m.orbs[name] = pos
    for i, name in (carry or {}).items():
        m.orbs[name] = None
        m.carrier[name] = ids[i]
        m.creatures[ids[i]].orb = name
    m.portals = dict(portals or {})
    m.orb_deck = [o for o in sorted(CONTENT.orbs) if o not in m.orbs]
    m.base_orbs = max(1, len(m.orbs))
    m.active = active
    m.first_turn_done = [not first_turn] * seats
    for name in reversed(PHASES[PHASES.index(phase) :]):
        m.push(name, seat=active)
    m.run()
    return m, ids


def chance(m: SBMatch) -> ScriptedChance:
    """The match's scripted dice."""
    assert isinstance(m.chance, ScriptedChance)
    return m.chance


def events(m: SBMatch, kind: str) -> list[Event]:
    """Every event of ``kind`` so far."""
    return [e for e in m.events() if e.kind == kind]


def option_ids(m: SBMatch) -> list[str]:
    """The ids of the legal options."""
    return [o.id for o in m.legal_options()]


def card(m: SBMatch, seat: int, name: str) -> str:
    """The id of the first card named ``name`` in ``seat``'s hand."""
    return next(k for k in m.hands[seat] if m.card_names[k] == name)
