"""Attacks and damage: targeting, the attack sequence, reactions, out of action, VP and levelling up.

The attack sequence follows A11 step by step: (1) movement and (2) pre-attack abilities are
queued by :mod:`.cards`; here (3) the decision to attack and (4) the targets (``attack_declare``),
(5) the defender's reaction window (``reaction_window``), (6-7) strength against defence, Poison,
Double and Lifesteal (``attack_damage``), (8) the reaction's abilities if the reacting champion
is still in the arena (``reaction_effects``) and (9) the card's post-attack abilities if the
attacker is still in the arena (``attack_post``). Knock-outs, VP and level-ups are here too
(A14). This module does not move champions; keywords do that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.games.superfantasybrawl.content import PLAYER_KEYWORDS
from referee.games.superfantasybrawl.hexes import Hex, between, distance, hex_id, rotate, row_direction
from referee.games.superfantasybrawl.state import (
    ChampState,
    MatchState,
    bloodied,
    defence,
    has_trait,
    hp,
    is_enemy,
    occupied,
    team,
)
from referee.games.superfantasybrawl.steps import Frame, Pending, Step, opt, step

if TYPE_CHECKING:
    from referee.games.superfantasybrawl.content import AttackSpec, Card, Effect


# --- damage, out of action, VP ---------------------------------------------------------------


def deal(m: MatchState, hits: list[tuple[str, int]], source: str | None) -> dict[str, int]:
    """Puts damage on champions at the same moment, then takes out of action those at or over HP.

    Several champions knocked out by one batch go out together, so the simultaneous-kill rule
    (A5) can apply. Returns the damage dealt per champion.
    """
    dealt: dict[str, int] = {}
    for cid, amount in hits:
        c = m.champs[cid]
        if c.hex is None or amount <= 0:
            continue
        c.damage += amount
        dealt[cid] = dealt.get(cid, 0) + amount
        m.emit("damage", {"champion": cid, "amount": amount, "source": source or "", "hp_left": hp(m, c) - c.damage})
    knocked = [cid for cid in dealt if m.champs[cid].damage >= hp(m, m.champs[cid])]
    for cid in knocked:
        knock_out(m, m.champs[cid], source)
    if knocked:
        m.check_victory()
    return dealt


def knock_out(m: MatchState, c: ChampState, source: str | None) -> None:
    """Takes ``c`` out of action: damage removed, back to its basic side, onto its Gate; VP to the right team (A14)."""
    m.emit("out_of_action", {"champion": c.id, "source": source or "", "hex": hex_id(c.hex) if c.hex else ""})
    c.hex = None
    c.damage = 0
    c.levelled = False
    c.defence_attack = 0
    c.defence_turn = 0
    c.rooted = False
    victim_team = team(m, c.seat)
    src = m.champs.get(source) if source else None
    if src is not None and team(m, src.seat) != victim_team:
        scorer = team(m, src.seat)
        if src.id not in m.levelups:
            m.levelups.append(src.id)
    else:
        # Taking yourself or an Ally out of action scores for the opponent, and nobody levels up.
        scorer = 1 - victim_team
    m.vp[scorer] += 1
    m.emit("vp", {"team": scorer, "amount": 1, "vps": list(m.vp), "reason": "knock_out"})


def level_up_pending(m: MatchState) -> None:
    """Flips the champions that took an Enemy out of action, once the action has resolved (A14)."""
    for cid in m.levelups:
        c = m.champs[cid]
        if c.hex is not None and not c.levelled:
            c.levelled = True
            m.emit("level_up", {"champion": cid})
    m.levelups.clear()


# --- targeting --------------------------------------------------------------------------------


def strength_of(m: MatchState, attacker: ChampState, spec: AttackSpec, target: ChampState) -> int:
    """Returns the attack's strength against ``target``, with conditional bonuses and traits."""
    value = spec.strength
    for cond, bonus in spec.bonus:
        if (
            (cond == "target_bloodied" and bloodied(m, target))
            or (cond == "self_bloodied" and bloodied(m, attacker))
            or (cond == "target_rooted" and target.rooted)
        ):
            value += bonus
    if value > 0 and has_trait(m, attacker, "strength_bonus"):
        value += 1
    return value


