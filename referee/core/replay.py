"""The replay format: everything needed to reproduce a match, and the public record of it.

A replay is (game, rules version, config, seed, seats) plus the decision log: from those alone the
engine re-simulates the match exactly. It also carries the public event log for viewers, the
outcome, the referee's incidents (timeouts, strikes, illegal answers, forfeits), and a digest of
the full event log so hidden parts are checked too. See ``docs/replay.md``.

Files are JSON, gzip-compressed when the name ends in ``.gz``. The format is versioned by
``"format"`` and ``"version"``; a reader refuses versions it does not know.

One pipeline: :meth:`Replay.encode` / :meth:`Replay.decode` are the only encoder (compact JSON,
gzip with a zero mtime, so equal replays give equal bytes) used by files, the referee's hand-off
to the workers and the database; :func:`steps` is the only loop that re-plays a decision log,
shared by :func:`simulate`, :func:`verify` and the viewer's frames (``webapp.matches.frames``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson

from referee.core.chance import Chance, SeededChance
from referee.core.contract import (
    EVERYONE,
    Decision,
    Event,
    Game,
    JSONDict,
    Match,
    Option,
    Outcome,
    Termination,
    _Everyone,
    forfeit_outcome,
)
from referee.core.errors import EngineError, MatchOverError
from referee.core.fairness import check_commitment
from referee.core.ids import Seat
from referee.core.registry import get_game

FORMAT = "brawl-replay"
VERSION = 1
FINISH_STEP = 256
"""Events digested between two yields of :meth:`Recorder.finishing`."""


class ReplayError(EngineError, ValueError):
    """A replay is malformed, of an unknown version, or does not reproduce."""


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    """One applied decision."""

    seat: Seat
    """The seat that decided."""
    option_id: str
    """The option applied."""
    source: str = "bot"
    """``"bot"`` when the seat answered, ``"default"`` when the referee applied the default."""
    note: str = ""
    """The bot's optional short note."""
    think_ms: int | None = None
    """Think time charged to the bot, in milliseconds, when measured."""

    def to_json(self) -> list[Any]:
        """Returns the compact form ``[seat, option_id]`` or ``[seat, option_id, extras]``."""
        extras: JSONDict = {}
        if self.source != "bot":
            extras["src"] = self.source
        if self.note:
            extras["note"] = self.note
        if self.think_ms is not None:
            extras["ms"] = self.think_ms
        return [int(self.seat), self.option_id, extras] if extras else [int(self.seat), self.option_id]

    @classmethod
    def from_json(cls, raw: Any) -> DecisionRecord:
        """Parses the compact form.

        Raises:
            ReplayError: ``raw`` is not ``[int, str]`` or ``[int, str, object]``.
        """
        if not isinstance(raw, list) or len(raw) not in (2, 3):
            raise ReplayError(f"a decision must be [seat, option] or [seat, option, extras], got {raw!r}")
        seat, option_id = raw[0], raw[1]
        extras = raw[2] if len(raw) == 3 else {}
        if not isinstance(seat, int) or not isinstance(option_id, str) or not isinstance(extras, dict):
            raise ReplayError(f"malformed decision {raw!r}")
        ms = extras.get("ms")
        return cls(
            seat=Seat(seat),
            option_id=option_id,
            source=str(extras.get("src", "bot")),
            note=str(extras.get("note", "")),
            think_ms=int(ms) if ms is not None else None,
        )


class IncidentKind(StrEnum):
    """What the referee recorded about a seat: the one list of incident kinds, shared by the referee
    (which records them) and the web app (which counts them per seat).

    The value is the kind's name in a replay's ``incidents``; :attr:`is_strike` says which count
    towards ``max_strikes`` (``docs/bot-protocol.md``).
    """

    TIMEOUT = "timeout"
    """No valid answer before the deadline: the default option was applied (a strike)."""
    ILLEGAL_ANSWER = "illegal_answer"
    """An answer naming an option that was not offered (a strike)."""
    MALFORMED_ANSWER = "malformed_answer"
    """An answer without an option id (a strike)."""
    DISCONNECT = "disconnect"
    """The seat's connection was lost (or its referee stopped); its reconnect grace began."""
    RECONNECT = "reconnect"
    """The seat came back within its grace."""
    ABSENT = "absent"
    """The seat never connected (or did not come back after a takeover)."""
    FORFEIT = "forfeit"
    """The seat lost by forfeit."""

    @property
    def is_strike(self) -> bool:
        """Whether the incident is one strike against the seat."""
        return self in STRIKE_KINDS


