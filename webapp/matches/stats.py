"""Per-bot result counts and head-to-head records (``bots.BotStats``, ``BotOpponentStats``), kept up to date.

The bot page and the leaderboard read these rows instead of counting a bot's matches on every
request (at 100,000 matches the count was most of the bot page's time). The rows live in the bots
app (they describe a bot) but are written here only, by the matches app that records results:
:func:`add_result` from ``webapp.results.do_finish_match``, inside the transaction that records the
result, so a result and its counts commit together or not at all; :func:`recount_bots` when a
finished match stops counting (a rescheduled tournament game) or to rebuild them after a bulk load. Both compute the
outcome of a match for a bot the same way (:func:`match_outcomes`), so the stored rows always equal
:func:`recount` of the ``finished`` matches; ``tests/webapp/test_aggregates.py`` checks that.

Not a rating: ratings (``rankings``) count rated matches per bot version; these count every
finished match of the bot, rated or not, over all its versions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from django.db import transaction
from django.db.models import BigIntegerField, Case, DateTimeField, F, IntegerField, Q, Value, When

from webapp.bots.models import BotOpponentStats, BotSeatStats, BotStats, BotVersion
from webapp.matches.models import MatchSeat, MatchStatus

FIELD = {"win": "wins", "draw": "draws", "loss": "losses"}
"""The count each outcome of :func:`match_outcomes` adds to."""


@dataclass
class Counts:
    """One bot's counts, as :func:`recount` computes them."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_match_id: int | None = None
    last_played: datetime | None = None
    opponents: dict[int, list[int]] = field(default_factory=dict)
    """Opponent bot id -> [wins, draws, losses]."""


def match_outcomes(seats: Iterable[tuple[int, int]]) -> tuple[dict[int, str], dict[tuple[int, int], str]]:
    """Returns each bot's outcome in one finished match and each ordered pair's head-to-head outcome.

    Args:
        seats: (bot id, rank) of every seat; a bot with several seats counts once, at its best rank.

    Returns:
        ``{bot: "win" | "draw" | "loss"}`` (first alone, first with another bot, not first: the
        matches API's ``result`` filter) and ``{(bot, opponent): "win" | "draw" | "loss"}``
        (better rank, same rank, worse rank) for every two distinct bots.
    """
    best: dict[int, int] = {}
    for bot, rank in seats:
        best[bot] = min(rank, best.get(bot, rank))
    firsts = [b for b, r in best.items() if r == 1]
    own = {b: ("loss" if r != 1 else "win" if len(firsts) == 1 else "draw") for b, r in best.items()}
    pairs = {
        (b, o): ("win" if best[b] < best[o] else "loss" if best[b] > best[o] else "draw")
        for b in best
        for o in best
        if b != o
    }
    return own, pairs


def seat_outcomes(ranks: Sequence[int]) -> list[str]:
    """Each seat's own outcome at a finished table: first alone ``"win"``, first with another seat
    ``"draw"``, else ``"loss"`` (the per-seat counts, :class:`~webapp.bots.models.BotSeatStats`)."""
    firsts = sum(1 for r in ranks if r == 1)
    return ["loss" if r != 1 else "win" if firsts == 1 else "draw" for r in ranks]


def add_seat_results(table_size: int, seats: Sequence[tuple[int, int, int]]) -> None:
    """Counts one newly finished match for each seat's bot, by table size and seat; call it beside :func:`add_result`.

    Args:
        table_size: seats at the table.
        seats: (bot version id, seat, rank) of every ranked seat.
    """
    if not seats:
        return
    bot_of = dict(BotVersion.objects.filter(pk__in={v for v, _, _ in seats}).values_list("id", "bot_id"))
    outcomes = seat_outcomes([rank for _, _, rank in seats])
    keys = [(bot_of[v], seat) for v, seat, _ in seats]
    BotSeatStats.objects.bulk_create(
        [BotSeatStats(bot_id=b, table_size=table_size, seat=seat) for b, seat in sorted(set(keys))],
        ignore_conflicts=True,
    )
    rows = [Q(bot_id=b, table_size=table_size, seat=seat) for b, seat in keys]
    pick = {k: _any([q for q, o in zip(rows, outcomes, strict=True) if o == k]) for k in ("win", "draw", "loss")}
    BotSeatStats.objects.filter(_any(rows) or Q(pk=None)).update(
        games=F("games") + 1,
        wins=F("wins") + _plus_one_if(pick["win"]),
        draws=F("draws") + _plus_one_if(pick["draw"]),
        losses=F("losses") + _plus_one_if(pick["loss"]),
    )


