"""Nothing outside the engines names a game: games describe themselves (issue 17, item 1).

The scan reads every Python file of the repository with :mod:`ast` and looks for a game name
(``superfantasybrawl``, ``scrumbrawl``, ``Super Fantasy Brawl``, ``ScrumBrawl``, in any case) in
code: identifiers, attribute names, import paths and string literals. Docstrings (a module's,
class's or function's, and the bare strings that document an attribute) and comments are prose,
not code, and may cite a game as an example.

The allow-list, by path:

- ``referee/games/``: the engines themselves, each in the package named after its game.
- ``proto/``: the wire protocol, whose per-game messages carry the game's name.
- ``tests/``: tests play named games.
- ``bench/``: benchmarks time named games and say which in their output.
- ``docs/``, ``examples/``: prose and sample bots (examples are documentation one can run).
- ``webapp/templates/``, ``webapp/static/``: the data-driven viewer and pages (not Python; not scanned).
- generated ``*_pb2*.py`` modules, the virtualenv and build output.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAME_NAME = re.compile(r"super\s*fantasy\s*brawl|scrum\s*brawl", re.IGNORECASE)
ALLOWED = ("referee/games/", "proto/", "tests/", "bench/", "docs/", "examples/")
SKIPPED_PARTS = {".venv", "build", "dist", "node_modules", "__pycache__", ".git"}


def _docstring_nodes(tree: ast.AST) -> set[int]:
    """Ids of the string constants that are docstrings: the first statement of a body, or a bare string statement."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                ids.add(id(stmt.value))
    return ids


def game_names_in_code(source: str, filename: str = "<string>") -> list[str]:
    """Returns ``line: text`` for each game name found in the code of ``source`` (not its prose)."""
    tree = ast.parse(source, filename=filename)
    prose = _docstring_nodes(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            texts.append(node.value)
        elif isinstance(node, ast.Name):
            texts.append(node.id)
        elif isinstance(node, ast.Attribute):
            texts.append(node.attr)
        elif isinstance(node, ast.alias):
            texts.append(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            texts.append(node.module)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts.append(node.name)
        elif isinstance(node, ast.arg):
            texts.append(node.arg)
        for text in texts:
            match = GAME_NAME.search(text)
            if match:
                found.append(f"{getattr(node, 'lineno', '?')}: {match.group(0)!r} in {text[:80]!r}")
    return found


def _scanned() -> list[Path]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if SKIPPED_PARTS & set(rel.parts) or "_pb2" in path.name or rel.parts[0].endswith(".egg-info"):
            continue
        if str(rel).startswith(ALLOWED):
            continue
        out.append(path)
    return out


def test_no_game_name_outside_the_engines() -> None:
    offenders = {
        str(p.relative_to(ROOT)): hits
        for p in _scanned()
        if (hits := game_names_in_code(p.read_text(encoding="utf-8"), str(p)))
    }
    assert not offenders, (
        "game names in code outside referee/games (read them from the registry, "
        f"referee.core.registry.get_game(name).info): {offenders}"
    )


def test_the_scan_covers_the_services() -> None:
    scanned = {str(p.relative_to(ROOT)) for p in _scanned()}
    for expected in ("workers/scheduling.py", "webapp/rankings/services.py", "referee/core/registry.py"):
        assert expected in scanned


@pytest.mark.parametrize(
    ("source", "hits"),
    [
        ('POD_GAMES = {"scrumbrawl": (4, 3)}\n', 1),
        ("from referee.games.superfantasybrawl import INFO\n", 1),
        ("def f():\n    return 'Super Fantasy Brawl'\n", 1),
        ("class ScrumBrawlHelper:\n    pass\n", 1),
        ('"""A docstring about ScrumBrawl."""\nX = 1\n"""An attribute docstring: superfantasybrawl."""\n', 0),
        ("x = 1  # a comment on ScrumBrawl\n", 0),
    ],
)
def test_the_scan_tells_code_from_prose(source: str, hits: int) -> None:
    assert len(game_names_in_code(source)) == hits
