"""Read model of a tournament for display: series, bracket columns, crosstable and Swiss standings.

Built from the tournament's ``Match`` rows alone (slot, round and game number on each match), so
it renders whatever the format functions scheduled and never needs their internals. Slots are
named by section: ``W<round>-<n>`` winners' bracket, ``L<round>-<n>`` losers' bracket, ``GF...``
grand final, ``R<round>-<n>`` a round of a round robin or Swiss. Read-only; writes nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from webapp.matches.models import Match, MatchStatus
from webapp.matches.views import match_queryset
from webapp.tournaments import formats
from webapp.tournaments.models import Tournament, TournamentEntrant

SECTION_NAMES = {"W": "Winners' bracket", "L": "Losers' bracket", "GF": "Grand final", "R": "Rounds", "P": "Pods"}
_SLOT = re.compile(r"^(?P<section>GF|[A-Z])(?P<round>\d*)")

BOX_W, BOX_H, COL_GAP, ROW_GAP = 190, 44, 50, 16
"""Bracket layout in SVG user units: series box size and gaps."""


def _section(slot: str) -> str:
    m = _SLOT.match(slot)
    return m.group("section") if m else "R"


def series_of(tournament: Tournament, matches: list[Match], names: dict[int, str]) -> list[dict[str, Any]]:
    """Groups matches into series by slot, with wins per participant and the winner once decided."""
    by_slot: dict[str, list[Match]] = defaultdict(list)
    for m in matches:
        by_slot[m.tournament_slot].append(m)
    need = tournament.best_of // 2 + 1
    out = []
    for slot, games in by_slot.items():
        games.sort(key=lambda m: (m.game_in_series, m.pk))
        current = [g for g in games if g.status != MatchStatus.RESCHEDULED]
        participants: list[int] = [s.bot_version_id for s in games[0].seats.all()]
        wins = dict.fromkeys(participants, 0)
        for g in current:
            if g.status == MatchStatus.FINISHED and g.outcome:
                ranks = g.outcome.get("ranks", [])
                seats = list(g.seats.all())
                winners = [s.bot_version_id for s in seats if s.seat < len(ranks) and ranks[s.seat] == 1]
                if len(winners) == 1:
                    wins[winners[0]] = wins.get(winners[0], 0) + 1
        winner = next((v for v, w in wins.items() if w >= need), None)
        out.append(
            {
                "slot": slot,
                "section": _section(slot),
                "round": games[0].tournament_round or 1,
                "participants": [
                    {"bot_version": v, "name": names.get(v, f"v{v}"), "wins": wins[v]} for v in participants
                ],
                "winner": winner,
                "games": [
                    {
                        "match": g.pk,
                        "status": g.status,
                        "game_in_series": g.game_in_series,
                        "ranks": (g.outcome or {}).get("ranks"),
                    }
                    for g in games
                ],
            }
        )
    out.sort(
        key=lambda s: (
            list(SECTION_NAMES).index(s["section"]) if s["section"] in SECTION_NAMES else 9,
            s["round"],
            _slot_number(str(s["slot"])),
        )
    )
    return out


def _slot_number(slot: str) -> int:
    tail = slot.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def layout(series: list[dict[str, Any]]) -> dict[str, Any]:
    """Positions elimination series as SVG boxes: one column per (section, round), sections stacked."""
    sections: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for s in series:
        sections[s["section"]][s["round"]].append(s)
    boxes: list[dict[str, Any]] = []
    labels: list[dict[str, Any]] = []
    y0 = 24
    width = 0
    for key in [k for k in SECTION_NAMES if k in sections] + [k for k in sections if k not in SECTION_NAMES]:
        rounds = sections[key]
        tallest = max(len(v) for v in rounds.values())
        height = tallest * (BOX_H + ROW_GAP)
        labels.append({"x": 0, "y": y0 - 8, "text": SECTION_NAMES.get(key, key)})
        for col, rnd in enumerate(sorted(rounds)):
            column = rounds[rnd]
            step = height / len(column)
            x = col * (BOX_W + COL_GAP)
            labels.append({"x": x, "y": y0 + 10, "text": f"Round {rnd}", "small": True})
            for i, s in enumerate(column):
                y = y0 + 18 + i * step + (step - BOX_H) / 2
                boxes.append({"x": x, "y": round(y, 1), "series": s, "col": col})
            width = max(width, x + BOX_W)
        y0 += height + 48
    # Connectors from each box to the box of the next column that lies between it and its sibling.
    lines = []
    by_col: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for b in boxes:
        by_col[(b["series"]["section"], b["col"])].append(b)
    for (section, col), column in by_col.items():
        nxt = by_col.get((section, col + 1))
        if not nxt:
            continue
        for i, b in enumerate(column):
            target = nxt[min(len(nxt) - 1, i * len(nxt) // max(1, len(column)))]
            lines.append(
                {"x1": b["x"] + BOX_W, "y1": b["y"] + BOX_H / 2, "x2": target["x"], "y2": target["y"] + BOX_H / 2}
            )
    return {
        "width": width + 10,
        "height": y0,
        "boxes": boxes,
        "labels": labels,
        "lines": lines,
        "box_w": BOX_W,
        "box_h": BOX_H,
    }


def crosstable(entrants: list[TournamentEntrant], series: list[dict[str, Any]], best_of: int = 1) -> dict[str, Any]:
    """Round-robin crosstable: series score of each row entrant against each column entrant.

    A cell shows game wins (``"2-1"``); points count series won, a drawn series half each.
    """
    ids = [e.bot_version_id for e in entrants]
    cell: dict[tuple[int, int], str] = {}
    points: dict[int, float] = dict.fromkeys(ids, 0.0)
    for s in series:
        ps = s["participants"]
        if len(ps) != 2:
            continue
        a, b = ps[0], ps[1]
        decided = s["winner"] is not None
        cell[(a["bot_version"], b["bot_version"])] = f"{a['wins']}-{b['wins']}"
        cell[(b["bot_version"], a["bot_version"])] = f"{b['wins']}-{a['wins']}"
        if decided:
            points[s["winner"]] = points.get(s["winner"], 0.0) + 1.0
        elif sum(g["status"] == MatchStatus.FINISHED for g in s["games"]) >= best_of:
            for p in ps:
                points[p["bot_version"]] = points.get(p["bot_version"], 0.0) + 0.5
    rows = [
        {
            "entrant": e,
            "cells": ["×" if e.bot_version_id == o else cell.get((e.bot_version_id, o), "") for o in ids],
            "points": points.get(e.bot_version_id, 0.0),
        }
        for e in entrants
    ]
    return {"columns": entrants, "rows": rows}


def round_standings(
    tournament: Tournament, series: list[dict[str, Any]], names: dict[int, str]
) -> list[dict[str, Any]]:
    """Standings after each round, with the ladder's tie-breaks (Swiss and pods)."""
    rounds = sorted({s["round"] for s in series})
    out = []
    for rnd in rounds:
        table = formats.standings_after(tournament.state, rnd)
        for row in table:
            row["name"] = names.get(row["bot_version"], f"v{row['bot_version']}")
        out.append({"round": rnd, "table": table})
    return out