def recount_seats(bot_ids: Iterable[int] | None = None) -> dict[tuple[int, int, int], list[int]]:
    """The per-seat counts from the matches table: (bot, table size, seat) -> [games, wins, draws, losses].

    What :func:`add_seat_results` must always agree with (all bots when ``bot_ids`` is ``None``).
    """
    seats = MatchSeat.objects.filter(match__status=MatchStatus.FINISHED)
    wanted = None if bot_ids is None else set(bot_ids)
    if wanted is not None:
        seats = seats.filter(match_id__in=seats.filter(bot_version__bot_id__in=wanted).values("match_id"))
    rows = seats.values_list("match_id", "bot_version__bot_id", "seat", "rank").order_by("match_id", "seat")
    by_match: dict[int, list[tuple[int, int, int | None]]] = defaultdict(list)
    for match_id, bot, seat, rank in rows.iterator(chunk_size=5000):
        by_match[match_id].append((bot, seat, rank))
    out: dict[tuple[int, int, int], list[int]] = {}
    for match_seats in by_match.values():
        ranked = [(bot, seat, rank) for bot, seat, rank in match_seats if rank is not None]
        for (bot, seat, _), outcome in zip(ranked, seat_outcomes([r for _, _, r in ranked]), strict=True):
            if wanted is not None and bot not in wanted:
                continue
            c = out.setdefault((bot, len(match_seats), seat), [0, 0, 0, 0])
            c[0] += 1
            c[1 + ("win", "draw", "loss").index(outcome)] += 1
    return out


def _plus_one_if(condition: Q | None) -> Case | Value:
    if condition is None:
        return Value(0)
    return Case(When(condition, then=Value(1)), default=Value(0), output_field=IntegerField())


def _any(conditions: Sequence[Q]) -> Q | None:
    out: Q | None = None
    for c in conditions:
        out = c if out is None else out | c
    return out


def add_result(match_id: int, finished_at: datetime, seats: Sequence[tuple[int, int]]) -> None:
    """Counts one newly finished match for each of its bots; call it in the transaction that records the result.

    Five statements whatever the number of seats: the versions' bots are read, the missing rows
    inserted (``ON CONFLICT DO NOTHING``), then each table is updated in place with
    ``col = col + ...``, so two matches of the same bot recorded at once both count (the row lock
    orders them).

    Args:
        match_id: the match; it becomes a bot's ``last_match`` if it is its newest.
        finished_at: when the match finished.
        seats: (bot version id, rank) of every seat.
    """
    bot_of = dict(BotVersion.objects.filter(pk__in={v for v, _ in seats}).values_list("id", "bot_id"))
    own, pairs = match_outcomes((bot_of[v], rank) for v, rank in seats)
    if not own:
        return
    bots = sorted(own)
    BotStats.objects.bulk_create([BotStats(bot_id=b) for b in bots], ignore_conflicts=True)
    by_outcome = {k: [b for b in bots if own[b] == k] for k in ("win", "draw", "loss")}
    newer = Q(last_match__isnull=True) | Q(last_match_id__lt=match_id)
    as_id, as_time = BigIntegerField(), DateTimeField()
    BotStats.objects.filter(bot_id__in=bots).update(
        games=F("games") + 1,
        wins=F("wins") + _plus_one_if(Q(bot_id__in=by_outcome["win"]) if by_outcome["win"] else None),
        draws=F("draws") + _plus_one_if(Q(bot_id__in=by_outcome["draw"]) if by_outcome["draw"] else None),
        losses=F("losses") + _plus_one_if(Q(bot_id__in=by_outcome["loss"]) if by_outcome["loss"] else None),
        last_match_id=Case(When(newer, then=Value(match_id)), default=F("last_match_id"), output_field=as_id),
        last_played=Case(When(newer, then=Value(finished_at)), default=F("last_played"), output_field=as_time),
        revision=F("revision") + 1,
    )
    if not pairs:
        return
    ordered = sorted(pairs)
    BotOpponentStats.objects.bulk_create(
        [BotOpponentStats(bot_id=b, opponent_id=o) for b, o in ordered], ignore_conflicts=True
    )
    pick = {
        k: _any([Q(bot_id=b, opponent_id=o) for (b, o) in ordered if pairs[b, o] == k]) for k in ("win", "draw", "loss")
    }
    BotOpponentStats.objects.filter(_any([Q(bot_id=b, opponent_id=o) for b, o in ordered]) or Q(pk=None)).update(
        wins=F("wins") + _plus_one_if(pick["win"]),
        draws=F("draws") + _plus_one_if(pick["draw"]),
        losses=F("losses") + _plus_one_if(pick["loss"]),
    )


