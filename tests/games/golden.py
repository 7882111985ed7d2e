"""Golden playthroughs for every game: whole seeded games, event by event, checked in and diffed.

A golden case is a seeded random game (:func:`referee.core.conformance.random_playout`: the seed
deals the dice, a policy stream derived from it picks uniformly among the legal options). Its
transcript is one header line (game, rules version, seats, seed, config) and then every event of
the match (``EVERYONE``'s log), one JSON line each. Any rules change that moves a trajectory moves
a transcript; if it is meant, bump the game's rules version and regenerate::

    .venv/bin/python -m tests.games.golden --regen superfantasybrawl   # rewrite, print what moved
    .venv/bin/python -m tests.games.golden --check                      # every game, exit 1 on a diff

Each game lists its cases in ``tests/games/<game>/golden_cases.py`` as ``CASES: list[GoldenCase]``;
the transcripts live in ``tests/games/<game>/golden/<name>.jsonl``. A game's test module checks
them with :func:`assert_matches_golden` (parametrize over :func:`cases`).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core import EVERYONE, get_game
from referee.core.conformance import random_playout
from referee.core.replay import Recorder
from referee.sdk.house import house_factory

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class GoldenCase:
    """One checked-in seeded game."""

    game: str
    """Registry name of the game."""
    name: str
    """File stem, unique within the game: ``seed7``."""
    seats: int
    seed: int
    config: Mapping[str, Any] = field(default_factory=dict)
    bots: str = "random"
    """Who decides: ``random`` (the seeded random playout), or the name of one of the game's house bots
    (``HOUSE_BOTS`` in ``referee/games/<game>/bots.py``), seeded with ``seed``, in every seat; a bot that
    plays the objective ends its games by victory, where random play often only reaches the round cap."""

    @property
    def path(self) -> Path:
        """Where the transcript is checked in."""
        return HERE / self.game / "golden" / f"{self.name}.jsonl"

    def __str__(self) -> str:
        return f"{self.game}/{self.name}"


def cases(game: str) -> list[GoldenCase]:
    """Returns the golden cases ``tests/games/<game>/golden_cases.py`` declares.

    Raises:
        ModuleNotFoundError: the game has no ``golden_cases`` module.
    """
    module = importlib.import_module(f"tests.games.{game}.golden_cases")
    found = list(module.CASES)
    assert all(c.game == game for c in found), f"{game}: a case names another game"
    assert len({c.name for c in found}) == len(found), f"{game}: two cases share a name"
    return found


def games_with_cases() -> list[str]:
    """The games that have a ``golden_cases.py``."""
    return sorted(p.parent.name for p in HERE.glob("*/golden_cases.py"))


def transcript(case: GoldenCase) -> list[str]:
    """Plays the case and returns its transcript lines (header first)."""
    game = get_game(case.game)
    rec = random_playout(game, case.seats, case.seed, dict(case.config)) if case.bots == "random" else _bots_play(case)
    header = {
        "game": case.game,
        "rules_version": game.info.rules_version,
        "seats": case.seats,
        "seed": case.seed,
        "config": rec.replay.config,
    }
    if case.bots != "random":
        header["bots"] = case.bots
    lines = [json.dumps(header, sort_keys=True)]
    lines += [json.dumps(e.to_json(), sort_keys=True) for e in rec.match.events(0, EVERYONE)]
    return lines


def _bots_play(case: GoldenCase) -> Recorder:
    """Plays the case with the house bot ``case.bots`` in every seat (each sees only its own view)."""
    game = get_game(case.game)
    rec = Recorder(game, game.parse_config(dict(case.config), case.seats), case.seed, [case.bots] * case.seats)
    bots = [house_factory(case.game, case.bots, seed=case.seed)() for _ in range(case.seats)]
    while (decision := rec.match.to_move()) is not None:
        seat = decision.seat
        rec.apply(bots[seat].choose(decision, rec.match.observe(seat), rec.match.legal_options()))
    return rec


def diff(case: GoldenCase, got: Sequence[str], *, context: int = 2, limit: int = 60) -> str:
    """A readable unified diff of the checked-in transcript against ``got``, cut at ``limit`` lines.

    Returns an empty string when they agree.
    """
    old = case.path.read_text(encoding="utf-8").splitlines() if case.path.exists() else []
    if old == list(got):
        return ""
    lines = list(difflib.unified_diff(old, list(got), f"{case} (checked in)", f"{case} (now)", n=context, lineterm=""))
    first = next((i for i, (a, b) in enumerate(zip(old, got, strict=False)) if a != b), min(len(old), len(got)))
    summary = f"{case}: {len(old)} -> {len(got)} lines, first difference at line {first} (0 is the header)"
    shown = lines[:limit] + ([f"... {len(lines) - limit} more diff lines"] if len(lines) > limit else [])
    return "\n".join([summary, *shown])


def assert_matches_golden(case: GoldenCase) -> None:
    """Fails with the diff when the case's transcript moved from the checked-in one."""
    assert case.path.exists(), f"{case.path} is missing; run python -m tests.games.golden --regen {case.game}"
    moved = diff(case, transcript(case))
    assert not moved, (
        f"the golden playthrough moved (if intended: bump the rules version and run "
        f"python -m tests.games.golden --regen {case.game}):\n{moved}"
    )


def regenerate(game: str) -> list[str]:
    """Rewrites every transcript of ``game``; returns the diff of each one that moved."""
    moved = []
    for case in cases(game):
        got = transcript(case)
        d = diff(case, got, limit=200)
        if d:
            moved.append(d)
            case.path.parent.mkdir(parents=True, exist_ok=True)
            case.path.write_text("\n".join(got) + "\n", encoding="utf-8")
    return moved


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--regen GAME...`` rewrites and prints what moved; ``--check`` only reports."""
    parser = argparse.ArgumentParser(prog="python -m tests.games.golden", description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--regen", nargs="+", metavar="GAME", help="rewrite these games' transcripts")
    group.add_argument("--check", nargs="*", metavar="GAME", help="compare (every game when none is named)")
    args = parser.parse_args(argv)
    if args.regen:
        for game in args.regen:
            moved = regenerate(game)
            for d in moved:
                print(d, end="\n\n")
            print(f"{game}: {len(cases(game))} cases, {len(moved)} rewritten")
        return 0
    failed = 0
    for game in args.check or games_with_cases():
        for case in cases(game):
            d = diff(case, transcript(case))
            if d:
                failed += 1
                print(d, end="\n\n")
        print(f"{game}: {len(cases(game))} cases checked")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
