"""Ladder matchmaking: a pure function from the online bots to the next matches of one game.

Inputs are plain values: the online versions with their free capacity, rating, deviation and how
long they have waited (:class:`Candidate`), the recent matches (:class:`RecentMatch`), ``now`` and a
seeded :class:`random.Random` owned by the caller (the worker seeds it, for example, from the tick's
timestamp, so a tick can be replayed). Nothing here reads a clock or the global random generator.

How a call works (``docs/ladder.md`` has the reasons):

1. **Urgency.** Every candidate with free capacity gets an urgency: its wait in units of
   ``target_wait``, plus a bonus while it is new (fewer than ``new_games`` rated games), plus a
   bonus growing with its deviation, plus a tiny random jitter. Bonuses are bounded, so waiting
   always wins in the end.
2. **Tables.** The pool is cut into tables of the allowed sizes (2 for a duel; 4 and 3 for
   ScrumBrawl pods) covering as many candidates as possible. The most urgent unseated candidate
   opens each table.
3. **Opponents.** Each further seat is drawn at random among the unseated candidates: with
   probability ``explore`` uniformly, otherwise weighted by rating closeness to the table (a
   Gaussian whose width grows with both deviations, so unsettled bots meet a wider range), by the
   candidate's own uncertainty, and halved for every recent meeting. Versions of the same bot never
   share a table; a pair that met ``max_rematches`` times inside ``rematch_window`` is excluded
   unless nobody else is left. Tables are filled greedily, most urgent first, so a late table can
   be left with only over-the-limit partners; it is then made anyway (playing beats starving).
4. **Seats.** With ``mirrored`` the table is played in every seat rotation with one seed, so seat
   order and dice luck cancel (two matches for a duel, three or four for a pod). Otherwise one
   match is made and seats are balanced from the recent history: whoever sat further back so far
   sits first.

No starvation: in every call every candidate with capacity is seated except the least urgent few
left over when the pool does not divide into tables (at most one for duels and for pods of 4 and
3). A left-over candidate's wait keeps growing while everyone seated restarts from zero, and the
bonuses are bounded by ``B = 2 + uncertainty_weight + 0.01`` units, so with calls every ``i`` it
is seated again within ``1 + B·target_wait/i`` calls (derived in docs/ladder.md and checked by
simulation in ``tests/ladder/test_matchmaking.py``).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ladder.errors import InvalidResultError
from ladder.history import RatingConfig, VersionRating
from ladder.ids import BotId, BotVersionId
from ladder.tournaments.pods import plan_pods

MAX_DEVIATION = 350.0
"""The deviation of a brand-new version; uncertainty bonuses are measured against it."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """An online version that could play now."""

    version: BotVersionId
    """The version."""
    bot: BotId
    """Its bot: two versions of one bot never share a table."""
    rating: float
    """Its published (Elo) rating."""
    deviation: float
    """Its rating deviation as of now (:meth:`ladder.history.VersionRating.deviation_at`)."""
    games: int
    """Rated games it has played."""
    capacity: int
    """How many tables it may join in this call (free match slots; 0 when busy)."""
    waiting_since: datetime
    """When it last finished a match or came online, whichever is later."""


def candidate_from_rating(
    rating: VersionRating,
    bot: BotId,
    capacity: int,
    waiting_since: datetime,
    now: datetime,
    config: RatingConfig | None = None,
) -> Candidate:
    """Builds a candidate from a stored rating, with the deviation grown for idle time until ``now``."""
    config = config or RatingConfig()
    return Candidate(
        version=rating.version,
        bot=bot,
        rating=rating.elo,
        deviation=rating.deviation_at(now, config),
        games=rating.games,
        capacity=capacity,
        waiting_since=waiting_since,
    )


@dataclass(frozen=True, slots=True)
class RecentMatch:
    """A match played or scheduled recently, for rematch limits and seat balance."""

    seats: tuple[BotVersionId, ...]
    """Versions in seat order."""
    played_at: datetime
    """When it was played (or scheduled)."""


@dataclass(frozen=True, slots=True)
class MatchmakingConfig:
    """One game's matchmaking options.

    Raises:
        InvalidResultError: if an option is out of range.
    """

    table_sizes: tuple[int, ...] = (2,)
    """Players per match, preferred first: ``(2,)`` for a duel, ``(4, 3)`` for ScrumBrawl pods."""
    mirrored: bool = False
    """Play every table in each seat rotation with one shared seed (dice luck cancels)."""
    rating_window: float = 200.0
    """Width (Elo points) of the closeness preference before deviations widen it."""
    explore: float = 0.1
    """Chance that a seat is filled uniformly at random, ignoring ratings."""
    uncertainty_weight: float = 1.0
    """How strongly a high deviation raises urgency and the chance of being picked."""
    new_games: int = 20
    """Versions with fewer rated games than this get an urgency bonus."""
    target_wait: timedelta = timedelta(minutes=10)
    """The wait worth one unit of urgency."""
    rematch_window: timedelta = timedelta(hours=24)
    """How far back meetings count for the rematch limit and seat balance."""
    max_rematches: int = 4
    """Meetings of a pair inside the window after which it is not paired again (unless nobody else is left)."""
    passes: int = 1
    """How many times a candidate with enough capacity may be seated in one call."""

    def __post_init__(self) -> None:
        if not self.table_sizes or min(self.table_sizes) < 2:
            raise InvalidResultError(f"table sizes must be 2 or more: {self.table_sizes!r}")
        if not 0.0 <= self.explore <= 1.0 or self.rating_window <= 0 or self.passes < 1:
            raise InvalidResultError(f"matchmaking options out of range: {self!r}")
        if self.target_wait <= timedelta(0) or self.max_rematches < 1 or self.uncertainty_weight < 0:
            raise InvalidResultError(f"matchmaking options out of range: {self!r}")


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """A match to start."""

    seats: tuple[BotVersionId, ...]
    """Versions in seat order."""
    seed: int
    """The match seed for the referee's seeded chance (63 bits)."""
    table: int
    """Index of the table in this call; mirrored matches of one table share it and the seed."""


