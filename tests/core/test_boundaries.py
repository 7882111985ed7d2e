"""Import boundaries: rules engines and the ladder stay pure libraries.

The engines (``referee/core``, ``referee/games``) may not import I/O, clocks, global randomness,
gRPC, Django or Celery; ``ladder/`` may not import Django, gRPC or Celery, nor read the clock or
global random. Checked on the source, so a new module cannot slip past.
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
LADDER_FORBIDDEN = {"django", "rest_framework", "grpc", "celery", "redis", "time", "random", "os", "socket"}
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


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import random\nfrom django.db import models\nfrom . import x\n")
    assert _imports(sample) == {"random", "django"}