STRIKE_KINDS = frozenset({IncidentKind.TIMEOUT, IncidentKind.ILLEGAL_ANSWER, IncidentKind.MALFORMED_ANSWER})
"""The incident kinds that are strikes; each strike records exactly one incident of one of them."""


@dataclass(frozen=True, slots=True)
class Incident:
    """Something the referee did about a seat's conduct: not part of the rules."""

    at: int
    """Index in the decision log of the decision it concerns."""
    seat: Seat
    """The seat concerned."""
    kind: IncidentKind
    """What happened (:class:`IncidentKind`)."""
    detail: str = ""
    """One English sentence with the offending value."""

    def to_json(self) -> JSONDict:
        """Returns the incident as plain data."""
        return {"at": self.at, "seat": int(self.seat), "kind": str(self.kind), "detail": self.detail}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Incident:
        """Parses :meth:`to_json` data.

        Raises:
            ReplayError: the kind is not an :class:`IncidentKind`.
        """
        kind = str(raw["kind"])
        try:
            parsed = IncidentKind(kind)
        except ValueError:
            known = ", ".join(k.value for k in IncidentKind)
            raise ReplayError(f"unknown incident kind {kind[:40]!r} (known: {known})") from None
        return cls(int(raw["at"]), Seat(int(raw["seat"])), parsed, str(raw.get("detail", "")))