def bracket_data(tournament: Tournament, *, for_template: bool = False) -> dict[str, Any]:
    """Returns the tournament's display model (plain data unless ``for_template``)."""
    entrants = list(
        TournamentEntrant.objects.filter(tournament=tournament)
        .select_related("bot_version__bot__owner")
        .order_by("seed", "id")
    )
    names = {e.bot_version_id: f"{e.bot_version.bot.name} v{e.bot_version.number}" for e in entrants}
    matches = list(match_queryset().filter(tournament=tournament).order_by("tournament_round", "id"))
    for m in matches:
        for seat in m.seats.all():
            names.setdefault(seat.bot_version_id, f"{seat.bot_version.bot.name} v{seat.bot_version.number}")
    series = series_of(tournament, matches, names)
    data: dict[str, Any] = {"format": tournament.format, "best_of": tournament.best_of, "series": series}
    if tournament.format in ("single_elim", "double_elim"):
        data["layout"] = layout(series)
    elif tournament.format == "round_robin":
        table = crosstable(entrants, series, tournament.best_of)
        data["crosstable"] = (
            table
            if for_template
            else {
                "columns": [names[e.bot_version_id] for e in table["columns"]],
                "rows": [
                    {"entrant": names[r["entrant"].bot_version_id], "cells": r["cells"], "points": r["points"]}
                    for r in table["rows"]
                ],
            }
        )
    elif tournament.format in ("swiss", "pods"):
        data["standings"] = round_standings(tournament, series, names)
        data["byes"] = [dict(b, name=names.get(b["bot_version"], "")) for b in formats.byes(tournament.state)]
    if tournament.state:
        final = formats.standings_after(tournament.state)
        for row in final:
            row["name"] = names.get(row["bot_version"], f"v{row['bot_version']}")
        data["final_standings"] = final
    return data
