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
2. **Tables.** As many candidates as the rules allow are seated, in tables of the allowed sizes
   (2 for a duel; 4 and 3 for ScrumBrawl pods). A depth-first search seats the most urgent
   unplaced candidate first, drawing each further seat at random by preference (step 3), and
   backtracks when the rest cannot be seated, so the rules below are applied while seating: a
   table that can be filled is filled, and the ones left over are the least urgent unless
   seating them would seat fewer in all.
3. **Opponents.** Each seat is drawn among the candidates the rules allow: with probability
   ``explore`` uniformly, otherwise weighted by rating closeness to the table (a Gaussian whose
   width grows with both deviations, so unsettled bots meet a wider range), by the candidate's
   own uncertainty, and halved for every recent meeting. Weights are kept as logarithms and drawn
   by an exponential race, so none underflows however often a pair has met. The rules: versions
   of the same bot never share a table; a pair that met ``max_rematches`` times inside
   ``rematch_window`` (a mirrored set is one meeting) does not meet again unless one of the two
   has waited ``rematch_patience`` - then partners inside the limit are still tried first; and
   a pair seated together in this call is not seated together again in a later pass.
   With ``preference="information"`` the closeness-and-uncertainty weight is replaced by the
   game's expected information (:func:`information`, Glicko-2's variance reduction for both
   players), and unsettled versions get ``information_weight`` more urgency. Two candidates of
   one author (``Candidate.owner``) never share a table of more than two seats
   (``separate_authors``, on by default).
4. **Seats.** With ``mirrored`` the table is played in every seat rotation with one seed, so seat
   order and dice luck cancel (two matches for a duel, three or four for a pod). Otherwise one
   match is made and seats are balanced from the recent history: whoever sat further back so far
   sits first.

No stall: whenever some legal table exists among the candidates, the first descent of the search
seats at least one. No starvation: a candidate held back by the rematch limit becomes free of it
after ``rematch_patience``; from then on it is left over only when the pool does not divide into
tables or for more urgent candidates, whose urgency is bounded by
``B = max_bonus(config)`` units (``2 + uncertainty_weight + 0.01``, plus ``information_weight``
with the information preference) plus their own wait, so with calls every ``i`` it is
seated within ``1 + (B·target_wait + rematch_patience)/i`` calls of a legal table existing
(derived in docs/ladder.md and checked by the week-long simulation in
``tests/ladder/test_matchmaking_week.py``).
"""

from __future__ import annotations

import contextlib
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ladder.errors import InvalidResultError
from ladder.history import RatingConfig, VersionRating
from ladder.ids import BotId, BotVersionId

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
    owner: str | None = None
    """Its author, if known: by default two bots of one author never share a pod or a 2v2 table
    (``MatchmakingConfig.separate_authors``). ``None`` is nobody's."""


def candidate_from_rating(
    rating: VersionRating,
    bot: BotId,
    capacity: int,
    waiting_since: datetime,
    now: datetime,
    config: RatingConfig | None = None,
    owner: str | None = None,
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
        owner=owner,
    )


