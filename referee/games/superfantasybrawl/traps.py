"""Traps: face-down tokens on trap hexes that trigger when a champion enters (A9).

When a champion enters a hex holding a trap, the token is flipped (public), applied (damage
credited to the effect's source, Root, or Stun), shuffled back into the supply, and the player
controlling that champion places a random token, unseen, on a different empty trap hex; if every
trap hex is blocked, on a free hex adjacent to a trap hex, which is then a trap hex too. This
module also runs the set-up placement. It does not decide paths; movement does.
"""

from __future__ import annotations

from referee.games.superfantasybrawl.attacks import deal
from referee.games.superfantasybrawl.hexes import Hex, hex_id, neighbours, parse_hex
from referee.games.superfantasybrawl.state import ChampState, MatchState, occupied
from referee.games.superfantasybrawl.steps import Frame, Pending, Step, opt, step


def trigger_steps(m: MatchState, c: ChampState, h: Hex, source: str | None) -> list[Step]:
    """The steps that resolve the trap on ``h`` entered by ``c``; ``source`` gets the credit (A9)."""
    return [Frame("trap_trigger", {"champ": c.id, "hex": list(h), "source": source or c.id})]


def free_trap_hexes(m: MatchState, exclude: Hex | None) -> list[Hex]:
    """Where a new token may go: an empty trap hex other than ``exclude``, else a free hex next to one (A9)."""
    occ = occupied(m)
    hexes = [h for h in sorted(m.trap_hexes) if h not in m.traps and h not in occ and h != exclude]
    if hexes:
        return hexes
    around = {n for t in m.trap_hexes for n in neighbours(t)}
    return [
        h
        for h in sorted(around)
        if h in m.content.arena.cells and h not in m.statues and h not in occ and h not in m.traps and h != exclude
    ]


def place_token(m: MatchState, seat: int, h: Hex) -> None:
    """Draws a random token from the supply, unseen, and puts it face down on ``h``."""
    token = m.trap_supply.pop(m.chance.below(len(m.trap_supply)))
    m.traps[h] = (token[0], token[1])
    m.trap_hexes.add(h)
    m.emit("trap_placed", {"seat": seat, "hex": hex_id(h)})
    m.emit("trap_token", {"hex": hex_id(h), "trap_kind": token[0], "amount": token[1]}, frozenset())


@step("trap_trigger")
def _trap_trigger(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    h = (st["hex"][0], st["hex"][1])
    c = m.champs[st["champ"]]
    if h not in m.traps:
        return None
    kind, value = m.traps.pop(h)
    m.trap_supply.append((kind, value))
    m.emit(
        "trap_sprung", {"champion": c.id, "hex": hex_id(h), "trap_kind": kind, "amount": value, "source": st["source"]}
    )
    then: list[Step] = [Frame("trap_replace", {"seat": c.seat, "exclude": list(h)})]
    if kind == "damage":
        deal(m, [(c.id, value)], st["source"])
    elif kind == "root":
        c.rooted = True
        m.emit("rooted", {"champion": c.id, "source": st["source"]})
    else:
        then.insert(
            0,
            Frame(
                "effect",
                {
                    "kw": "stun",
                    "value": 0,
                    "range": 0,
                    "near": "",
                    "champ": c.id,
                    "source": st["source"],
                    "player": c.seat,
                },
            ),
        )
    m.push_all(then)
    return None


@step("trap_replace")
def _trap_replace(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    exclude = (st["exclude"][0], st["exclude"][1]) if st.get("exclude") else None
    if choice is None:
        hexes = free_trap_hexes(m, exclude)
        if not hexes or not m.trap_supply:
            return None
        if len(hexes) == 1:
            place_token(m, st["seat"], hexes[0])
            return None
        options = [opt(f"trap:{hex_id(h)}", "trap", f"put a trap on {hex_id(h)}", hex=hex_id(h)) for h in hexes]
        kind = st.get("kind", "trap_replace")
        return Pending(st["seat"], kind, "choose a hex for a face-down trap", options, options[0].id, st)
    place_token(m, st["seat"], parse_hex(choice.split(":", 1)[1]))
    return None
