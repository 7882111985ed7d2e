"""Set-up and the round: named phases as steps in lists (A2-A5).

``SETUP`` is the list of set-up steps, ``TURN`` the phases of one turn. A variant changes the
lists or a config field, not the handlers. Set-up: first player, deployment side, champion
selection (free, casual draft, competitive draft or fixed teams), decks, traps placed by the
players, challenge track, mulligan, deployment. A turn: scoreboard, activation, upkeep; after
the last seat's turn the challenge track advances and the round count goes up.
"""

from __future__ import annotations

from itertools import combinations

from referee.core.contract import Option
from referee.games.superfantasybrawl.challenges import draw_challenge
from referee.games.superfantasybrawl.content import COLOURS
from referee.games.superfantasybrawl.hexes import hex_id, parse_hex
from referee.games.superfantasybrawl.movement import endable
from referee.games.superfantasybrawl.state import MatchState, team
from referee.games.superfantasybrawl.steps import Frame, Pending, Step, opt, step

SETUP = [
    "choose_first",
    "choose_side",
    "selection",
    "build_decks",
    "setup_traps",
    "setup_track",
    "mulligans",
    "deployments",
    "first_turn",
]
"""The set-up steps, in order (A2)."""
TURN = ["scoreboard", "activation", "upkeep", "turn_end"]
"""The phases of a turn (A5)."""