@dataclass(slots=True)
class _History:
    meetings: Counter[frozenset[BotVersionId]] = field(default_factory=Counter)
    seat_sum: Counter[BotVersionId] = field(default_factory=Counter)
    seat_games: Counter[BotVersionId] = field(default_factory=Counter)

    def add(self, seats: Sequence[BotVersionId]) -> None:
        for i, a in enumerate(seats):
            self.seat_sum[a] += i
            self.seat_games[a] += 1
            for b in seats[i + 1 :]:
                self.meetings[frozenset((a, b))] += 1

    def average_seat(self, version: BotVersionId) -> float:
        games = self.seat_games[version]
        return self.seat_sum[version] / games if games else 0.0


JITTER = 0.01
"""Largest random addition to an urgency, to break ties without favouring an id."""


def max_bonus(config: MatchmakingConfig) -> float:
    """The largest urgency a candidate can have without waiting (new, unsettled, jitter)."""
    return 2.0 + config.uncertainty_weight + JITTER


def urgency(candidate: Candidate, now: datetime, config: MatchmakingConfig) -> float:
    """How much a candidate needs a match now: wait in ``target_wait`` units plus bounded bonuses."""
    wait = max(0.0, (now - candidate.waiting_since) / config.target_wait)
    new = 1.0 + (config.new_games - candidate.games) / config.new_games if candidate.games < config.new_games else 0.0
    unsettled = config.uncertainty_weight * min(1.0, candidate.deviation / MAX_DEVIATION)
    return wait + new + unsettled


