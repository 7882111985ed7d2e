"""Nothing outside the engines names a game: games describe themselves (issue 17, item 1).

The scan reads every Python file of the repository with :mod:`ast` and looks for a game name
(``superfantasybrawl``, ``scrumbrawl``, ``Super Fantasy Brawl``, ``ScrumBrawl``, in any case) in
code: identifiers, attribute names, import paths and string literals. Docstrings (a module's,
class's or function's, and the bare strings that document an attribute) and comments are prose,
not code, and may cite a game as an example. The site's JavaScript (``webapp/static/**/*.js``: the
replay viewer picks its renderer by the board layout's ``kind``) is held to the same rule: its code,
with comments taken out, names no game either.

The allow-list, by path:

- ``referee/games/``: the engines themselves, each in the package named after its game.
- ``proto/``: the wire protocol, whose per-game messages carry the game's name.
- ``tests/``: tests play named games.
- ``bench/``: benchmarks time named games and say which in their output.
- ``docs/``, ``examples/``: prose and sample bots (examples are documentation one can run).
- ``webapp/templates/``: the data-driven pages (not Python; not scanned).
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


def strip_js_comments(source: str) -> str:
    """``source`` with its ``//`` and ``/* */`` comments blanked (newlines kept), strings left whole."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c in "'\"`":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append(source[i : j + 1])
            i = j + 1
        elif source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * source.count("\n", i, j))
            i = j
        elif c == "/" and _regex_may_start("".join(out)):
            # A regex literal (``/[&<>"']/g``): kept whole, so its quotes open no string.
            j, in_class = i + 1, False
            while j < n and source[j] != "\n" and (in_class or source[j] != "/"):
                in_class = (in_class and source[j] != "]") or (not in_class and source[j] == "[")
                j += 2 if source[j] == "\\" else 1
            out.append(source[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _regex_may_start(before: str) -> bool:
    """Whether a ``/`` after the code ``before`` starts a regex literal rather than a division."""
    code = before.rstrip()
    return not code or code[-1] in "(,=:[!&|?{};" or code.endswith("return")


def game_names_in_js(source: str) -> list[str]:
    """Returns ``line: text`` for each game name in the code of a JavaScript ``source`` (not its comments)."""
    found = []
    for number, line in enumerate(strip_js_comments(source).splitlines(), 1):
        match = GAME_NAME.search(line)
        if match:
            found.append(f"{number}: {match.group(0)!r} in {line.strip()[:80]!r}")
    return found


def _scanned_js() -> list[Path]:
    return sorted((ROOT / "webapp" / "static").rglob("*.js"))


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


def test_no_game_name_in_the_sites_javascript() -> None:
    offenders = {
        str(p.relative_to(ROOT)): hits
        for p in _scanned_js()
        if (hits := game_names_in_js(p.read_text(encoding="utf-8")))
    }
    assert not offenders, (
        "game names in the site's JavaScript (use what the game says of itself: the board layout's kind, "
        f"webapp.games): {offenders}"
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


def test_the_javascript_scan_covers_the_viewer() -> None:
    assert ROOT / "webapp" / "static" / "webapp" / "js" / "viewer.js" in _scanned_js()


@pytest.mark.parametrize(
    ("source", "hits"),
    [
        ("var R = { scrumbrawl: draw };\n", 1),
        ('if (data.game === "superfantasybrawl") return 1;\n', 1),
        ("var t = 'Super Fantasy Brawl';\n", 1),
        ("// ScrumBrawl: a square board\nvar x = 1;\n", 0),
        ("/* Super Fantasy Brawl,\n   hexes */ var y = '//not a comment';\n", 0),
        ("var u = 'http://x/scrumbrawl';\n", 1),
        ("var e = s.replace(/[\"']/g, ''); // ScrumBrawl\nvar h = a / b; // Super Fantasy Brawl\n", 0),
    ],
)
def test_the_javascript_scan_tells_code_from_comments(source: str, hits: int) -> None:
    assert len(game_names_in_js(source)) == hits
