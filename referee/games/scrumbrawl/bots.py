"""House bots for ScrumBrawl: ``random`` and ``heuristic``.

The heuristic bot sees what a remote bot sees (the decision, its observation, the options) and
plays the objective: summon and enchant, run carriers to portals, shoot when the odds are good,
chase loose orbs, wrest, and take fights it should win. It is a baseline, not a strong player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.core.bots import RandomPolicy
from referee.core.contract import Decision, JSONDict, Option
from referee.games.scrumbrawl.content import CONTENT


def _dist(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class HeuristicPolicy:
    """Greedy objective play: goals first, then orbs, then favourable fights.

    It is deterministic: ties go to the first option listed.

    Args:
        seed: Accepted for the house-bot interface; kept as ``self.seed`` (the heuristic draws no randomness).
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        """Returns the id of the option the heuristic prefers."""
        by_kind: dict[str, list[Option]] = {}
        for o in options:
            by_kind.setdefault(o.kind, []).append(o)
        kind = decision.kind
        me = int(decision.seat)
        if kind == "act":
            return self._act(me, observation, options, by_kind)
        if kind == "place":
            return self._place(me, observation, by_kind)
        if kind == "discard":
            return self._discard(options, by_kind)
        if kind in ("fumble_window", "dispel_window"):
            # Fumble an enemy carrier when offered; never Dispel out of turn (a baseline keeps it simple).
            for o in by_kind.get("fumble", []):
                if self._fumble(me, observation, o) != "pass":
                    return o.id
            return "pass"
        if kind == "team_window":
            return by_kind["team"][0].id if "team" in by_kind else "pass"
        preferred = {
            "counter": "counter",
            "wrest": "wrest",
            "stone": "stone",
            "redraw": "redraw",
            "handoff_consent": "give",
        }
        want = preferred.get(kind)
        if want:
            return want if any(o.id == want for o in options) else decision.default_option_id
        if kind == "attack":
            return options[0].id
        return decision.default_option_id

    # -- helpers --------------------------------------------------------------------------

    def _fumble(self, me: int, obs: JSONDict, opt: Option) -> str:
        owner = {c["id"]: c["owner"] for c in obs["creatures"]}.get(opt.params.get("creature"), me)
        friendly = owner == me or (obs["teams"] and owner % 2 == me % 2)
        return "pass" if friendly else opt.id

    def _place(self, me: int, obs: JSONDict, by_kind: dict[str, list[Option]]) -> str:
        for kind in ("summon", "team"):
            if kind in by_kind:
                return by_kind[kind][0].id
        owner = {c["id"]: c["owner"] for c in obs["creatures"]}
        for o in by_kind.get("enchant", []):
            curse = "cursing" in CONTENT.enchantments[o.params["card_name"]].grants
            if owner.get(o.params["creature"]) == me and not curse:
                return o.id
        return "end"

    def _discard(self, options: Sequence[Option], by_kind: dict[str, list[Option]]) -> str:
        if any(o.id == "done" for o in options):
            return "done"
        return by_kind["discard"][0].id

    def _act(self, me: int, obs: JSONDict, options: Sequence[Option], by_kind: dict[str, list[Option]]) -> str:
        creatures = {c["id"]: c for c in obs["creatures"]}
        teams = bool(obs["teams"])

        def friend(seat: int) -> bool:
            return seat == me or (teams and seat % 2 == me % 2)

        portals = [(p["row"], p["col"]) for p in obs["portals"] if p["owner"] != me]
        loose = [(o["row"], o["col"]) for o in obs["orbs"] if not o["carrier"]]
        enemy_carriers = [
            (creatures[o["carrier"]]["row"], creatures[o["carrier"]]["col"])
            for o in obs["orbs"]
            if o["carrier"] in creatures and not friend(creatures[o["carrier"]]["owner"])
        ]
        we_carry = any(o["carrier"] in creatures and friend(creatures[o["carrier"]]["owner"]) for o in obs["orbs"])
        best: tuple[float, str] = (0.0, "end")

        def consider(score: float, oid: str) -> None:
            nonlocal best
            if score > best[0]:
                best = (score, oid)

        for o in by_kind.get("shoot", []):
            c = creatures[o.params["creature"]]
            consider(60.0 + 2 * c["stats"]["T"], o.id)
        for o in by_kind.get("move", []):
            c = creatures[o.params["creature"]]
            here = (c["row"], c["col"])
            dest = (o.params["row"], o.params["col"])
            if c["orb"] and portals:
                gain = min(_dist(here, p) for p in portals) - min(_dist(dest, p) for p in portals)
                if dest in portals:
                    consider(1000.0, o.id)
                consider(30.0 + 5 * gain if gain > 0 else 0.0, o.id)
            elif not c["orb"] and not we_carry and loose:
                gain = min(_dist(here, p) for p in loose) - min(_dist(dest, p) for p in loose)
                if dest in loose:
                    consider(200.0, o.id)
                consider(20.0 + 4 * gain if gain > 0 else 0.0, o.id)
            elif not c["orb"] and enemy_carriers:
                gain = min(_dist(here, p) for p in enemy_carriers) - min(_dist(dest, p) for p in enemy_carriers)
                consider(10.0 + 2 * gain if gain > 0 else 0.0, o.id)
        for kind in ("attack", "killer", "charge"):
            for o in by_kind.get(kind, []):
                c, t = creatures[o.params["creature"]], creatures[o.params["target"]]
                edge = c["stats"]["A"] + (4 if kind == "charge" else 0) - t["stats"]["D"]
                if t["orb"]:
                    edge += 3
                if edge >= 0:
                    consider(40.0 + edge, o.id)
        for o in by_kind.get("throw", []):
            c, t = creatures[o.params["creature"]], creatures[o.params["target"]]
            if portals and min(_dist((t["row"], t["col"]), p) for p in portals) + 2 < min(
                _dist((c["row"], c["col"]), p) for p in portals
            ):
                consider(25.0 + c["stats"]["T"] + t["stats"]["C"] - 10, o.id)
        for o in by_kind.get("fumble", []):
            t = creatures.get(o.params["creature"])
            if t is not None and not friend(t["owner"]):
                consider(50.0, o.id)
        return best[1]


HOUSE_BOTS: dict[str, type[Any]] = {"random": RandomPolicy, "heuristic": HeuristicPolicy}
"""The house bots shipped with the product, by name."""
