"""The activation phase: playing action cards and standard actions, each fully resolved in turn (A6).

The ``activation`` step offers the active seat every card it can pay for, every standard
action not yet used this turn, and ending the phase. Choosing one spends the core and queues
the action's steps: movement, then pre-attack abilities and the attack (see :mod:`.attacks`),
or the skill, then ``action_end`` (level-ups). This module does not resolve keywords.

Standard actions (A6), each once per activation phase: blue Move 1 + Plan 1, yellow Move 1 +
Heal 1, red Move 1 + 1 damage to an adjacent Enemy, any core Move 2.
"""

from __future__ import annotations

from typing import Any

from referee.core.contract import Option
from referee.games.superfantasybrawl.attacks import deal, effect_step
from referee.games.superfantasybrawl.content import COLOURS, Card, Effect
from referee.games.superfantasybrawl.hexes import Hex, distance, hex_id, row_direction
from referee.games.superfantasybrawl.movement import move_destinations, walk_step
from referee.games.superfantasybrawl.state import ChampState, MatchState, is_ally, is_enemy, side, team
from referee.games.superfantasybrawl.steps import Frame, Pending, Step, opt, step

STANDARD = ("blue", "yellow", "red", "move2")


def has_move_icon(card: Card) -> bool:
    """Whether the card prints a movement value (needed to re-enter from the Gate, A14)."""
    return bool(card.move)


def can_play(m: MatchState, seat: int, card: Card) -> bool:
    """Whether ``seat`` may play ``card`` in its activation phase now."""
    if card.type == "reaction" or not m.cores[seat][card.colour]:
        return False
    champ = m.champs[card.champion]
    return champ.hex is not None or has_move_icon(card)


_OPTIONS: dict[tuple[Any, ...], Option] = {}
"""Options that follow from immutable data alone (a card; a champion's move to a hex), by that data:
built once and handed out again, so that an unchanged option is the same object from one decision
to the next (the referee's encoding cache hits on identity). Options are never changed. Bounded by
the content: its cards, its champions times the hexes."""

_STANDARD: dict[tuple[str, ...], list[tuple[str, str, tuple[Option, ...]]]] = {}
"""The same for the standard actions of a seat's champions (ids in order), as (action, core, its
options) in the order offered: bounded by the teams a roster can field."""

_END = opt("end", "end", "end the activation phase")


def _card_option(card: Card) -> Option:
    key = ("card", card.id, card.name, card.champion, card.colour)
    o = _OPTIONS.get(key)
    if o is None:
        o = _OPTIONS[key] = opt(
            f"card:{card.id}", "card", f"play {card.name}", card=card.id, champion=card.champion, core=card.colour
        )
    return o


def _standard_options(mine: tuple[str, ...]) -> list[tuple[str, str, tuple[Option, ...]]]:
    """Each standard action with each core that pays for it, and its options for the champions ``mine``."""
    found = _STANDARD.get(mine)
    if found is None:
        found = []
        for action in STANDARD:
            for core in COLOURS if action == "move2" else (action,):
                options = []
                for cid in mine:
                    oid = f"std:{action}:{cid}" if action != "move2" else f"std:move2:{cid}:{core}"
                    params = {"action": action, "champion": cid, "core": core}
                    options.append(Option(oid, "standard", f"standard {action} with {cid}", params))
                found.append((action, core, tuple(options)))
        _STANDARD[mine] = found
    return found


def _move_option(cid: str, dest: Hex | None) -> Option:
    key = ("move", cid, dest)
    o = _OPTIONS.get(key)
    if o is None:
        if dest is None:
            o = Option("move:stay", "move", f"{cid} does not move", {"champion": cid})
        else:
            hid = hex_id(dest)
            o = Option(f"move:{hid}", "move", f"move {cid} to {hid}", {"champion": cid, "hex": hid})
        _OPTIONS[key] = o
    return o


def main_options(m: MatchState) -> list[Option]:
    """Every option of the activation decision, in a fixed order; ``end`` is last."""
    seat = m.active
    out: list[Option] = []
    cards = m.content.cards
    for cid in sorted(m.hands[seat]):
        card = cards[cid]
        if can_play(m, seat, card):
            out.append(_card_option(card))
    ready = m.cores[seat]
    used = m.std_used
    for action, core, options in _standard_options(tuple([c.id for c in m.champs.values() if c.seat == seat])):
        if ready[core] and action not in used:
            out.extend(options)
    out.append(_END)
    return out


