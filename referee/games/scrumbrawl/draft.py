"""The Creature Draft variant (section B8): creatures drafted from 12 piles into personal decks.

The creatures are shuffled into 12 face-up piles (ten of 4 and two of 5 for the full 50; as even
as possible otherwise). Picks follow the snake orders of the variant page; "whoever drafts first
takes their turn last and the draft goes counter-clockwise", so draft player 1 is the last seat
and draft player k is seat ``seats - k``. Each player then keeps 10 of its creatures (releasing
the rest one by one, out of the game) as a face-down personal creature deck; the remaining cards
form the main deck. When drawing, a player chooses, card by card, which deck to draw from.
"""

from __future__ import annotations

from referee.core.contract import Option
from referee.games.scrumbrawl.engine import Frame, SBMatch, decision, step

SNAKE = {
    2: (1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1),
    3: (1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2, 1),
    4: (1, 2, 3, 4, 4, 3, 2, 1, 1, 2, 3, 4),
}
"""Draft player (1-based) of each of the 12 picks, by table size."""
KEEP = 10
"""Creatures each player keeps."""


def pile_sizes(n: int) -> list[int]:
    """Sizes of the 12 piles for ``n`` creatures: 10 of 4 and 2 of 5 for 50, as even as possible otherwise."""
    base, extra = divmod(n, 12)
    return [base] * (12 - extra) + [base + 1] * extra


def start_draft(m: SBMatch, creatures: list[str]) -> None:
    """Deals the piles and schedules the picks, then the keep-10 choices (pushed above ``m``'s later frames)."""
    m.piles = []
    rest = list(creatures)
    for size in pile_sizes(len(rest)):
        m.piles.append(rest[:size])
        rest = rest[size:]
    m.emit("draft", {"values": [len(p) for p in m.piles]})
    for seat in reversed(range(m.seats)):
        m.push("release", seat=seat, prompt="release creatures down to ten")
    for pick in reversed(SNAKE[m.seats]):
        m.push("draft_pick", seat=m.seats - pick, prompt="take a pile")


def _pick_options(m: SBMatch, f: Frame) -> list[Option]:
    return [
        Option(f"pile:{i}", "pile", "take pile " + ", ".join(m.card_names[k] for k in pile), {"die": i})
        for i, pile in enumerate(m.piles)
        if pile
    ]


@decision("draft_pick", "draft", _pick_options, default="first")
def _pick(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    i = opt.params["die"]
    seat = f["seat"]
    taken, m.piles[i] = m.piles[i], []
    m.personal[seat].extend(taken)
    m.emit("drafted", {"seat": seat, "values": [i], "name": ", ".join(m.card_names[k] for k in taken)})


def _release_options(m: SBMatch, f: Frame) -> list[Option]:
    mine = m.personal[f["seat"]]
    if len(mine) <= KEEP:
        return []
    return [
        Option(f"release:{k}", "release", f"release {m.card_names[k]}", {"card": k, "card_name": m.card_names[k]})
        for k in sorted(mine, key=lambda k: int(k[1:]))
    ]


@decision("release", "release", _release_options, default="first")
def _release(m: SBMatch, f: Frame, opt: Option) -> None:
    seat = f["seat"]
    m.personal[seat].remove(opt.params["card"])
    m.emit("released", {"seat": seat, "card": opt.params["card"], "name": opt.params["card_name"]})
    if len(m.personal[seat]) <= KEEP:
        m.stack.pop()
        m.chance.shuffle(m.personal[seat])


def _source_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["seat"]
    if not m.personal[seat] or not (m.deck or m.discard):
        return []
    return [
        Option("draw:creatures", "draw", "draw from your creature deck", {"choice": "creatures"}),
        Option("draw:main", "draw", "draw from the main deck", {"choice": "main"}),
    ]


@decision("draw_source", "draw_source", _source_options, default="draw:main")
def _source(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    m.draw_from = opt.params["choice"]


@step("draft_done")
def _draft_done(m: SBMatch, f: Frame) -> None:
    m.emit("draft_done", {"values": [len(p) for p in m.personal]})