@dataclass(frozen=True, slots=True)
class RecentMatch:
    """A match played or scheduled recently, for rematch limits and seat balance."""

    seats: tuple[BotVersionId, ...]
    """Versions in seat order."""
    played_at: datetime
    """When it was played (or scheduled)."""
    seed: int | None = None
    """The match's seed. Matches with the same versions and seed are one mirrored set: one meeting."""


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
    """Meetings of a pair inside the window (a mirrored set is one) after which it is not paired again,
    unless one of the two has waited ``rematch_patience``."""
    rematch_patience: timedelta = timedelta(minutes=10)
    """How long a candidate waits before the rematch limit gives way for it (so a small ladder never stops)."""
    passes: int = 1
    """How many times a candidate with enough capacity may be seated in one call (a pair meets at
    most once per call: later passes seat it with other partners or not at all)."""
    separate_authors: bool = True
    """Two bots of one author (``Candidate.owner``) never share a table of more than two seats
    (pods, 2v2): no kingmaking or feeding between one author's bots. Duels are not concerned."""
    preference: str = "closeness"
    """How seats are drawn: ``"closeness"`` (rating closeness times uncertainty, the first scheduler)
    or ``"information"`` (the expected information of the game, see :func:`information`)."""
    information_weight: float = 3.0
    """With ``"information"``: the urgency bonus of an unsettled version, ``weight x min(1, RD/350)``,
    on top of ``uncertainty_weight``'s (so new and unsettled versions play first)."""

    def __post_init__(self) -> None:
        if not self.table_sizes or min(self.table_sizes) < 2:
            raise InvalidResultError(f"table sizes must be 2 or more: {self.table_sizes!r}")
        # Written so that NaN fails every comparison and is refused with the rest.
        if not (0.0 <= self.explore <= 1.0):
            raise InvalidResultError(f"explore must lie in 0..1, got {self.explore!r}")
        if not (0.0 < self.rating_window < math.inf):
            raise InvalidResultError(f"rating_window must be positive and finite, got {self.rating_window!r}")
        if not (0.0 <= self.uncertainty_weight < math.inf):
            raise InvalidResultError(
                f"uncertainty_weight must be finite, not negative, got {self.uncertainty_weight!r}"
            )
        if self.preference not in ("closeness", "information"):
            raise InvalidResultError(f"preference must be 'closeness' or 'information', got {self.preference!r}")
        if not (0.0 <= self.information_weight < math.inf):
            raise InvalidResultError(
                f"information_weight must be finite, not negative, got {self.information_weight!r}"
            )
        if self.passes < 1 or self.max_rematches < 1 or self.new_games < 0:
            raise InvalidResultError(f"matchmaking counts out of range: {self!r}")
        if self.target_wait <= timedelta(0) or self.rematch_window <= timedelta(0):
            raise InvalidResultError(f"target_wait and rematch_window must be positive: {self!r}")
        if self.rematch_patience < timedelta(0):
            raise InvalidResultError(f"rematch_patience must not be negative, got {self.rematch_patience!r}")


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
    """Meetings between the pool's versions inside the window, and the seats they took."""

    pool: frozenset[BotVersionId]
    meetings: Counter[frozenset[BotVersionId]] = field(default_factory=Counter)
    matches: list[Sequence[BotVersionId]] = field(default_factory=list)
    sets: set[tuple[frozenset[BotVersionId], int]] = field(default_factory=set)
    seats: dict[BotVersionId, tuple[int, int]] | None = None
    this_call: set[frozenset[BotVersionId]] = field(default_factory=set)
    """Pairs already seated together in this call (a later pass gives them other partners)."""

    @classmethod
    def of(cls, recent: Iterable[RecentMatch], pool: set[BotVersionId], now: datetime, window: timedelta) -> _History:
        """The history of the pool's versions: what other versions did changes nothing here."""
        history = cls(frozenset(pool))
        for match in recent:
            if now - match.played_at <= window and not history.pool.isdisjoint(match.seats):
                history.add(match.seats, match.seed)
        return history

    def add(self, seats: Sequence[BotVersionId], seed: int | None = None) -> None:
        self.matches.append(seats)
        self.seats = None
        members = [v for v in seats if v in self.pool]
        if len(members) < 2:
            return
        # The matches of one mirrored set share their seed: together they are one meeting.
        if seed is not None:
            key = (frozenset(seats), seed)
            if key in self.sets:
                return
            self.sets.add(key)
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                self.meetings[frozenset((a, b))] += 1

    def met(self, a: BotVersionId, b: BotVersionId) -> int:
        return self.meetings[frozenset((a, b))]

    def average_seat(self, version: BotVersionId) -> float:
        # Computed only when a table is seated, which is rarer than building the history.
        if self.seats is None:
            totals: dict[BotVersionId, tuple[int, int]] = {}
            for match in self.matches:
                for i, v in enumerate(match):
                    seat_sum, games = totals.get(v, (0, 0))
                    totals[v] = (seat_sum + i, games + 1)
            self.seats = totals
        seat_sum, games = self.seats.get(version, (0, 0))
        return seat_sum / games if games else 0.0


JITTER = 0.01
"""Largest random addition to an urgency, to break ties without favouring an id."""

SEARCH_BUDGET = 3_000
"""Most search steps one pass spends once it has seated somebody (a few milliseconds each call)."""

