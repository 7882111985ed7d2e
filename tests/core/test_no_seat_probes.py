"""Nothing outside the engines finds a game's table sizes by asking its engine.

A probe calls ``parse_config`` (or ``default_config``) and swallows the ``ConfigError`` to learn
whether a size works; the sizes are ``GameInfo.seat_counts`` instead. The scan walks the service's
packages (the engines themselves and the conformance kit, which checks that an engine agrees with
its info, are left out) and flags every function that calls the engine's config validation inside
a ``try`` whose ``ConfigError`` handler does not raise. The consumers that remain must agree with
the info.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("referee", "workers", "webapp", "ladder")
LEFT_OUT = (ROOT / "referee" / "games", ROOT / "referee" / "core" / "conformance.py")
_VALIDATORS = {"parse_config", "default_config"}


def _catches_config_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(handler.type)}
    return bool(names & {"ConfigError", "ValueError", "Exception", "BaseException"})


def probes(source: str) -> list[str]:
    """Returns ``name:line`` of every try whose body validates a config and whose ConfigError handler swallows it."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Try):
            continue
        calls = [
            n
            for stmt in node.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _VALIDATORS
        ]
        if not calls:
            continue
        for handler in node.handlers:
            if _catches_config_error(handler) and not any(isinstance(n, ast.Raise) for n in ast.walk(handler)):
                found.append(f"{calls[0].func.attr}:{calls[0].lineno}")  # type: ignore[attr-defined]
    return found


def test_the_scanner_flags_a_probe_and_passes_a_door() -> None:
    probe = (
        "def valid_seats(game, seats):\n"
        "    try:\n"
        "        get_game(game).parse_config({}, seats)\n"
        "    except (ConfigError, ValueError):\n"
        "        return False\n"
        "    return True\n"
    )
    door = (
        "def game_config(game, seats, raw):\n"
        "    try:\n"
        "        return get_game(game).parse_config(raw, seats)\n"
        "    except ConfigError as exc:\n"
        "        raise InvalidChallenge(str(exc)) from exc\n"
    )
    assert probes(probe) == ["parse_config:3"]
    assert probes(door) == []
    assert probes(probe.replace("parse_config({}, seats)", "default_config(seats)")) == ["default_config:3"]


def _files() -> list[Path]:
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if any(path == p or p in path.parents for p in LEFT_OUT) or "migrations" in path.parts:
                continue
            out.append(path)
    return out


def test_the_scan_sees_the_service() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _files()}
    assert {"workers/scheduling.py", "referee/server/hub.py", "webapp/matches/services.py"} <= names


def test_no_module_probes_an_engine_for_table_sizes() -> None:
    found = {}
    for path in _files():
        if hits := probes(path.read_text(encoding="utf-8")):
            found[path.relative_to(ROOT).as_posix()] = hits
    assert found == {}, f"these ask the engine which sizes work; read GameInfo.seat_counts: {found}"