def recount(bot_ids: Iterable[int] | None = None) -> dict[int, Counts]:
    """Counts from the matches table: every ``finished`` match of the bots (all bots when ``None``).

    The reference :func:`add_result` must always agree with; bots without a finished match are absent.
    """
    seats = MatchSeat.objects.filter(match__status=MatchStatus.FINISHED, rank__isnull=False)
    wanted = None if bot_ids is None else set(bot_ids)
    if wanted is not None:
        seats = seats.filter(match_id__in=seats.filter(bot_version__bot_id__in=wanted).values("match_id"))
    rows = seats.values_list("match_id", "match__finished_at", "bot_version__bot_id", "rank").order_by("match_id")
    by_match: dict[int, list[tuple[int, int]]] = defaultdict(list)
    finished: dict[int, datetime | None] = {}
    for match_id, finished_at, bot, rank in rows.iterator(chunk_size=5000):
        by_match[match_id].append((bot, cast(int, rank)))  # ranked seats only (the filter above)
        finished[match_id] = finished_at
    out: dict[int, Counts] = {}
    for match_id, match_seats in by_match.items():
        own, pairs = match_outcomes(match_seats)
        for bot, outcome in own.items():
            if wanted is not None and bot not in wanted:
                continue
            c = out.setdefault(bot, Counts())
            c.games += 1
            setattr(c, FIELD[outcome], getattr(c, FIELD[outcome]) + 1)
            if c.last_match_id is None or match_id > c.last_match_id:
                c.last_match_id, c.last_played = match_id, finished[match_id]
        for (bot, opponent), outcome in pairs.items():
            if wanted is not None and bot not in wanted:
                continue
            record = out[bot].opponents.setdefault(opponent, [0, 0, 0])
            record[("win", "draw", "loss").index(outcome)] += 1
    return out


@transaction.atomic
def recount_bots(bot_ids: Iterable[int] | None = None) -> int:
    """Rewrites the stored counts of the bots (all bots when ``None``) from :func:`recount`; returns the rows written.

    For a match that stops counting (``matches.services.do_reschedule_match``) and for rebuilding
    after a bulk load; a few queries per call, proportional to the bots' matches.
    """
    wanted = None if bot_ids is None else sorted(set(bot_ids))
    stats = BotStats.objects.all() if wanted is None else BotStats.objects.filter(bot_id__in=wanted)
    opponents = BotOpponentStats.objects.all() if wanted is None else BotOpponentStats.objects.filter(bot_id__in=wanted)
    if wanted:  # every bot gets a row to lock, so a result recorded concurrently waits for this one
        BotStats.objects.bulk_create([BotStats(bot_id=b) for b in wanted], ignore_conflicts=True)
    # Locks the bots' rows before counting (bot id order, as add_result updates them), so no result
    # recorded meanwhile is lost; then replaces them.
    revisions = dict(stats.select_for_update().order_by("bot_id").values_list("bot_id", "revision"))
    counts = recount(wanted)
    stats.delete()
    opponents.delete()
    seat_rows = BotSeatStats.objects.all() if wanted is None else BotSeatStats.objects.filter(bot_id__in=wanted)
    seat_rows.delete()
    BotSeatStats.objects.bulk_create(
        [
            BotSeatStats(bot_id=b, table_size=n, seat=seat, games=g, wins=w, draws=d, losses=lo)
            for (b, n, seat), (g, w, d, lo) in sorted(recount_seats(wanted).items())
        ],
        batch_size=5000,
    )
    # A bot that had a row keeps one (with zeros if nothing counts any more), so its revision only goes up.
    BotStats.objects.bulk_create(
        [
            BotStats(
                bot_id=bot,
                games=c.games,
                wins=c.wins,
                draws=c.draws,
                losses=c.losses,
                last_match_id=c.last_match_id,
                last_played=c.last_played,
                revision=revisions.get(bot, 0) + 1,
            )
            for bot in sorted(set(counts) | set(revisions))
            for c in [counts.get(bot, Counts())]
        ],
        batch_size=5000,
    )
    BotOpponentStats.objects.bulk_create(
        [
            BotOpponentStats(bot_id=bot, opponent_id=o, wins=w, draws=d, losses=lo)
            for bot, c in sorted(counts.items())
            for o, (w, d, lo) in sorted(c.opponents.items())
        ],
        batch_size=5000,
    )
    return len(set(counts) | set(revisions))
