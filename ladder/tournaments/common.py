"""The plain-data types every tournament format shares: event state, pairings, reports, standings.

An event is one immutable :class:`EventState`: the configuration, the seeded entrants, every game
report received so far and every withdrawal. Nothing else is stored: each format derives its
pairings from this state with a pure function, so the worker can keep the state as JSON
(:meth:`EventState.to_json`), call :func:`ladder.tournaments.next_pairings` as often as it likes
and record a report twice without counting it twice (reports are keyed by match id).

This module holds types, JSON conversion and seeding helpers; it schedules nothing itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ladder.errors import InvalidEventError, InvalidResultError
from ladder.ids import EntrantId, EventId, MatchId, PairingKey


class Format(StrEnum):
    """The tournament formats."""

    SINGLE_ELIMINATION = "single_elimination"
    """Knock-out; standard seeding, byes to the top seeds, optional third-place match."""
    DOUBLE_ELIMINATION = "double_elimination"
    """Winners and losers brackets; grand final with an optional bracket reset."""
    ROUND_ROBIN = "round_robin"
    """Everyone meets everyone (Berger tables), once or more."""
    SWISS = "swiss"
    """A fixed number of rounds paired by score, no rematches, at most one bye each."""
    POD_SWISS = "pod_swiss"
    """Swiss for free-for-all games: each round puts players of similar score in pods of 3-4."""


class GrandFinal(StrEnum):
    """What the double-elimination grand final is."""

    RESET = "reset"
    """A second match is played if the losers-bracket champion wins the first (both then have one loss)."""
    SINGLE = "single"
    """One match decides."""
    NONE = "none"
    """No grand final: the winners-bracket champion wins the event."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A seeded entrant."""

    id: EntrantId
    """The entrant, usually a bot version id frozen at registration."""
    seed: int
    """Seed number, 1 the best; unique within the event."""