FIRST_TABLE_BUDGET = 200_000
"""Further steps allowed while no table is found yet; only contrived pools (many pairs at the
rematch limit, none patient) come near it, and only there could a legal table be missed."""


def max_bonus(config: MatchmakingConfig) -> float:
    """The largest urgency a candidate can have without waiting (new, unsettled, jitter)."""
    return 2.0 + config.uncertainty_weight + _information_bonus_weight(config) + JITTER


def _information_bonus_weight(config: MatchmakingConfig) -> float:
    return config.information_weight if config.preference == "information" else 0.0


GLICKO_SCALE = 173.7178
"""Elo points per Glicko-2 unit (as ``ladder.glicko2``)."""


def information(a: Candidate, b: Candidate) -> float:
    """The expected information of a game between two candidates: how much it shrinks their variances.

    Glicko-2's own update, in its units: a game against ``b`` shrinks ``a``'s variance from
    ``phi_a²`` to ``1 / (1 / phi_a² + g(phi_b)² E (1 - E))``, E the expected score. The sum over
    both players is large for uncertain versions (new versions start at RD 200 or more) and for
    close pairs (E near 1/2), and small for a settled favourite against a settled outsider.
    """
    total = 0.0
    for me, other in ((a, b), (b, a)):
        phi = max(me.deviation, 1.0) / GLICKO_SCALE
        phi_other = other.deviation / GLICKO_SCALE
        g = 1.0 / math.sqrt(1.0 + 3.0 * phi_other * phi_other / (math.pi * math.pi))
        exponent = -g * (me.rating - other.rating) / GLICKO_SCALE
        e = 0.0 if exponent > 700.0 else 1.0 / (1.0 + math.exp(exponent))
        total += phi * phi - 1.0 / (1.0 / (phi * phi) + g * g * e * (1.0 - e))
    return total


def urgency(candidate: Candidate, now: datetime, config: MatchmakingConfig) -> float:
    """How much a candidate needs a match now: wait in ``target_wait`` units plus bounded bonuses."""
    wait = max(0.0, (now - candidate.waiting_since) / config.target_wait)
    new = 1.0 + (config.new_games - candidate.games) / config.new_games if candidate.games < config.new_games else 0.0
    unsettled = (config.uncertainty_weight + _information_bonus_weight(config)) * min(
        1.0, candidate.deviation / MAX_DEVIATION
    )
    return wait + new + unsettled


def can_meet(a: Candidate, b: Candidate, meetings: int, now: datetime, config: MatchmakingConfig) -> bool:
    """Whether two candidates may share a table now: the same-bot and same-author rules, the rematch limit.

    Args:
        a: one candidate.
        b: the other.
        meetings: how often they met inside ``rematch_window`` (a mirrored set counting once).
        now: the current time.
        config: the game's options.
    """
    if a.bot == b.bot:
        return False
    if config.separate_authors and max(config.table_sizes) > 2 and a.owner is not None and a.owner == b.owner:
        return False
    if meetings < config.max_rematches:
        return True
    return is_patient(a, now, config) or is_patient(b, now, config)