def make_matches(
    candidates: Iterable[Candidate],
    recent: Iterable[RecentMatch],
    now: datetime,
    rng: random.Random,
    config: MatchmakingConfig = MatchmakingConfig(),
) -> tuple[ScheduledMatch, ...]:
    """Returns the matches to start now for one game.

    Args:
        candidates: online versions (those with no capacity are ignored).
        recent: recent matches of this game, any order; older than ``rematch_window`` are ignored.
        now: the current time.
        rng: the caller's seeded random source; the only randomness used.
        config: the game's options.

    Returns:
        Matches in table order; each table's mirrored matches are consecutive.

    Raises:
        InvalidResultError: if a version appears twice among the candidates.
    """
    pool = [c for c in candidates if c.capacity > 0]
    if len({c.version for c in pool}) != len(pool):
        raise InvalidResultError("a version appears twice among the candidates")
    history = _History()
    for match in recent:
        if now - match.played_at <= config.rematch_window:
            history.add(match.seats)
    capacity = {c.version: c.capacity for c in pool}
    out: list[ScheduledMatch] = []
    table_index = 0
    for _ in range(config.passes):
        live = [c for c in pool if capacity[c.version] > 0]
        ranked = sorted(live, key=lambda c: (-(urgency(c, now, config) + rng.random() * JITTER), c.version))
        for table in _tables(ranked, history, rng, config):
            for c in table:
                capacity[c.version] -= 1
            seed = rng.getrandbits(63)
            for seats in _seatings(table, history, rng, config):
                out.append(ScheduledMatch(seats, seed, table_index))
            history.add([c.version for c in table])
            table_index += 1
    return tuple(out)


def _tables(
    ranked: list[Candidate], history: _History, rng: random.Random, config: MatchmakingConfig
) -> list[list[Candidate]]:
    sizes = plan_pods(len(ranked), config.table_sizes)
    # The least urgent candidates are the ones left over, never a random one: this is what bounds
    # how long anybody can be left out (see the module docstring).
    seated = ranked[: sum(sizes)]
    tables = []
    for size in sizes:
        if len(seated) < size:
            break
        table = [seated.pop(0)]
        while len(table) < size:
            pick = _pick(table, seated, history, rng, config)
            if pick is None:
                break
            seated.remove(pick)
            table.append(pick)
        if len(table) == size:
            tables.append(table)
        else:
            # The opener could not fill its table (only versions of its own bot are left); the
            # others go back for later tables.
            seated.extend(table[1:])
            seated.sort(key=ranked.index)
    return tables


def _pick(
    table: list[Candidate],
    unseated: list[Candidate],
    history: _History,
    rng: random.Random,
    config: MatchmakingConfig,
) -> Candidate | None:
    bots = {c.bot for c in table}
    allowed = [c for c in unseated if c.bot not in bots]
    if not allowed:
        return None
    fresh = [
        c
        for c in allowed
        if all(history.meetings[frozenset((c.version, m.version))] < config.max_rematches for m in table)
    ]
    if not fresh:
        fewest = min(sum(history.meetings[frozenset((c.version, m.version))] for m in table) for c in allowed)
        fresh = [
            c for c in allowed if sum(history.meetings[frozenset((c.version, m.version))] for m in table) == fewest
        ]
    if rng.random() < config.explore:
        return fresh[rng.randrange(len(fresh))]
    centre = sum(m.rating for m in table) / len(table)
    spread = max(m.deviation for m in table)
    weights = []
    for c in fresh:
        width = math.sqrt(config.rating_window**2 + spread**2 + c.deviation**2)
        closeness = math.exp(-0.5 * ((c.rating - centre) / width) ** 2)
        unsettled = 1.0 + config.uncertainty_weight * min(1.0, c.deviation / MAX_DEVIATION)
        repeats = sum(history.meetings[frozenset((c.version, m.version))] for m in table)
        weights.append(closeness * unsettled * 0.5**repeats)
    return rng.choices(fresh, weights=weights)[0]


def _seatings(
    table: list[Candidate], history: _History, rng: random.Random, config: MatchmakingConfig
) -> list[tuple[BotVersionId, ...]]:
    # Whoever sat further back on average sits first; the random key breaks ties without bias.
    order = sorted(table, key=lambda c: (-history.average_seat(c.version), rng.random()))
    seats = tuple(c.version for c in order)
    if not config.mirrored:
        return [seats]
    return [seats[i:] + seats[:i] for i in range(len(seats))]