@dataclass(frozen=True, slots=True)
class EventConfig:
    """An event's format and options. Unused options are ignored by formats they do not apply to.

    Raises:
        InvalidEventError: on construction, if an option is out of range.
    """

    format: Format
    """The format."""
    best_of: int = 1
    """Games per pairing (an odd number for elimination formats); pods always play one game."""
    rounds: int = 0
    """Swiss and pod Swiss rounds; 0 means ceil(log2(entrants)), at least 1."""
    cycles: int = 1
    """Round robin: how many times everyone meets everyone (2 = double round robin, seats reversed)."""
    third_place: bool = False
    """Single elimination: play a third-place match between the semi-final losers."""
    grand_final: GrandFinal = GrandFinal.RESET
    """Double elimination: the grand final rule."""
    bye_points: float = 1.0
    """Swiss: points for the pairing-allocated bye (a win's worth by default, as in FIDE rules)."""
    pod_bye_points: float = 0.5
    """Pod Swiss: points for a bye (the middle of the 0..1 pod score)."""
    pod_sizes: tuple[int, ...] = (4, 3)
    """Pod Swiss: allowed pod sizes, preferred first."""

    def __post_init__(self) -> None:
        if self.best_of < 1:
            raise InvalidEventError(f"best_of must be at least 1, got {self.best_of!r}")
        if self.format in (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION) and self.best_of % 2 == 0:
            raise InvalidEventError(f"elimination series need an odd best_of, got {self.best_of!r}")
        if self.format is Format.POD_SWISS and self.best_of != 1:
            raise InvalidEventError("pods play one game per round: best_of must be 1")
        if self.rounds < 0 or self.cycles < 1:
            raise InvalidEventError(f"rounds must be 0 or more and cycles 1 or more: {self!r}")
        if not self.pod_sizes or any(size < 2 for size in self.pod_sizes):
            raise InvalidEventError(f"pod sizes must be 2 or more, got {self.pod_sizes!r}")

    def to_json(self) -> dict[str, Any]:
        """Returns the configuration as plain JSON data."""
        return {
            "format": self.format.value,
            "best_of": self.best_of,
            "rounds": self.rounds,
            "cycles": self.cycles,
            "third_place": self.third_place,
            "grand_final": self.grand_final.value,
            "bye_points": self.bye_points,
            "pod_bye_points": self.pod_bye_points,
            "pod_sizes": list(self.pod_sizes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EventConfig:
        """Builds a configuration from :meth:`to_json` data (missing options take their defaults)."""
        return cls(
            format=Format(data["format"]),
            best_of=int(data.get("best_of", 1)),
            rounds=int(data.get("rounds", 0)),
            cycles=int(data.get("cycles", 1)),
            third_place=bool(data.get("third_place", False)),
            grand_final=GrandFinal(data.get("grand_final", GrandFinal.RESET.value)),
            bye_points=float(data.get("bye_points", 1.0)),
            pod_bye_points=float(data.get("pod_bye_points", 0.5)),
            pod_sizes=tuple(int(s) for s in data.get("pod_sizes", (4, 3))),
        )


@dataclass(frozen=True, slots=True)
class Report:
    """One game of a pairing, or a forfeit that decides the pairing.

    ``ranks`` follow the pairing's participant order (not the seats of that game). A report with
    ``forfeited`` entrants decides the whole pairing at once: the forfeiters score nothing and the
    pairing counts as unplayed for them (a no-show is a forfeit).
    """

    pairing: PairingKey
    """The pairing this game belongs to."""
    match_id: MatchId
    """The match that was played (or the forfeit's id); reports are keyed on it."""
    ranks: tuple[int, ...]
    """Rank per pairing participant, 1 best, equal ranks tie."""
    forfeited: tuple[EntrantId, ...] = ()
    """Participants who forfeited or did not show."""

    def to_json(self) -> dict[str, Any]:
        """Returns the report as plain JSON data."""
        return {
            "pairing": self.pairing,
            "match_id": self.match_id,
            "ranks": list(self.ranks),
            "forfeited": list(self.forfeited),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Report:
        """Builds a report from :meth:`to_json` data."""
        return cls(
            pairing=PairingKey(str(data["pairing"])),
            match_id=MatchId(str(data["match_id"])),
            ranks=tuple(int(r) for r in data["ranks"]),
            forfeited=tuple(EntrantId(str(e)) for e in data.get("forfeited", ())),
        )


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """An entrant who left the event: their undecided pairings are forfeits, and round-based formats
    no longer pair them from ``from_round`` on."""

    entrant: EntrantId
    """Who withdrew."""
    from_round: int
    """First round in which they are no longer paired."""


@dataclass(frozen=True, slots=True)
class EventState:
    """Everything an event needs; formats derive pairings and standings from it."""

    event: EventId
    """The event's id."""
    config: EventConfig
    """Format and options."""
    entrants: tuple[Entrant, ...]
    """Entrants, in seed order."""
    reports: tuple[Report, ...] = ()
    """Every report received, in arrival order."""
    withdrawals: tuple[Withdrawal, ...] = ()
    """Every withdrawal."""

    def to_json(self) -> dict[str, Any]:
        """Returns the state as plain JSON data."""
        return {
            "event": self.event,
            "config": self.config.to_json(),
            "entrants": [{"id": e.id, "seed": e.seed} for e in self.entrants],
            "reports": [r.to_json() for r in self.reports],
            "withdrawals": [{"entrant": w.entrant, "from_round": w.from_round} for w in self.withdrawals],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EventState:
        """Builds a state from :meth:`to_json` data.

        Raises:
            InvalidEventError: if the data is malformed.
        """
        try:
            return cls(
                event=EventId(str(data["event"])),
                config=EventConfig.from_json(data["config"]),
                entrants=tuple(Entrant(EntrantId(str(e["id"])), int(e["seed"])) for e in data["entrants"]),
                reports=tuple(Report.from_json(r) for r in data.get("reports", ())),
                withdrawals=tuple(
                    Withdrawal(EntrantId(str(w["entrant"])), int(w["from_round"])) for w in data.get("withdrawals", ())
                ),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidEventError):
                raise
            raise InvalidEventError(f"malformed event state: {exc}") from exc

    @property
    def by_seed(self) -> list[EntrantId]:
        """Entrant ids, best seed first."""
        return [e.id for e in sorted(self.entrants, key=lambda e: e.seed)]

    @property
    def withdrawn(self) -> dict[EntrantId, int]:
        """Withdrawn entrants, in the order they left, and the first round they are no longer paired in."""
        return {w.entrant: w.from_round for w in self.withdrawals}


@dataclass(frozen=True, slots=True)
class Pairing:
    """Entrants who must play: a best-of-N series for two, or one free-for-all game for a pod."""

    key: PairingKey
    """Stable id within the event."""
    round: int
    """Round number, 1-based, within its bracket."""
    participants: tuple[EntrantId, ...]
    """Entrants in seat order for the first game (:func:`seats_for_game` gives later games)."""
    best_of: int = 1
    """Games in the series."""
    bracket: str = "main"
    """``"main"``, or in elimination ``"winners"``, ``"losers"``, ``"final"``, ``"third_place"``."""
    games_played: int = 0
    """Games already reported, so the worker knows which game to start next."""


@dataclass(frozen=True, slots=True)
class SeriesOutcome:
    """How a pairing ended."""

    ranks: tuple[int, ...]
    """Rank per participant, 1 best, equal ranks tie."""
    points: tuple[float, ...]
    """Event points per participant (1/0.5/0 for two; the 0..1 pod score for pods; 0 to forfeiters)."""
    forfeited: tuple[EntrantId, ...] = ()
    """Participants who forfeited, withdrew or did not show."""
    wins: tuple[int, ...] = ()
    """Game wins per participant within a series."""

    @property
    def winner_index(self) -> int | None:
        """Index of the only first-ranked participant, or ``None`` on a tie."""
        firsts = [i for i, r in enumerate(self.ranks) if r == 1]
        return firsts[0] if len(firsts) == 1 else None


@dataclass(frozen=True, slots=True)
class PairingView:
    """A pairing with its outcome, ``None`` while it still has to be played."""

    pairing: Pairing
    """The pairing."""
    outcome: SeriesOutcome | None
    """How it ended."""


@dataclass(frozen=True, slots=True)
class Bye:
    """A round in which an entrant had no opponent."""

    round: int
    """The round."""
    entrant: EntrantId
    """Who sat out."""
    points: float
    """Points received for it."""


@dataclass(frozen=True, slots=True)
class Schedule:
    """Every pairing published so far, byes, and whether the event is over."""

    pairings: tuple[PairingView, ...]
    """Pairings in publication order, decided or not."""
    byes: tuple[Bye, ...] = ()
    """Byes so far (round-based formats)."""
    finished: bool = False
    """Whether no pairing will be published any more and all are decided."""
    note: str = ""
    """Why the event ended early, if it did (for example: no rematch-free Swiss pairing exists)."""

    @property
    def pending(self) -> tuple[Pairing, ...]:
        """Pairings waiting for a result."""
        return tuple(v.pairing for v in self.pairings if v.outcome is None)


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings."""

    entrant: EntrantId
    """Who."""
    rank: int
    """Place, 1 best; entrants tied on every criterion share a place."""
    points: float
    """Event points."""
    played: int
    """Pairings played over the board (forfeits and byes excluded)."""
    wins: int
    """Pairings won (pods: first places)."""
    draws: int
    """Pairings drawn."""
    losses: int
    """Pairings lost."""
    tiebreaks: tuple[tuple[str, float], ...] = ()
    """Tie-break values in the order applied, by name (``"BH-C1"``, ``"BH"``, ``"SB"``...)."""
    status: str = ""
    """Elimination formats: where the entrant went out (``"winners round 2"``) or ``"champion"``."""


def seats_for_game(pairing: Pairing, game_index: int) -> tuple[EntrantId, ...]:
    """Returns the seat order for game ``game_index`` (0-based) of a pairing: seats rotate each game.

    For two entrants this alternates who sits first, so a best-of-3 gives the higher seed the first
    seat twice; for pods every entrant moves one seat on.
    """
    n = len(pairing.participants)
    shift = game_index % n
    return pairing.participants[shift:] + pairing.participants[:shift]


def seed_by_rating(ratings: Mapping[EntrantId, float]) -> tuple[Entrant, ...]:
    """Seeds entrants by rating, best first; equal ratings are ordered by id for determinism."""
    order = sorted(ratings, key=lambda e: (-ratings[e], e))
    return tuple(Entrant(e, i + 1) for i, e in enumerate(order))


def seed_manual(order: Sequence[EntrantId]) -> tuple[Entrant, ...]:
    """Seeds entrants in the given order (an organiser's choice, or a draw made by the caller).

    Raises:
        InvalidEventError: if an entrant appears twice.
    """
    if len(set(order)) != len(order):
        raise InvalidEventError(f"an entrant appears twice in {list(order)!r}")
    return tuple(Entrant(e, i + 1) for i, e in enumerate(order))


def two_player_points(
    ranks: Sequence[int], forfeited: Iterable[EntrantId], ids: Sequence[EntrantId]
) -> tuple[float, ...]:
    """Points for a two-entrant outcome: 1 win, 0.5 draw, 0 loss; a forfeiter always scores 0."""
    gone = set(forfeited)
    out = []
    for i, entrant in enumerate(ids):
        other = ranks[1 - i]
        if entrant in gone:
            out.append(0.0)
        else:
            out.append(1.0 if ranks[i] < other else 0.5 if ranks[i] == other else 0.0)
    return tuple(out)


def pod_points(ranks: Sequence[int], forfeited: Iterable[EntrantId], ids: Sequence[EntrantId]) -> tuple[float, ...]:
    """The pod score: share of pod-mates outscored, ties half, so a pod is worth 0..1 at any size.

    With four players and no ties the places score 1, 2/3, 1/3 and 0; with three, 1, 1/2 and 0.
    """
    gone = set(forfeited)
    n = len(ranks)
    out = []
    for i, entrant in enumerate(ids):
        if entrant in gone:
            out.append(0.0)
            continue
        beaten = sum(1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0 for j in range(n) if j != i)
        out.append(beaten / (n - 1))
    return tuple(out)


def validate_entrants(entrants: Sequence[Entrant], minimum: int = 2) -> None:
    """Checks ids and seeds are unique and there are enough entrants.

    Raises:
        InvalidEventError: if not.
    """
    if len(entrants) < minimum:
        raise InvalidEventError(f"at least {minimum} entrants are needed, got {len(entrants)}")
    if len({e.id for e in entrants}) != len(entrants):
        raise InvalidEventError("entrant ids must be unique")
    if len({e.seed for e in entrants}) != len(entrants):
        raise InvalidEventError("seeds must be unique")


def check_report_shape(report: Report, pairing: Pairing) -> None:
    """Checks a report fits its pairing.

    Raises:
        InvalidResultError: if the ranks or forfeiters do not fit, or a forfeiter outranks a player.
    """
    n = len(pairing.participants)
    if len(report.ranks) != n or any(r < 1 for r in report.ranks):
        raise InvalidResultError(f"ranks {report.ranks!r} do not fit pairing {pairing.key!r} of {n}")
    unknown = set(report.forfeited) - set(pairing.participants)
    if unknown:
        raise InvalidResultError(f"{sorted(unknown)!r} did not play in pairing {pairing.key!r}")
    gone = [i for i, e in enumerate(pairing.participants) if e in report.forfeited]
    stayed = [i for i in range(n) if i not in gone]
    if gone and stayed and min(report.ranks[i] for i in gone) <= max(report.ranks[i] for i in stayed):
        raise InvalidResultError(f"forfeiters must rank below everyone else in {report!r}")
    if len(set(report.forfeited)) != len(report.forfeited):
        raise InvalidResultError(f"a forfeiter is listed twice in {report.forfeited!r}")