def max_range(m: MatchState, attacker: ChampState, spec: AttackSpec) -> int:
    """Maximum range, one more for a shot by a champion with ``long_reach``."""
    extra = 1 if spec.shape in ("direct", "indirect") and has_trait(m, attacker, "long_reach") else 0
    return spec.max_range + extra


def single_targets(m: MatchState, attacker: ChampState, spec: AttackSpec) -> list[ChampState]:
    """Enemies a melee attack or shot may target (A11): range, minimum range, and for direct shots the row and line."""
    assert attacker.hex is not None
    occ = occupied(m)
    hi = max_range(m, attacker, spec)
    out = []
    for c in m.champs.values():
        if c.hex is None or not is_enemy(m, attacker, c):
            continue
        dist = distance(attacker.hex, c.hex)
        if not spec.min_range <= dist <= hi:
            continue
        if spec.shape == "direct":
            if row_direction(attacker.hex, c.hex) is None:
                continue
            if any(h in m.statues or h in occ for h in between(attacker.hex, c.hex)):
                continue
        out.append(c)
    return out


def aoe_orientations(m: MatchState, attacker: ChampState, spec: AttackSpec) -> list[tuple[int, list[Hex], list[str]]]:
    """The distinct orientations of an AoE that include at least one Enemy, with hexes and champions hit."""
    assert attacker.hex is not None
    occ = occupied(m)
    seen: set[frozenset[Hex]] = set()
    out = []
    for o in range(6):
        hexes = [
            (attacker.hex[0] + d[0], attacker.hex[1] + d[1])
            for d in (rotate(off, o) for off in m.content.patterns[spec.pattern])
        ]
        hexes = [h for h in hexes if h in m.content.arena.cells]
        key = frozenset(hexes)
        if key in seen:
            continue
        seen.add(key)
        hit = [occ[h] for h in hexes if h in occ and occ[h].id != attacker.id]
        if any(is_enemy(m, attacker, c) for c in hit):
            out.append((o, hexes, [c.id for c in hit]))
    return out


# --- the attack sequence ----------------------------------------------------------------------


