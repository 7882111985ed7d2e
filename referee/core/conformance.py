"""The conformance kit: checks every game must pass, driven by random legal play.

Shipped with the engine (as PettingZoo ships its API test) so a bot author or a new game's author
can run it too. Five checks, each a function taking a :class:`~referee.core.contract.Game`:

- :func:`check_info`: the game has one description: every match it creates returns the game's own
  :class:`~referee.core.contract.GameInfo` object, and the engine takes exactly the table sizes
  that description names (``seat_counts``), so no caller ever has to ask the engine.
- :func:`check_playout`: a seeded random game runs to its end with no exception, and at every
  step the contract's invariants hold (plus any game-specific ones you pass in).
- :func:`check_determinism`: the same seed and the same decisions give the same trajectory.
- :func:`check_replay_roundtrip`: the recorded replay serialises, parses and verifies.
- :func:`check_no_leak`: at sampled steps, re-dealing everything a viewer cannot see
  (:meth:`~referee.core.contract.Match.determinize`) leaves that viewer's observation, options and
  events unchanged, so nothing hidden reaches it.

:func:`run_conformance` runs them all over many seeds. It raises :class:`ConformanceError`
with the seed and step of the first failure, so the failure can be replayed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.core.chance import SeededChance
from referee.core.contract import EVERYONE, Game, Match, Option
from referee.core.errors import ConfigError
from referee.core.ids import Seat
from referee.core.replay import Recorder, Replay, verify

Invariant = Callable[[Match], None]
"""A game-specific check run after every step; it raises ``AssertionError`` on failure."""

Validator = Callable[[str, Any], None]
"""Checks a payload against its typed schema: called as ``validator(kind, data)`` with kind
``"observation"``, ``"option"`` or ``"event"``; raises on a mismatch."""


class ConformanceError(AssertionError):
    """A game broke the contract; the message carries the seed and step to reproduce it."""


@dataclass
class ConformanceReport:
    """What a conformance run saw, for the test to print and assert on."""

    games: int = 0
    decisions: int = 0
    leak_checks: int = 0
    redeals_with_hidden_changes: int = 0
    """Leak checks where the re-deal changed something another viewer sees: proof that the
    re-deal really re-dealt, so the leak check is not vacuous."""
    terminations: dict[str, int] = field(default_factory=dict)
    longest: int = 0


def check_info(game: Game) -> None:
    """Checks that the game's info is the one description of it, and that the engine agrees with it.

    A match of every size in ``info.seat_counts`` is created with the default config and must
    return the game's info object itself; every other size from 0 to one past the largest is
    refused with a ``ConfigError`` by both ``info.check_seats`` and ``default_config``.

    Raises:
        ConformanceError: a match returns another info, or the engine takes a size its info does not
            name, or refuses one it names.
    """
    info = game.info
    for seats in range(0, info.max_seats + 2):
        if seats in info.seat_counts:
            try:
                full = game.default_config(seats)
            except ConfigError as exc:
                raise ConformanceError(
                    f"{info.name}: its info names {seats} seats, but the engine refuses: {exc}"
                ) from exc
            match = game.new_match(full, seats, SeededChance(0))
            if match.info is not info:
                raise ConformanceError(f"{info.name}: a {seats}-seat match returns another GameInfo than the game's")
            continue
        for door in (info.check_seats, game.default_config):
            try:
                door(seats)
            except ConfigError:
                continue
            raise ConformanceError(f"{info.name}: {seats} seats is not in its info {info.seats_text()}, yet accepted")


def _fail(seed: int, step: int, message: str) -> ConformanceError:
    return ConformanceError(f"seed {seed}, step {step}: {message}")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def check_step_invariants(match: Match, seats: int, validator: Validator | None = None) -> None:
    """Checks the contract's invariants on ``match`` as it stands.

    Raises:
        AssertionError: an invariant does not hold.
    """
    decision = match.to_move()
    options = match.legal_options()
    outcome = match.outcome()
    if decision is None:
        assert outcome is not None, "no decision is pending but the match has no outcome"
        assert not options, "the match is over but options are offered"
        assert len(outcome.ranks) == seats, f"outcome ranks {outcome.ranks!r} do not cover {seats} seats"
        return
    assert outcome is None, "a decision is pending but the match has an outcome"
    assert 0 <= decision.seat < seats, f"seat {decision.seat} to move is out of range"
    assert options, f"decision {decision.kind!r} for seat {decision.seat} has no options"
    ids = [o.id for o in options]
    assert len(set(ids)) == len(ids), f"duplicate option ids: {ids!r}"
    assert decision.default_option_id in ids, (
        f"default option {decision.default_option_id!r} is not legal among {ids[:10]!r}"
    )
    again = match.legal_options()
    assert [o.to_json() for o in again] == [o.to_json() for o in options], "legal options are not deterministic"
    for viewer in [*range(seats), None]:
        obs = match.observe(Seat(viewer) if viewer is not None else None)
        text = _canonical(obs)
        assert text == _canonical(match.observe(Seat(viewer) if viewer is not None else None)), (
            f"observation for {viewer!r} is not deterministic"
        )
        if validator:
            validator("observation", obs)
    if validator:
        for o in options:
            validator("option", o.params)
    _canonical([o.to_json() for o in options])


def random_playout(
    game: Game,
    seats: int,
    seed: int,
    config: Mapping[str, Any] | None = None,
    *,
    policy_seed: int | None = None,
    max_decisions: int = 200_000,
    on_step: Callable[[Recorder, int], None] | None = None,
) -> Recorder:
    """Plays one match with uniformly random legal options and returns its recorder.

    Raises:
        ConformanceError: the match did not end within ``max_decisions`` decisions.
    """
    full = game.parse_config(config or {}, seats)
    rec = Recorder(game, full, seed, [f"seat{i}" for i in range(seats)])
    policy = SeededChance(policy_seed if policy_seed is not None else seed ^ 0x5EED)
    step = 0
    while (decision := rec.match.to_move()) is not None:
        if on_step:
            on_step(rec, step)
        options = rec.match.legal_options()
        rec.apply(options[policy.below(len(options))].id)
        step += 1
        if step > max_decisions:
            raise _fail(seed, step, f"the match did not end within {max_decisions} decisions")
        del decision
    if on_step:
        on_step(rec, step)
    return rec


def _options_view(options: Sequence[Option]) -> str:
    return _canonical([o.to_json() for o in options])


def check_no_leak(match: Match, seats: int, salt: int, report: ConformanceReport | None = None) -> None:
    """Checks that no viewer's view depends on what it cannot see.

    For each seat and for the spectator, deals everything hidden from that viewer anew and
    compares what the viewer sees: its observation, its options when it is to move, and its
    events.

    Raises:
        AssertionError: a view changed, so it carried hidden information.
    """
    decision = match.to_move()
    for viewer_int in [*range(seats), None]:
        viewer = Seat(viewer_int) if viewer_int is not None else None
        other = match.determinize(viewer, SeededChance(salt * 7919 + (viewer_int if viewer_int is not None else 99)))
        assert _canonical(other.observe(viewer)) == _canonical(match.observe(viewer)), (
            f"observation for viewer {viewer!r} changed when hidden information was re-dealt"
        )
        mine = [e.to_json() for e in match.events(0, viewer)]
        theirs = [e.to_json() for e in other.events(0, viewer)]
        assert _canonical(mine) == _canonical(theirs), f"events for viewer {viewer!r} changed on re-deal"
        if decision is not None and viewer is not None and decision.seat == viewer:
            other_decision = other.to_move()
            assert other_decision == decision, "the pending decision changed on re-deal"
            assert _options_view(other.legal_options()) == _options_view(match.legal_options()), (
                f"options for seat {viewer} changed when hidden information was re-dealt"
            )
        if report is not None:
            report.leak_checks += 1
            for seen_by in range(seats):
                if seen_by != viewer_int and _canonical(other.observe(Seat(seen_by))) != _canonical(
                    match.observe(Seat(seen_by))
                ):
                    report.redeals_with_hidden_changes += 1
                    break


def check_playout(
    game: Game,
    seats: int,
    seed: int,
    config: Mapping[str, Any] | None = None,
    *,
    invariants: Iterable[Invariant] = (),
    validator: Validator | None = None,
    leak_every: int = 0,
    report: ConformanceReport | None = None,
) -> Recorder:
    """Plays a random match, checking invariants at every step and leaks every ``leak_every``.

    Raises:
        ConformanceError: an invariant or a leak check failed; the message has seed and step.
    """
    checks = list(invariants)
    first_seen: list[str] = []  # each event as it was when first emitted

    def on_step(rec: Recorder, step: int) -> None:
        match = rec.match
        try:
            check_step_invariants(match, seats, validator)
            events = match.events(0, EVERYONE)
            assert [e.index for e in events] == list(range(len(events))), "event indices are not 0, 1, 2..."
            for e in events[len(first_seen) :]:
                if validator:
                    validator("event", e.data)
                first_seen.append(_canonical(e.to_json()))
            for check in checks:
                check(match)
            if leak_every and step % leak_every == 0:
                check_no_leak(match, seats, seed * 1000 + step, report)
        except AssertionError as exc:
            raise _fail(seed, step, str(exc)) from exc

    rec = random_playout(game, seats, seed, config, on_step=on_step)
    # Events are sent to viewers as they happen, so one that changes afterwards would make a
    # viewer's record differ from the replay's.
    for e, text in zip(rec.match.events(0, EVERYONE), first_seen, strict=True):
        if _canonical(e.to_json()) != text:
            raise _fail(seed, len(rec.replay.decisions), f"event {e.index} ({e.kind}) changed after it was emitted")
    if report is not None:
        report.games += 1
        report.decisions += len(rec.replay.decisions)
        report.longest = max(report.longest, len(rec.replay.decisions))
        outcome = rec.outcome()
        assert outcome is not None
        key = outcome.termination.value
        report.terminations[key] = report.terminations.get(key, 0) + 1
    return rec


def check_determinism(game: Game, seats: int, seed: int, config: Mapping[str, Any] | None = None) -> None:
    """Plays the same seeded random match twice and compares every event and decision.

    Raises:
        ConformanceError: the two trajectories differ.
    """
    a = random_playout(game, seats, seed, config).finish()
    b = random_playout(game, seats, seed, config).finish()
    if a.dumps() != b.dumps():
        raise _fail(seed, len(a.decisions), "the same seed and decisions gave two different replays")


def check_replay_roundtrip(rec: Recorder) -> Replay:
    """Finishes ``rec``'s replay, serialises it, parses it back and verifies it.

    Also checks that a replay cut short by a forfeit verifies.

    Raises:
        ConformanceError: the replay does not round-trip or does not reproduce.
    """
    replay = rec.finish()
    text = replay.dumps()
    parsed = Replay.loads(text)
    if parsed.dumps() != text:
        raise _fail(replay.seed, len(replay.decisions), "replay does not round-trip through JSON")
    try:
        verify(parsed)
    except Exception as exc:
        raise _fail(replay.seed, len(replay.decisions), f"replay does not verify: {exc}") from exc
    # A forfeit halfway through must verify too.
    half = len(replay.decisions) // 2
    cut = Recorder(rec.game, replay.config, replay.seed, replay.seats)
    for d in replay.decisions[:half]:
        cut.apply(d.option_id)
    if cut.match.to_move() is not None:
        seat = cut.match.to_move().seat  # type: ignore[union-attr]
        cut.forfeit([seat], "conformance: forfeit halfway")
        verify(Replay.loads(cut.finish().dumps()))
    return replay


def run_conformance(
    game: Game,
    seats: int,
    seeds: Iterable[int],
    config: Mapping[str, Any] | None = None,
    *,
    invariants: Iterable[Invariant] = (),
    validator: Validator | None = None,
    leak_every: int = 5,
    determinism_every: int = 10,
    replay_every: int = 1,
) -> ConformanceReport:
    """Runs every check over ``seeds`` and returns what it saw.

    Raises:
        ConformanceError: on the first failure.
    """
    check_info(game)
    report = ConformanceReport()
    checks = list(invariants)
    for n, seed in enumerate(seeds):
        rec = check_playout(
            game, seats, seed, config, invariants=checks, validator=validator, leak_every=leak_every, report=report
        )
        if replay_every and n % replay_every == 0:
            check_replay_roundtrip(rec)
        if determinism_every and n % determinism_every == 0:
            check_determinism(game, seats, seed, config)
    if (
        game.info.has_hidden_information
        and leak_every
        and report.leak_checks
        and not report.redeals_with_hidden_changes
    ):
        raise ConformanceError(
            f"{game.info.name}: {report.leak_checks} leak checks ran but no re-deal changed anything hidden; "
            "determinize() does not re-deal, so the leak check proves nothing"
        )
    return report
