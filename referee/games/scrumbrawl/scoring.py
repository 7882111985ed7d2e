"""Chips, victory and the end of the game (sections 1.6.2 d, 1.6.3 a, 1.7, 1.8).

A goal earns a blue chip, three skins a red chip; the first player or team with three chips, at
least one blue, wins at once. Last Man Standing counts chips down instead. The round cap ends
every game: after ``max_rounds`` rounds the tie rule ranks by chips, then blue chips, then skins.
"""

from __future__ import annotations

from referee.core.contract import Outcome, Termination
from referee.games.scrumbrawl.engine import Frame, SBMatch, step


def team_seats(m: SBMatch, team: int) -> list[int]:
    """The seats pooling chips as ``team``."""
    return [s for s in range(m.seats) if m.team_of(s) == team]


def score_key(m: SBMatch, seat: int) -> tuple[int, ...]:
    """What ranks seats at the cap (higher is better): chips, blue chips, skins; LMS: chips left, survival."""
    t = m.team_of(seat)
    if m.lms:
        return (
            0 if m.eliminated[seat] else 1,
            m.lms_chips[seat],
            m.elim_order.index(seat) if seat in m.elim_order else 99,
        )
    return (m.blue[t] + m.red[t], m.blue[t], len(m.skins[t]))


def shown_score(m: SBMatch, seat: int) -> int:
    """The chips shown for ``seat`` in the outcome."""
    t = m.team_of(seat)
    return m.lms_chips[seat] if m.lms else m.blue[t] + m.red[t]


def ranks_by_key(m: SBMatch, first: set[int] | None = None) -> tuple[int, ...]:
    """Dense ranks (1, 2, 3... per distinct score): ``first`` (if given) share 1, the rest by :func:`score_key`.

    Dense ranking keeps a 2v2 result at (1, 2, 1, 2): teammates share every key.
    """
    keys = {s: score_key(m, s) for s in range(m.seats)}
    if first:
        for s in first:
            keys[s] = (999, *keys[s])
    ordered = sorted(set(keys.values()), reverse=True)
    rank_of: dict[tuple[int, ...], int] = {}
    for place, k in enumerate(ordered, start=1):
        rank_of[k] = place
    return tuple(rank_of[keys[s]] for s in range(m.seats))


def end_game(m: SBMatch, termination: Termination, reason: str, winners: set[int] | None = None) -> None:
    """Ends the match with ranks from :func:`ranks_by_key`."""
    ranks = ranks_by_key(m, winners)
    m.finish(Outcome(ranks, termination, reason, tuple(shown_score(m, s) for s in range(m.seats))))


@step("chip")
def _chip(m: SBMatch, f: Frame) -> None:
    seat, color = f["seat"], f["color"]
    team = m.team_of(seat)
    if color == "blue":
        m.blue[team] += 1
    else:
        m.red[team] += 1
    m.emit("chip", {"seat": seat, "detail": color, "values": [m.blue[team], m.red[team]]})
    if m.blue[team] + m.red[team] >= 3 and m.blue[team] >= 1:
        end_game(m, Termination.VICTORY, f"seat {seat} reached three chips with a blue", set(team_seats(m, team)))


@step("lms_lose")
def _lms_lose(m: SBMatch, f: Frame) -> None:
    seat = f["seat"]
    if seat < 0 or m.eliminated[seat]:
        return
    m.lms_chips[seat] -= 1
    m.emit("chip_lost", {"seat": seat, "values": [m.lms_chips[seat]]})
    if m.lms_chips[seat] > 0:
        return
    m.eliminated[seat] = True
    m.elim_order.append(seat)
    m.emit("eliminated", {"seat": seat})
    for pid in [p for p, o in m.portal_owner.items() if o == seat]:
        m.portals.pop(pid, None)
    alive = [s for s in range(m.seats) if not m.eliminated[s]]
    if len(alive) == 1:
        end_game(m, Termination.LAST_STANDING, f"seat {alive[0]} is the last player standing", {alive[0]})
        return
    for c in sorted(m.creatures.values(), key=lambda c: c.id, reverse=True):
        if c.owner == seat:
            m.push("destroy", cid=c.id, killer=None, cause="lms")


@step("advance")
def _advance(m: SBMatch, f: Frame) -> None:
    from referee.games.scrumbrawl.turn import begin_turn

    for c in m.creatures.values():
        if c.owner == m.active and 0 <= c.stone_turn < m.turn:
            c.stone_turn = -1
            m.emit("ability", {"creature": c.id, "name": "Gargoyle", "detail": "stone ends"})
    m.first_turn_done[m.active] = True
    nxt = m.active
    for _ in range(m.seats):
        nxt = (nxt + 1) % m.seats
        if not m.eliminated[nxt]:
            break
    if nxt <= m.active:
        m.round += 1
    m.turn += 1
    m.active = nxt
    if m.round > m.max_rounds:
        end_game(m, Termination.ROUND_CAP, f"round cap of {m.max_rounds} rounds reached")
        return
    begin_turn(m)