@step("attack_declare")
def _attack_declare(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    attacker = m.champs[st["champ"]]
    card = m.content.cards[st["card"]]
    spec = card.attack
    assert spec is not None
    if attacker.hex is None:
        return None
    if choice is None:
        options = []
        if spec.shape == "aoe":
            for o, hexes, hit in aoe_orientations(m, attacker, spec):
                options.append(
                    opt(
                        f"aoe:{o}",
                        "aoe",
                        f"aim {card.name} in direction {o}",
                        orientation=o,
                        targets=hit,
                        hexes=[hex_id(h) for h in hexes],
                        card=card.id,
                    )
                )
        else:
            for c in single_targets(m, attacker, spec):
                options.append(
                    opt(
                        f"target:{c.id}",
                        "target",
                        f"{card.name} on {c.id}",
                        champion=c.id,
                        card=card.id,
                        strength=strength_of(m, attacker, spec, c),
                    )
                )
        if not options:
            m.emit("no_attack", {"champion": attacker.id, "card": card.id})
            return None
        options.append(opt("attack:decline", "decline", "do not attack", card=card.id))
        return Pending(attacker.seat, "attack_target", f"targets for {card.name}", options, "attack:decline", st)
    if choice == "attack:decline":
        m.emit("attack_declined", {"champion": attacker.id, "card": card.id})
        return None
    if choice.startswith("aoe:"):
        o = int(choice[4:])
        hit = next(h for oo, _hx, h in aoe_orientations(m, attacker, spec) if oo == o)
        targets = list(hit)
    else:
        targets = [choice.split(":", 1)[1]]
    m.attack = {
        "card": card.id,
        "attacker": attacker.id,
        "seat": attacker.seat,
        "targets": targets,
        "reaction": "",
        "reactor": "",
    }
    m.emit("attack", {"champion": attacker.id, "card": card.id, "targets": targets, "seat": attacker.seat})
    defenders = sorted({m.champs[t].seat for t in targets if is_enemy(m, attacker, m.champs[t])})
    seats = [
        s
        for s in m.order_from(m.active)
        if team(m, s) != team(m, attacker.seat) and any(team(m, d) == team(m, s) for d in defenders)
    ]
    m.push_all(
        [
            Frame("reaction_window", {"seats": seats}),
            Frame("attack_damage"),
            Frame("reaction_effects"),
            Frame("attack_post"),
        ]
    )
    return None


def reaction_options(m: MatchState, seat: int) -> list[Any]:
    """The reactions ``seat`` may play now: a reaction card with a ready core, on any team champion in the arena."""
    champs = [c for c in m.champs.values() if c.hex is not None and team(m, c.seat) == team(m, seat)]
    out = []
    for cid in sorted(m.hands[seat]):
        card = m.content.cards[cid]
        if card.type != "reaction" or not m.cores[seat][card.colour]:
            continue
        for c in champs:
            out.append(
                opt(
                    f"react:{cid}:{c.id}",
                    "reaction",
                    f"play {card.name} on {c.id}",
                    card=cid,
                    champion=c.id,
                    core=card.colour,
                )
            )
    return out


@step("reaction_window")
def _reaction_window(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    # At most one reaction per attack (A12); the window goes round the defending team until one is played.
    seats = st["seats"]
    if choice is None:
        while seats:
            options = reaction_options(m, seats[0])
            if options:
                options.append(opt("react:pass", "pass", "play no reaction"))
                return Pending(seats[0], "reaction", "play a reaction?", options, "react:pass", st)
            seats.pop(0)
        return None
    seat = seats.pop(0)
    if choice == "react:pass":
        # Private: that a window opened at all reveals a reaction card in hand.
        m.emit("reaction_passed", {"seat": seat}, frozenset({seat}))
        m.push_all([st])
        return None
    _, cid, champ = choice.split(":")
    card = m.content.cards[cid]
    m.spend(seat, card.colour)
    m.hands[seat].remove(cid)
    m.discards[seat].append(cid)
    reactor = m.champs[champ]
    reactor.defence_attack += card.defence
    # A bonus "for the rest of the turn" covers later attacks; this one gets the icon's bonus (FAQ A16.1).
    m.attack["turn_bonus"] = card.defence_turn
    m.attack["reaction"] = cid
    m.attack["reactor"] = champ
    m.attack["reaction_seat"] = seat
    m.emit("reaction", {"seat": seat, "card": cid, "champion": champ, "defence": card.defence})
    return None


@step("attack_damage")
def _attack_damage(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    a = m.attack
    attacker = m.champs[a["attacker"]]
    card = m.content.cards[a["card"]]
    spec = card.attack
    assert spec is not None
    for _ in range(2 if spec.double else 1):
        hits: list[tuple[str, int]] = []
        for t in a["targets"]:
            target = m.champs[t]
            if target.hex is None:
                continue
            strength = strength_of(m, attacker, spec, target)
            shield = max(0, defence(m, target) - (1 if has_trait(m, attacker, "pierce") else 0))
            amount = max(0, strength - shield) + spec.damage
            m.emit("attack_roll", {"champion": t, "strength": strength, "defence": shield, "amount": amount})
            hits.append((t, amount))
        dealt = deal(m, hits, attacker.id)
        if m._outcome is not None:
            return None
        if spec.poison:
            poison = [(t, spec.poison) for t, n in dealt.items() if n > 0 and m.champs[t].hex is not None]
            deal(m, poison, attacker.id)
            if m._outcome is not None:
                return None
        if spec.lifesteal and attacker.hex is not None:
            total = sum(dealt.values())
            healed = min(total, attacker.damage)
            attacker.damage -= healed
            m.emit("heal", {"champion": attacker.id, "amount": healed, "source": attacker.id})
    return None


@step("reaction_effects")
def _reaction_effects(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    a = m.attack
    if not a.get("reaction"):
        return None
    reactor = m.champs[a["reactor"]]
    if reactor.hex is None:
        return None  # step 8 only if the defender was not taken out of action
    card = m.content.cards[a["reaction"]]
    m.push_all(
        [effect_step(e, reactor.id, a["reaction_seat"], _who(m, e, reactor.id, a["attacker"])) for e in card.effects]
    )
    return None


POST_OPTIONAL_BY_ITSELF = frozenset({"dash", "swoop", "jump", "place", "force", "plan"})
"""Keywords whose own decision already offers doing nothing (``<kind>:stay``, ``plan:stop``), so a
post-attack one is not asked about twice."""


@step("attack_post")
def _attack_post(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    a = m.attack
    attacker = m.champs[a["attacker"]]
    if attacker.hex is None:
        return None  # step 9 only if the attacker was not taken out of action
    card: Card = m.content.cards[a["card"]]
    steps = []
    for e in card.post:
        champs = a["targets"] if e.who == "target" else [attacker.id]
        for champ in champs:
            effect = effect_step(e, attacker.id, a["seat"], champ)
            # Seed-it: "l'attacco deve essere effettuato e poi il giocatore sceglie se applicare l'abilità o
            # meno": each post-attack ability is the attacker's choice, asked per champion it would affect.
            steps.append(
                effect if e.kw in POST_OPTIONAL_BY_ITSELF else Frame("post_choice", {"card": card.id, "effect": effect})
            )
    m.push_all(steps)
    return None


@step("post_choice")
def _post_choice(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    """Asks the attacker whether to apply one post-attack ability to one champion (seed-it, A11 step 9)."""
    effect = st["effect"]
    c = m.champs[effect["champ"]]
    if c.hex is None and effect["kw"] not in PLAYER_KEYWORDS:
        return None  # a champion on its Gate cannot be affected by card effects (A14)
    card = m.content.cards[st["card"]]
    kw, value = effect["kw"], effect["value"]
    what = f"{kw} {value}" if value else kw
    if choice is None:
        params = {"card": card.id, "champion": c.id, "keyword": kw, "value": value}
        options = [
            opt("post:apply", "apply", f"apply {card.name}'s {what} to {c.id}", **params),
            opt("post:decline", "decline", f"do not apply {card.name}'s {what} to {c.id}", **params),
        ]
        return Pending(effect["player"], "post_attack", f"apply {what} to {c.id}?", options, "post:decline", st)
    if choice == "post:apply":
        m.push_all([effect])
    else:
        m.emit("post_attack_declined", {"champion": c.id, "card": card.id, "keyword": kw})
    return None


def _who(m: MatchState, e: Effect, me: str, attacker: str) -> str:
    return attacker if e.who == "attacker" else me


def effect_step(e: Effect, source: str, seat: int, champ: str) -> Step:
    """Builds the step that applies keyword effect ``e`` from ``source`` (played by ``seat``) to ``champ``."""
    return Frame(
        "effect",
        {
            "kw": e.kw,
            "value": e.value,
            "range": e.range,
            "near": e.near,
            "relation": e.relation,
            "element": e.element,
            "champ": champ,
            "source": source,
            "player": seat,
        },
    )


@step("deal")
def _deal(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    deal(m, [(st["champ"], st["amount"])], st["source"])
    return None


@step("action_end")
def _action_end(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    level_up_pending(m)
    for c in m.champs.values():
        c.defence_attack = 0
    if m.attack.get("turn_bonus") and m.champs[m.attack["reactor"]].hex is not None:
        m.champs[m.attack["reactor"]].defence_turn += m.attack["turn_bonus"]
    m.attack = {}
    return None
