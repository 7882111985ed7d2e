"""Import boundaries: rules engines and the ladder stay pure libraries.

The engines (``referee/core``, ``referee/games``) may not import I/O, clocks, global randomness,
gRPC, Django or Celery; ``ladder/`` may not import Django, gRPC or Celery, nor read the clock or
global random. Checked on the source, so a new module cannot slip past.

The layers between our own packages, and the frameworks each may use, are import-linter contracts
(``pyproject.toml``, run by ``scripts/lint.sh`` and ``test_import_contracts.py``); this module keeps
what those do not see: standard-library modules (``random``, ``time``, ``os``...) and calls that
read the clock or draw from the global generator.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE_FORBIDDEN = {
    "random", "time", "datetime", "socket", "os", "subprocess", "threading", "asyncio",
    "grpc", "google", "django", "rest_framework", "celery", "redis", "requests", "urllib", "http",
    "sqlite3", "shutil", "tempfile", "uuid", "secrets",
}  # fmt: skip
LADDER_FORBIDDEN = {"django", "rest_framework", "grpc", "celery", "redis", "time", "os", "socket"}
# The ladder may name ``random.Random`` and ``datetime`` as parameter types (the caller passes them
# in), but may not draw from the global generator or read the clock itself.
CLOCK_CALLS = {"now", "utcnow", "today", "time", "monotonic", "perf_counter"}
# Modules of the engine packages that are tooling around the engine rather than the engine.
ENGINE_TOOLING = {"referee/core/conformance.py"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _impure_calls(path: Path) -> list[str]:
    """Uses of the global random generator, and reads of the clock, as ``name.attr`` strings."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner, attr = node.value.id, node.attr
            if owner == "random" and attr != "Random":
                found.append(f"random.{attr}")
            if owner in {"datetime", "date", "time"} and attr in CLOCK_CALLS:
                found.append(f"{owner}.{attr}")
    return found


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _modules("referee/core", "referee/games"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engines_import_nothing_impure(path: Path) -> None:
    if str(path.relative_to(ROOT)) in ENGINE_TOOLING:
        return
    bad = _imports(path) & ENGINE_FORBIDDEN
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: engines must stay pure"


@pytest.mark.parametrize("path", _modules("ladder"), ids=lambda p: str(p.relative_to(ROOT)))
def test_ladder_imports_no_framework(path: Path) -> None:
    bad = _imports(path) & LADDER_FORBIDDEN
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: ladder/ must stay pure"
    calls = _impure_calls(path)
    assert not calls, f"{path.relative_to(ROOT)} uses {calls}: take randomness and now as parameters"


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import random\nfrom django.db import models\nfrom . import x\n")
    assert _imports(sample) == {"random", "django"}


def test_the_checker_sees_global_random_and_clock_reads(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import random\ndef f(rng: random.Random):\n    return random.random(), datetime.now()\n")
    assert _impure_calls(sample) == ["random.random", "datetime.now"]