def is_patient(candidate: Candidate, now: datetime, config: MatchmakingConfig) -> bool:
    """Whether a candidate has waited ``rematch_patience``, so the rematch limit gives way for it."""
    return now - candidate.waiting_since >= config.rematch_patience


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
        InvalidResultError: if a version appears twice among the candidates, or a rating or
            deviation is not a finite number.
    """
    pool = [c for c in candidates if c.capacity > 0]
    if len({c.version for c in pool}) != len(pool):
        raise InvalidResultError("a version appears twice among the candidates")
    for c in pool:
        if not (math.isfinite(c.rating) and math.isfinite(c.deviation) and c.deviation >= 0):
            raise InvalidResultError(
                f"candidate {c.version!r} has rating {c.rating!r} and deviation {c.deviation!r}: "
                "both must be finite, the deviation not negative"
            )
    # Fewer distinct bots than the smallest table: nothing can be seated (a cheap, common case).
    if len({c.bot for c in pool}) < min(config.table_sizes):
        return ()
    history = _History.of(recent, {c.version for c in pool}, now, config.rematch_window)
    capacity = {c.version: c.capacity for c in pool}
    out: list[ScheduledMatch] = []
    table_index = 0
    for _ in range(config.passes):
        live = [c for c in pool if capacity[c.version] > 0]
        ranked = sorted(live, key=lambda c: (-(urgency(c, now, config) + rng.random() * JITTER), c.version))
        for table in _tables(ranked, history, now, rng, config):
            for c in table:
                capacity[c.version] -= 1
            seed = rng.getrandbits(63)
            for seats in _seatings(table, history, rng, config):
                out.append(ScheduledMatch(seats, seed, table_index))
            history.add([c.version for c in table])
            history.this_call.update(frozenset((a.version, b.version)) for a in table for b in table if a != b)
            table_index += 1
    return tuple(out)


def _most_seated(n: int, sizes: Sequence[int]) -> list[int]:
    """For every k up to ``n``: the most of k players that tables of ``sizes`` seat exactly."""
    best = [0] * (n + 1)
    reachable = {0}
    for total in range(1, n + 1):
        if any(total - s in reachable for s in sizes):
            reachable.add(total)
        best[total] = total if total in reachable else best[total - 1]
    return best


class _OutOfBudget(Exception):
    pass


class _Seating:
    """The search for the seating of one pass: as many seated as the rules allow, urgent ones first.

    Depth first: the most urgent unplaced candidate opens a table (preferred sizes first), each
    further seat drawn at random by the preference weights (:func:`_seat_order`); when it cannot
    open one it is left over. Backtracking looks for a seating that seats more, so the same-bot
    rule and the rematch limit are applied while seating: a table that can be filled is filled.
    The first complete descent already seats somebody whenever any legal table exists; the search
    stops at the most that could possibly be seated, or after :data:`SEARCH_BUDGET` steps with
    the best seating found.
    """

    def __init__(
        self,
        ranked: list[Candidate],
        history: _History,
        now: datetime,
        rng: random.Random,
        config: MatchmakingConfig,
    ) -> None:
        self.history = history
        self.rng = rng
        self.config = config
        self.index = {c.version: i for i, c in enumerate(ranked)}
        self.ok = [
            [
                i != j
                and can_meet(a, b, history.met(a.version, b.version), now, config)
                and frozenset((a.version, b.version)) not in history.this_call
                for j, b in enumerate(ranked)
            ]
            for i, a in enumerate(ranked)
        ]
        # Candidates in no legal table of the smallest size can never be seated: dropping them
        # first keeps the search short, above all when nobody can play (then the pool is empty).
        smallest = min(config.table_sizes)
        self.pool = [c for i, c in enumerate(ranked) if self._in_some_table(i, smallest)]
        self.sizes = sorted(set(config.table_sizes), key=config.table_sizes.index)
        self.most = _most_seated(len(self.pool), self.sizes)
        self.budget = SEARCH_BUDGET
        self.best: list[list[Candidate]] = []
        self.best_seated = 0

    def _in_some_table(self, i: int, size: int) -> bool:
        """Whether candidate ``i`` belongs to some set of ``size`` candidates who may all meet."""

        def grow(members: list[int], options: list[int]) -> bool:
            if len(members) == size:
                return True
            for k, j in enumerate(options):
                if grow([*members, j], [x for x in options[k + 1 :] if self.ok[j][x]]):
                    return True
            return False

        return grow([i], [j for j in range(len(self.ok)) if self.ok[i][j]])

    def run(self) -> list[list[Candidate]]:
        with contextlib.suppress(_OutOfBudget):
            self._search(self.pool, 0, [])
        return self.best

    def _step(self) -> None:
        self.budget -= 1
        # Until a first table is found the search goes on (up to a far larger cap), so a legal
        # table is never missed for want of budget: that would be a stall.
        if self.budget < 0 and (self.best_seated > 0 or self.budget < -FIRST_TABLE_BUDGET):
            raise _OutOfBudget

    def _search(self, rest: list[Candidate], seated: int, tables: list[list[Candidate]]) -> bool:
        """Returns True once the best possible seating is found (the search can stop)."""
        if seated > self.best_seated:
            self.best, self.best_seated = tables, seated
            if seated == self.most[len(self.pool)]:
                return True
        if not rest or seated + self.most[len(rest)] <= self.best_seated:
            return False
        self._step()
        opener, others = rest[0], rest[1:]
        for size in self.sizes:
            if size > len(rest) or seated + size + self.most[len(rest) - size] <= self.best_seated:
                continue
            for table in _fills([opener], size, others, self.ok, self.index, self.history, self.rng, self.config, self):
                taken = {c.version for c in table}
                left = [c for c in others if c.version not in taken]
                if self._search(left, seated + size, [*tables, table]):
                    return True
        # The opener cannot be seated with the rest (or seating it cost more than it gained): left over.
        return self._search(others, seated, tables)


def _tables(
    ranked: list[Candidate], history: _History, now: datetime, rng: random.Random, config: MatchmakingConfig
) -> list[list[Candidate]]:
    """Seats as many candidates as the rules allow; the least urgent are the ones left over."""
    return _Seating(ranked, history, now, rng, config).run()


def _fills(
    table: list[Candidate],
    size: int,
    others: list[Candidate],
    ok: list[list[bool]],
    index: dict[BotVersionId, int],
    history: _History,
    rng: random.Random,
    config: MatchmakingConfig,
    search: _Seating,
) -> Iterator[list[Candidate]]:
    """Yields the ways to complete ``table`` to ``size`` from ``others``, the preferred draw first."""
    if len(table) == size:
        yield table
        return
    search._step()
    members = [index[m.version] for m in table]
    allowed = [c for c in others if all(ok[index[c.version]][m] for m in members)]
    if len(allowed) < size - len(table):
        return
    order = _seat_order(table, allowed, history, rng, config)
    # Later seats come from after the chosen one in this order, so each table is tried once.
    for position, pick in enumerate(order):
        yield from _fills([*table, pick], size, order[position + 1 :], ok, index, history, rng, config, search)


def _seat_order(
    table: list[Candidate],
    allowed: list[Candidate],
    history: _History,
    rng: random.Random,
    config: MatchmakingConfig,
) -> list[Candidate]:
    """Orders the candidates for the next seat: a weighted draw without replacement.

    Partners inside the rematch limit come first (an over-the-limit partner is only reached
    through the patience rule, when nobody else completes the table). With probability
    ``explore`` the draw is uniform; otherwise each candidate's weight is its rating closeness
    to the table times its uncertainty, halved for every recent meeting. Weights are kept as
    logarithms and the draw is an exponential race (key = log weight - log E, E ~ Exp(1)),
    so no weight can underflow to zero however often a pair has met.
    """
    explore = rng.random() < config.explore
    centre = sum(m.rating for m in table) / len(table)
    spread = max(m.deviation for m in table)
    keyed = []
    for c in allowed:
        met = [history.met(c.version, m.version) for m in table]
        over = max(met) >= config.max_rematches
        log_weight = 0.0
        if not explore and config.preference == "information":
            gain = sum(information(c, m) for m in table)
            log_weight = math.log(gain) if gain > 0.0 else -745.0
            log_weight -= sum(met) * math.log(2.0)
        elif not explore:
            width = math.sqrt(config.rating_window**2 + spread**2 + c.deviation**2)
            closeness = -0.5 * ((c.rating - centre) / width) ** 2
            unsettled = math.log1p(config.uncertainty_weight * min(1.0, c.deviation / MAX_DEVIATION))
            log_weight = closeness + unsettled - sum(met) * math.log(2.0)
        race = -math.log(1.0 - rng.random())  # Exp(1); 1 - random() lies in (0, 1]
        key = log_weight - math.log(race) if race > 0.0 else math.inf
        keyed.append((over, -key, c.version, c))
    keyed.sort(key=lambda item: item[:3])
    return [item[3] for item in keyed]


def _seatings(
    table: list[Candidate], history: _History, rng: random.Random, config: MatchmakingConfig
) -> list[tuple[BotVersionId, ...]]:
    # Whoever sat further back on average sits first; the random key breaks ties without bias.
    order = sorted(table, key=lambda c: (-history.average_seat(c.version), rng.random()))
    seats = tuple(c.version for c in order)
    if not config.mirrored:
        return [seats]
    return [seats[i:] + seats[:i] for i in range(len(seats))]