@step("activation")
def _activation(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    if choice is None:
        options = main_options(m)
        if len(options) == 1:
            return None  # nothing to do but end: no decision is offered
        return Pending(m.active, "main", "play a card, use a standard action, or end", options, "end", st)
    if choice == "end":
        m.emit("activation_ended", {"seat": m.active})
        return None
    m.push_all([*action_steps(m, m.active, choice), Frame("action_end"), st])
    return None


def action_steps(m: MatchState, seat: int, choice: str) -> list[Step]:
    """Pays for the chosen card or standard action and returns the steps that resolve it."""
    parts = choice.split(":")
    if parts[0] == "card":
        card = m.content.cards[parts[1]]
        m.spend(seat, card.colour)
        m.hands[seat].remove(card.id)
        m.discards[seat].append(card.id)
        m.emit("card_played", {"seat": seat, "card": card.id, "champion": card.champion, "core": card.colour})
        return card_steps(m, seat, card)
    action, champ = parts[1], parts[2]
    core = parts[3] if action == "move2" else action
    m.spend(seat, core)
    m.std_used.append(action)
    m.emit("standard_action", {"seat": seat, "action": action, "champion": champ, "core": core})
    steps: list[Step] = [Frame("card_move", {"champ": champ, "value": 2 if action == "move2" else 1})]
    if action == "blue":
        steps.append(effect_step(Effect("plan", "self", 1), champ, seat, champ))
    elif action == "yellow":
        steps.append(effect_step(Effect("heal", "self", 1), champ, seat, champ))
    elif action == "red":
        steps.append(Frame("strike", {"champ": champ}))
    return steps


def card_steps(m: MatchState, seat: int, card: Card) -> list[Step]:
    """The steps of an attack or skill card, top to bottom (movement first, A6)."""
    champ = card.champion
    steps: list[Step] = []
    if card.move:
        steps.append(Frame("card_move", {"champ": champ, "value": card.move}))
    if card.type == "attack":
        steps += [effect_step(e, champ, seat, champ) for e in card.pre]
        steps.append(Frame("attack_declare", {"champ": champ, "card": card.id}))
    else:
        steps.append(Frame("skill", {"champ": champ, "card": card.id}))
    return steps


@step("card_move")
def _card_move(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    c = m.champs[st["champ"]]
    budget = st["value"] + side(m, c).move_bonus
    if choice is None:
        dests = move_destinations(m, c, budget)
        if not dests:
            return None
        options = [_move_option(c.id, None)]
        paths = {}
        for dest in sorted(dests):
            o = _move_option(c.id, dest)
            options.append(o)
            paths[o.id] = dests[dest]
        # The path walked to each destination, by option id (plain data: hexes are tuples).
        st["dests"] = paths
        return Pending(c.seat, "move", f"move {c.id} up to {budget}", options, "move:stay", st)
    if choice == "move:stay":
        return None
    m.push_all([walk_step(c.id, st["dests"][choice], "move", c.id)])
    return None


@step("strike")
def _strike(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    """The red standard action's 1 damage to an adjacent Enemy: damage, not an attack, so no reaction (A18.9)."""
    c = m.champs[st["champ"]]
    if c.hex is None:
        return None
    if choice is None:
        foes = [x for x in m.champs.values() if x.hex is not None and is_enemy(m, c, x) and distance(c.hex, x.hex) == 1]
        if not foes:
            return None
        options = [opt(f"strike:{x.id}", "strike", f"1 damage to {x.id}", champion=x.id) for x in foes]
        options.append(opt("strike:none", "strike", "deal no damage"))
        return Pending(c.seat, "strike", "deal 1 damage to an adjacent Enemy?", options, "strike:none", st)
    if choice != "strike:none":
        deal(m, [(choice.split(":", 1)[1], 1)], c.id)
    return None


def skill_targets(m: MatchState, c: ChampState, card: Card) -> list[ChampState]:
    """Champions the skill may target: kind, range and, if asked, a shared hex row."""
    spec = card.target
    assert spec is not None and c.hex is not None
    out = []
    for x in m.champs.values():
        if x.hex is None:
            continue
        if spec.kind == "enemy" and not is_enemy(m, c, x):
            continue
        if spec.kind == "ally" and not is_ally(m, c, x):
            continue
        if spec.kind == "self_or_ally" and not (x.id == c.id or is_ally(m, c, x)):
            continue
        if not spec.min_range <= distance(c.hex, x.hex) <= spec.max_range:
            continue
        if spec.row and row_direction(c.hex, x.hex) is None:
            continue
        out.append(x)
    return out


@step("skill")
def _skill(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    """A skill (A13): after movement, decide whether to use it, declare targets, resolve the text. No reactions."""
    c = m.champs[st["champ"]]
    card = m.content.cards[st["card"]]
    assert card.target is not None
    if c.hex is None:
        return None
    if choice is None:
        if card.target.kind == "none":
            options = [opt("skill:use", "skill", f"use {card.name}", card=card.id)]
        else:
            options = [
                opt(f"target:{x.id}", "target", f"{card.name} on {x.id}", card=card.id, champion=x.id)
                for x in skill_targets(m, c, card)
            ]
            if not options:
                m.emit("no_target", {"champion": c.id, "card": card.id})
                return None
        options.append(opt("skill:decline", "decline", "do not use the skill", card=card.id))
        return Pending(c.seat, "skill", f"use {card.name}?", options, "skill:decline", st)
    if choice == "skill:decline":
        return None
    target = choice.split(":", 1)[1] if choice.startswith("target:") else c.id
    m.emit("skill", {"champion": c.id, "card": card.id, "target": target})
    m.push_all([effect_step(e, c.id, c.seat, target if e.who == "target" else c.id) for e in card.effects])
    return None


def team_seats(m: MatchState, side_: int) -> list[int]:
    """The seats of team ``side_``."""
    return [s for s in range(m.seats) if team(m, s) == side_]