@dataclass
class Replay:
    """A recorded match."""

    game: str
    rules_version: str
    config: JSONDict
    seed: int
    seats: list[str]
    """Display names of the seats, in seat order."""
    decisions: list[DecisionRecord] = field(default_factory=list)
    incidents: list[Incident] = field(default_factory=list)
    events: list[JSONDict] = field(default_factory=list)
    """The public event log (what a spectator saw)."""
    outcome: Outcome | None = None
    events_digest: str = ""
    """SHA-256 of the full event log, hidden events included."""
    meta: JSONDict = field(default_factory=dict)
    """Free-form context from the service: match id, bot ids and versions, tournament."""

    def to_json(self) -> JSONDict:
        """Returns the replay as plain data in the current format version."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "rules_version": self.rules_version,
            "config": self.config,
            "seed": self.seed,
            "seats": self.seats,
            "meta": self.meta,
            "decisions": [d.to_json() for d in self.decisions],
            "incidents": [i.to_json() for i in self.incidents],
            "outcome": self.outcome.to_json() if self.outcome else None,
            "events_digest": self.events_digest,
            "events": self.events,
        }

    def dumps(self) -> str:
        """Returns the replay as compact JSON text (:meth:`dump_bytes`, decoded)."""
        return self.dump_bytes().decode()

    def dump_bytes(self) -> bytes:
        """Returns the replay as compact UTF-8 JSON: the same replay always gives the same bytes.

        orjson writes it; a value orjson refuses (an integer past 64 bits) falls back to the
        standard library's encoder, so any replay the format allows is written.
        """
        data = self.to_json()
        try:
            return orjson.dumps(data)
        except TypeError:
            return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()

    @classmethod
    def from_json(cls, data: Any) -> Replay:
        """Parses replay data.

        Raises:
            ReplayError: the data is not a replay, or of a version this reader does not know.
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReplayError("not a brawl replay (the 'format' field is missing or wrong)")
        if data.get("version") != VERSION:
            raise ReplayError(f"replay version {data.get('version')!r} is not supported (this reader knows {VERSION})")
        try:
            return cls(
                game=str(data["game"]),
                rules_version=str(data["rules_version"]),
                config=dict(data["config"]),
                seed=int(data["seed"]),
                seats=[str(s) for s in data["seats"]],
                decisions=[DecisionRecord.from_json(d) for d in data["decisions"]],
                incidents=[Incident.from_json(i) for i in data.get("incidents", [])],
                events=list(data.get("events", [])),
                outcome=Outcome.from_json(data["outcome"]) if data.get("outcome") else None,
                events_digest=str(data.get("events_digest", "")),
                meta=dict(data.get("meta", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ReplayError):
                raise
            raise ReplayError(f"malformed replay: {exc!r}") from exc

    @classmethod
    def loads(cls, text: str | bytes) -> Replay:
        """Parses replay JSON text.

        Raises:
            ReplayError: the text is not JSON or not a replay.
        """
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            try:  # what orjson refuses and the standard library reads (an integer past 64 bits)
                data = json.loads(text)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ReplayError(f"replay is not valid JSON: {exc}") from exc
        return cls.from_json(data)

    def encode(self) -> bytes:
        """Returns the replay as gzip-compressed compact JSON: the one stored and transmitted form.

        The gzip header's time is zero, so the same replay always gives the same bytes.
        """
        return gzip.compress(self.dump_bytes(), mtime=0)

    @classmethod
    def decode(cls, data: bytes) -> Replay:
        """Parses :meth:`encode` output (plain JSON bytes are accepted too).

        Raises:
            ReplayError: the bytes are neither a gzip stream of a replay nor replay JSON.
        """
        return cls.loads(decompress(data))

    def save(self, path: str | Path) -> None:
        """Writes the replay to ``path``, gzip-compressed when it ends in ``.gz``."""
        p = Path(path)
        p.write_bytes(self.encode() if p.suffix == ".gz" else self.dump_bytes())

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        """Reads a replay written by :meth:`save`.

        Raises:
            ReplayError: the file is not a replay.
        """
        return cls.decode(Path(path).read_bytes())


def decompress(data: bytes) -> bytes:
    """Returns replay JSON bytes: ``data`` unzipped when it is a gzip stream, else as it is.

    Raises:
        ReplayError: the gzip stream is corrupt.
    """
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise ReplayError(f"the compressed replay is corrupt: {exc}") from exc


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
"""The canonical JSON of an event: one encoder for every call (``json.dumps`` with options builds a
new encoder each time, a quarter of the digest's cost)."""


def events_digest(events: Sequence[Event]) -> str:
    """Returns the SHA-256 of an event log in canonical JSON (one line per event)."""
    h = hashlib.sha256()
    for _ in _digest_steps(h, events, len(events) or 1):
        pass
    return h.hexdigest()


def _digest_steps(h: Any, events: Sequence[Event], step: int) -> Iterator[int]:
    """Adds ``events`` to the digest ``h``, yielding the count done after each ``step`` of them."""
    encode = _CANONICAL.encode
    for i, e in enumerate(events, 1):
        h.update(encode(e.to_json()).encode())
        h.update(b"\n")
        if i % step == 0:
            yield i


class Recorder:
    """Runs a match and records it: the one path by which the referee and local runner play.

    Args:
        game: The game.
        config: A config as returned by ``game.parse_config``.
        seed: The match seed; it seeds the match's :class:`SeededChance`.
        seats: Display names, one per seat.
        meta: Context stored in the replay.
    """

    def __init__(
        self,
        game: Game,
        config: Mapping[str, Any],
        seed: int,
        seats: Sequence[str],
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.game = game
        self.replay = Replay(
            game=game.info.name,
            rules_version=game.info.rules_version,
            config=dict(config),
            seed=seed,
            seats=list(seats),
            meta=dict(meta or {}),
        )
        self.match: Match = game.new_match(config, len(seats), SeededChance(seed))
        self._final: Outcome | None = None
        self._released_count = 0
        self._private = game.info.private_decisions
        self.seat_decisions = [0] * len(seats)
        """Decisions recorded so far per seat: a seat's own count is the ``decision_number`` of its next
        request, whatever other seats were asked (docs/bot-protocol.md, "Numbering")."""
        self.public_decisions = 0
        """Decisions recorded so far whose kind is not one of the game's ``private_decisions``: the count a
        spectator is shown."""
        self.last_public: int | None = None
        """The position in the decision log of the last public decision recorded (``None`` before one)."""

    def apply(
        self, option_id: str, *, source: str = "bot", note: str = "", think_ms: int | None = None
    ) -> Sequence[Event]:
        """Applies ``option_id`` for the seat to move and records it.

        Raises:
            IllegalOptionError: the option is not legal now (nothing is recorded).
            MatchOverError: the match is over.
        """
        decision = self.match.to_move()
        events = self.match.apply(option_id)
        assert decision is not None  # apply raised MatchOverError otherwise
        decisions = self.replay.decisions
        if decision.kind not in self._private:
            self.public_decisions += 1
            self.last_public = len(decisions)
        self.seat_decisions[decision.seat] += 1
        decisions.append(DecisionRecord(decision.seat, option_id, source, note[:280], think_ms))
        return events

    def incident(self, seat: Seat, kind: IncidentKind, detail: str = "") -> None:
        """Records a referee incident against the current decision."""
        self.replay.incidents.append(Incident(len(self.replay.decisions), seat, IncidentKind(kind), detail))

    def forfeit(self, losers: Sequence[Seat], reason: str) -> Outcome:
        """Ends the match by forfeit of ``losers`` and returns the outcome."""
        for seat in losers:
            self.incident(seat, IncidentKind.FORFEIT, reason)
        self._final = forfeit_outcome(len(self.replay.seats), losers, reason)
        return self._final

    def cancel(self, reason: str) -> Outcome:
        """Ends the match as cancelled: every seat shares first place and it counts for nobody."""
        self._final = Outcome(
            ranks=tuple(1 for _ in self.replay.seats), termination=Termination.CANCELLED, reason=reason or "cancelled"
        )
        return self._final

    def outcome(self) -> Outcome | None:
        """Returns the match's outcome: the engine's, or the referee's forfeit or cancellation."""
        return self._final or self.match.outcome()

    def finish(self) -> Replay:
        """Completes and returns the replay.

        Raises:
            ReplayError: the match has neither ended nor been forfeited.
        """
        for _ in self.finishing():
            pass
        return self.replay

    def finishing(self, step: int = FINISH_STEP) -> Iterator[int]:
        """:meth:`finish` in steps, for a caller that must not be held for the whole of it (the
        referee's event loop): yields the number of events digested after every ``step`` of them;
        :attr:`replay` is complete once the iterator is exhausted.

        Raises:
            ReplayError: the match has neither ended nor been forfeited (on the first ``next``).
        """
        outcome = self.outcome()
        if outcome is None:
            raise ReplayError("cannot finish a replay of a match that is still running")
        all_events = self.match.events(0, EVERYONE)
        h = hashlib.sha256()
        yield from _digest_steps(h, all_events, step)
        self.replay.outcome = outcome
        self.replay.events = [e.to_json() for e in all_events if e.visible(None)]
        self.replay.events_digest = h.hexdigest()

    def release(self) -> None:
        """Drops the engine's state and the replay's events and decisions of a finished match (the
        bulk of its memory), keeping the number of
        decisions, the incidents, the outcome and the final public observation. The replay object
        :meth:`finish` returned is left as it was: the recorder holds a copy without the events and
        decisions from here on.

        Raises:
            ReplayError: the match has not ended.
        """
        final = self.outcome()
        if final is None:
            raise ReplayError("cannot release a match that is still running")
        if isinstance(self.match, ReleasedMatch):
            return
        self._final = final
        self._released_count = len(self.replay.decisions)
        self.match = ReleasedMatch(final, self.match.observe(None))
        self.replay = replace(self.replay, events=[], decisions=[])

    @property
    def decision_count(self) -> int:
        """Decisions recorded so far (kept when the match is released)."""
        return self._released_count if isinstance(self.match, ReleasedMatch) else len(self.replay.decisions)


class ReleasedMatch(Match):
    """What a :class:`Recorder` keeps of a finished match after :meth:`Recorder.release`: the
    outcome and the final public observation; no decision, no option, no event."""

    def __init__(self, outcome: Outcome, public: JSONDict) -> None:
        self._outcome = outcome
        self._public = public

    def to_move(self) -> Decision | None:
        return None

    def legal_options(self) -> Sequence[Option]:
        return []

    def apply(self, option_id: str) -> Sequence[Event]:
        raise MatchOverError("the match is over")

    def observe(self, viewer: Seat | None) -> JSONDict:
        """The final public observation (a seat's own view is not kept)."""
        if viewer is not None:
            raise EngineError("a released match keeps only the public view")
        return self._public

    def events(self, since: int = 0, viewer: Seat | _Everyone | None = EVERYONE) -> list[Event]:
        """None: the events were released with the engine's state (the stored replay has them)."""
        return []

    def outcome(self) -> Outcome | None:
        return self._outcome

    def determinize(self, viewer: Seat | None, chance: Chance) -> Match:
        raise EngineError("a released match cannot be determinized")


def initial_match(replay: Replay, game: Game | None = None) -> Match:
    """Returns the match a replay starts from, before any decision.

    Raises:
        ReplayError: the replay's rules version differs from the engine's.
    """
    game = game or get_game(replay.game)
    if replay.rules_version != game.info.rules_version:
        raise ReplayError(
            f"replay is for {replay.game} rules {replay.rules_version!r}; "
            f"this engine implements {game.info.rules_version!r}"
        )
    config = game.parse_config(replay.config, len(replay.seats))
    return game.new_match(config, len(replay.seats), SeededChance(replay.seed))


@dataclass(frozen=True, slots=True)
class Step:
    """One position of a re-played match: the start (``index`` 0) or the position after a decision."""

    index: int
    """0 before any decision; ``n + 1`` after decision ``n``."""
    decision: DecisionRecord | None
    """The decision just applied; ``None`` at the start."""
    label: str
    """The applied option's label (only when :func:`steps` was asked for labels; else empty)."""
    events: Sequence[Event]
    """The events the decision caused (all of them, hidden ones included)."""
    match: Match
    """The match, now at this position (the same object at every step: read it before the next)."""


def steps(replay: Replay, game: Game | None = None, *, labels: bool = False) -> Iterator[Step]:
    """Re-plays the decision log, yielding the start position and the position after each decision.

    The one replay loop: :func:`simulate`, :func:`verify` and the viewer's frames all use it.

    Args:
        labels: Look each option's label up before applying it (the viewer shows them).

    Raises:
        ReplayError: the rules version differs, or a decision is not legal or not for its seat
            (raised when that decision is reached).
    """
    match = initial_match(replay, game)
    yield Step(0, None, "", (), match)
    for n, d in enumerate(replay.decisions):
        decision = match.to_move()
        if decision is None:
            raise ReplayError(f"decision {n} ({d.option_id!r}) comes after the match ended")
        if decision.seat != d.seat:
            raise ReplayError(f"decision {n} is recorded for seat {d.seat} but seat {decision.seat} was to move")
        try:
            label = match.option(d.option_id).label if labels else ""
            events = match.apply(d.option_id)
        except EngineError as exc:
            raise ReplayError(f"decision {n}: {exc}") from exc
        yield Step(n + 1, d, label, events, match)


def simulate(replay: Replay, game: Game | None = None) -> Match:
    """Re-plays the decision log and returns the resulting match.

    Raises:
        ReplayError: the rules version differs, or a decision is not legal or not for its seat.
    """
    match = None
    for step in steps(replay, game):
        match = step.match
    assert match is not None  # steps always yields the start
    return match


def verify_commitment(replay: Replay, published: str | None = None) -> str | None:
    """Checks the replay's seed against its seed commitment (``meta.seed_commitment``).

    The commitment is SHA-256 of the match id and the seed, published when the match was created
    (see :mod:`referee.core.fairness`); the replay reveals the seed. With ``published`` (the value
    the service showed before the match, e.g. on its match page) the check is against that value
    and the replay's own copy must agree with it.

    Returns:
        The commitment checked, or ``None`` when there is none to check (an old replay, nothing
        published).

    Raises:
        ReplayError: the commitment does not match the seed and match id, or differs from the
            published one, or ``meta.match_id`` is missing when a commitment is to be checked.
    """
    recorded = str(replay.meta.get("seed_commitment") or "").strip().lower()
    wanted = (published or "").strip().lower() or recorded
    if not wanted:
        return None
    match_id = replay.meta.get("match_id")
    if match_id is None or match_id == "":
        raise ReplayError("the replay names no meta.match_id, so its seed commitment cannot be checked")
    if published and recorded and recorded != wanted:
        raise ReplayError(f"the replay's seed commitment {recorded} differs from the published {wanted}")
    if not check_commitment(str(match_id), replay.seed, wanted):
        raise ReplayError(
            f"seed {replay.seed} of match {str(match_id)!r} does not match the seed commitment {wanted}: "
            "the match was not played with the seed committed to"
        )
    return wanted


def verify(replay: Replay, game: Game | None = None) -> Match:
    """Re-simulates ``replay`` and checks it reproduces byte for byte.

    Returns:
        The re-simulated match.

    Raises:
        ReplayError: with the first difference found.
    """
    match = simulate(replay, game)
    all_events = match.events(0, EVERYONE)
    public = [e.to_json() for e in all_events if e.visible(None)]
    if json.dumps(public, sort_keys=True) != json.dumps(replay.events, sort_keys=True):
        first = next(
            (i for i, (a, b) in enumerate(zip(public, replay.events, strict=False)) if a != b),
            min(len(public), len(replay.events)),
        )
        raise ReplayError(f"public event log differs from event {first} on")
    if replay.events_digest and events_digest(all_events) != replay.events_digest:
        raise ReplayError("the full event log (hidden events included) does not match the recorded digest")
    engine_outcome = match.outcome()
    recorded = replay.outcome
    if recorded is None:
        raise ReplayError("the replay has no outcome")
    if engine_outcome is not None:
        if engine_outcome != recorded:
            raise ReplayError(
                f"outcome differs: replay says {recorded.to_json()}, engine says {engine_outcome.to_json()}"
            )
    elif recorded.termination not in (Termination.FORFEIT, Termination.CANCELLED):
        raise ReplayError("the decision log stops before the end, but the outcome is not a forfeit or cancellation")
    return match