@step("choose_first")
def _choose_first(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    m.first = m.chance.below(m.seats)
    m.emit("first_player", {"seat": m.first})
    return None


@step("choose_side")
def _choose_side(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    if choice is None:
        options = [opt(f"side:{i}", "side", f"deploy on side {i}", value=i) for i in (0, 1)]
        return Pending(m.first, "side", "choose your deployment area", options, "side:0", st)
    mine = int(choice.split(":")[1])
    m.deploy_side[team(m, m.first)] = mine
    m.deploy_side[1 - team(m, m.first)] = 1 - mine
    m.emit("side_chosen", {"seat": m.first, "value": mine})
    return None


def _pick_order(m: MatchState) -> list[int]:
    mode = m.config["selection"]
    n = m.per_seat
    order = m.order_from(m.first)
    if mode == "casual":
        rev = list(reversed(order))
        return rev * n  # the last player in turn order picks first (A3: P2, P1, P2, P1, ...)
    if mode == "competitive":
        return order * n
    return [s for s in order for _ in range(n)]  # free choice: each seat takes its whole team in turn


@step("selection")
def _selection(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    mode = m.config["selection"]
    if mode == "fixed":
        for seat, ids in enumerate(m.config["teams"]):
            for cid in ids:
                m.add_champion(cid, seat)
        return None
    if "picks" not in st:
        st["picks"] = _pick_order(m)
        st["bans"] = list(m.order_from(m.first)) if mode == "competitive" else []
        st["banned"] = []
    if st["bans"]:
        seat = st["bans"][0]
        victim = m.order_from(seat)[1]
        pool = [c for c in m.config["pools"][victim] if c not in st["banned"]]
        if choice is None:
            options = [opt(f"ban:{c}", "ban", f"ban {c}", champion=c, seat=victim) for c in pool]
            return Pending(seat, "ban", "ban one champion from the opponent's pool", options, options[0].id, st)
        st["banned"].append(choice[4:])
        st["bans"].pop(0)
        m.emit("banned", {"seat": seat, "champion": choice[4:]})
        m.push_all([st])
        return None
    if not st["picks"]:
        return None
    seat = st["picks"][0]
    taken = set(m.champs)
    if mode == "competitive":
        pool = [c for c in m.config["pools"][seat] if c not in st["banned"] and c not in taken]
    elif mode == "casual":
        pool = [c for c in m.config["pool"] if c not in taken]
    else:
        pool = [c for c in sorted(m.content.champions) if c not in taken]
    if choice is None:
        options = [opt(f"pick:{c}", "pick", f"pick {c}", champion=c) for c in pool]
        return Pending(seat, "pick", "pick a champion", options, options[0].id, st)
    m.add_champion(choice[5:], seat)
    m.emit("picked", {"seat": seat, "champion": choice[5:]})
    st["picks"].pop(0)
    m.push_all([st])
    return None


@step("build_decks")
def _build_decks(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    for seat in range(m.seats):
        deck = [cid for c in m.champs.values() if c.seat == seat for cid in m.content.champions[c.id].cards]
        m.chance.shuffle(deck)
        m.decks[seat] = deck
    return None


@step("setup_traps")
def _setup_traps(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    # 2 players: the first places 2, then the second 2 (A2.6-7). 4 players: one each in turn order.
    order = m.order_from(m.first)
    per = m.content.traps_on_board // len(order)
    extra = m.content.traps_on_board - per * len(order)
    seats = [s for s in order for _ in range(per)] + order[:extra]
    m.push_all([Frame("trap_replace", {"seat": s, "exclude": None, "kind": "setup_trap"}) for s in seats])
    return None


@step("setup_track")
def _setup_track(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    track = m.content.tracks[m.track_key]
    m.ch_deck = sorted(m.content.challenges)
    m.chance.shuffle(m.ch_deck)
    m.track = [None] * len(track.slots)
    for slot in range(track.setup):
        m.track[slot] = draw_challenge(m)
    m.emit("track_advanced", {"challenges": [c or "" for c in m.track]})
    return None


def mulligan_options(hand: list[str]) -> list[Option]:
    """Every subset of the hand to put back, the empty subset (keep all) first."""
    cards = sorted(hand)
    out = [opt("mulligan:none", "mulligan", "keep the hand")]
    for k in range(1, len(cards) + 1):
        for combo in combinations(cards, k):
            out.append(opt("mulligan:" + "+".join(combo), "mulligan", f"redraw {k}", cards=list(combo)))
    return out


@step("mulligans")
def _mulligans(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    if "seats" not in st:
        st["seats"] = m.order_from(m.first)
        m.draw(st["seats"][0], m.hand_size)
    seat = st["seats"][0]
    if choice is None:
        return Pending(
            seat, "mulligan", "choose cards to redraw (once)", mulligan_options(m.hands[seat]), "mulligan:none", st
        )
    back = [] if choice == "mulligan:none" else choice[9:].split("+")
    for cid in back:
        m.hands[seat].remove(cid)
    m.emit("mulligan", {"seat": seat, "count": len(back)})
    m.draw(seat, len(back))
    # The redrawn cards are shuffled back into the deck only after the replacements are drawn (A2.8).
    m.decks[seat].extend(back)
    m.chance.shuffle(m.decks[seat])
    m.known_top[seat] = 0
    st["seats"].pop(0)
    if st["seats"]:
        m.draw(st["seats"][0], m.hand_size)
        m.push_all([st])
    return None


@step("deployments")
def _deployments(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    if "queue" not in st:
        st["queue"] = [c.id for s in m.order_from(m.first) for c in m.champs.values() if c.seat == s]
    if not st["queue"]:
        return None
    c = m.champs[st["queue"][0]]
    area = m.content.arena.deployment[m.deploy_side[team(m, c.seat)]]
    if choice is None:
        options = [
            opt(f"deploy:{hex_id(h)}", "deploy", f"deploy {c.id} on {hex_id(h)}", champion=c.id, hex=hex_id(h))
            for h in sorted(area)
            if endable(m, h)
        ]
        return Pending(c.seat, "deploy", f"deploy {c.id}", options, options[0].id, st)
    c.hex = parse_hex(choice.split(":", 1)[1])
    c.deployed = True
    m.emit("deployed", {"champion": c.id, "hex": hex_id(c.hex), "seat": c.seat})
    st["queue"].pop(0)
    m.push_all([st])
    return None


@step("first_turn")
def _first_turn(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    m.round = 1
    m.phase = "play"
    m.push_all([Frame("turn_start", {"seat": m.first})])
    return None


@step("turn_start")
def _turn_start(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    m.active = st["seat"]
    m.std_used = []
    m.emit("turn", {"seat": m.active, "round": m.round})
    m.push_all([Frame(name) for name in TURN])
    return None


@step("upkeep")
def _upkeep(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    seat = m.active
    for colour in COLOURS:
        m.cores[seat][colour] = True
    m.discards[seat].extend(sorted(m.hands[seat]))
    m.emit("hand_discarded", {"seat": seat, "cards": sorted(m.hands[seat])})
    m.hands[seat] = []
    m.revealed[seat] = set()
    m.draw(seat, m.hand_size)
    return None


@step("turn_end")
def _turn_end(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    for c in m.champs.values():
        c.rooted = False  # Root lasts until the end of the turn (FAQ A16.2)
        c.defence_turn = 0
    order = m.order_from(m.first)
    nxt = order[(order.index(m.active) + 1) % len(order)]
    if nxt == m.first:
        m.push_all([Frame("advance_track"), Frame("round_end", {"seat": nxt})])
    else:
        m.push_all([Frame("turn_start", {"seat": nxt})])
    return None


@step("round_end")
def _round_end(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    if m.round >= m.config["round_cap"]:
        m.end_by_round_cap()
        return None
    m.round += 1
    m.push_all([Frame("turn_start", {"seat": st["seat"]})])
    return None
