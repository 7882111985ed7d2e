"""House bots: a random bot and a heuristic bot that goes for kills and challenges.

The heuristic bot sees only what a remote bot sees (the decision, its observation and the
options with their params) and scores each option with a few plain rules: attack when it can,
aim at the weakest enemy, move towards enemies and towards the coloured zones the challenge
track asks for, play every reaction, never decline. It is a sparring partner, not a strong
player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.core.bots import RandomPolicy
from referee.core.chance import SeededChance
from referee.core.contract import Decision, JSONDict, Option
from referee.games.superfantasybrawl.game import CONTENT
from referee.games.superfantasybrawl.hexes import distance, neighbours, parse_hex


class HeuristicPolicy:
    """Greedy one-step scoring of options.

    Args:
        seed: Seeds the tie-breaking among equally scored options: the bot's own seed, never the
            match seed nor derived from it (see :mod:`referee.core.bots`).
    """

    def __init__(self, seed: int) -> None:
        self._chance = SeededChance(seed)

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        """Returns the id of the best-scored option (ties broken at random)."""
        scores = [self._score(decision, observation, o) for o in options]
        best = max(scores)
        top = [o for o, s in zip(options, scores, strict=True) if s == best]
        return top[self._chance.below(len(top))].id

    def _score(self, decision: Decision, obs: JSONDict, o: Option) -> float:
        p: dict[str, Any] = o.params
        me = obs["viewer"]
        my_team = me % 2
        champs = {c["id"]: c for c in obs["champions"]}
        enemies = [c for c in obs["champions"] if c["team"] != my_team and c["hex"]]
        kind = decision.kind
        if kind == "main":
            if o.id == "end":
                return 0.0
            if o.kind == "card":
                card = CONTENT.cards[p["card"]]
                return 6.0 if card.type == "attack" and _near(champs[card.champion], enemies, 4) else 3.0
            if p.get("action") == "red":
                return 4.0 if _near(champs[p["champion"]], enemies, 2) else 1.0
            if p.get("action") == "move2":
                return 2.0 if p.get("core") == "blue" else 1.5
            return 1.0
        if kind in ("move", "dash", "jump", "swoop", "place"):
            c = champs.get(p.get("champion", ""))
            if c is None:
                return 0.0
            target = p.get("hex") or c["hex"]
            return -_goal_distance(target, enemies, obs) if target else -99.0
        if kind == "attack_target":
            if o.id == "attack:decline":
                return -1.0
            if o.kind == "aoe":
                hit = p.get("targets", [])
                return sum(2.0 if champs[h]["team"] != my_team else -2.5 for h in hit)
            t = champs[p["champion"]]
            return 10.0 + float(p.get("strength", 0)) - float(t["hp"] - t["damage"]) * 0.5
        if kind == "skill":
            if o.id == "skill:decline":
                return -1.0
            t = champs.get(p.get("champion", ""))
            if t is not None and t["team"] == my_team:
                return 1.0 + float(t["damage"])
            return 1.0
        if kind == "reaction":
            return -1.0 if o.id == "react:pass" else 1.0 + champs[p["champion"]]["damage"] * 0.1
        if kind == "strike":
            return -1.0 if o.id == "strike:none" else 1.0
        if kind == "post_attack":
            # Push, root, stun or fear an Enemy; spare an Ally caught in the area (heal and draw always help).
            c = champs.get(p.get("champion", ""))
            helps = p.get("keyword") in ("heal", "draw") or (c is not None and c["team"] != my_team)
            return (1.0 if helps else -1.0) * (1.0 if o.id == "post:apply" else -1.0)
        if kind == "plan":
            return 1.0 if o.id == "plan:stop" else 0.0
        if kind == "mulligan":
            return 1.0 if o.id == "mulligan:none" else 0.0
        if kind == "force":
            # Push the enemy away from our side of the fight: the hex furthest from every enemy.
            h = p.get("hex")
            return (
                0.0 if not h else float(min((distance(parse_hex(h), parse_hex(e["hex"])) for e in enemies), default=0))
            )
        return 0.0


def _near(c: dict[str, Any], enemies: list[dict[str, Any]], reach: int) -> bool:
    if not c["hex"]:
        return False
    here = parse_hex(c["hex"])
    return any(distance(here, parse_hex(e["hex"])) <= reach for e in enemies)


def _goal_distance(hid: str, enemies: list[dict[str, Any]], obs: JSONDict) -> float:
    h = parse_hex(hid)
    to_enemy = min((distance(h, parse_hex(e["hex"])) for e in enemies), default=0)
    zones = _wanted_statues(obs)
    to_zone = min((distance(h, s) for s in zones), default=0)
    on_trap = any(t["has_trap"] and t["hex"] == hid for t in obs["trap_hexes"])
    return to_enemy * 1.0 + to_zone * 0.8 + (3.0 if on_trap else 0.0)


def _wanted_statues(obs: JSONDict) -> list[tuple[int, int]]:
    arena = CONTENT.arena
    wanted = []
    for slot in obs["track"]:
        cid = slot["challenge"]
        if not cid:
            continue
        ch = CONTENT.challenges[cid]
        colour = ch.params.get("zone") or ch.params.get("statue")
        if colour:
            wanted.append(arena.statues[colour])
    if not wanted:
        wanted = [arena.statues["yellow"]]
    return [n for s in wanted for n in neighbours(s)]


HOUSE_BOTS = {"random": RandomPolicy, "heuristic": HeuristicPolicy}
"""The house bots by name."""
