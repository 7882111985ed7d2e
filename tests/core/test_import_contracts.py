"""The layers are an executable contract: ``lint-imports`` passes on the code and fails on a violation.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and ``scripts/lint.sh`` runs them,
so ``make lint`` and ``make test`` both do. Here they run for real: once on the repository, then on a
temporary copy of our six packages with one deliberately violating module added, one case per
contract, and each must fail naming its contract.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("service", "common", "referee", "ladder", "workers", "webapp")


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", "--config", str(cwd / "pyproject.toml")],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our packages' Python files and the project's pyproject.toml, in a fresh folder."""
    root = tmp_path_factory.mktemp("contracts")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            root / package,
            ignore=lambda folder, names: [
                n for n in names if not (n.endswith(".py") or (Path(folder) / n).is_dir()) or n == "__pycache__"
            ],
        )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_repository_keeps_every_contract() -> None:
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_unchanged_copy_keeps_every_contract(copy: Path) -> None:
    result = _lint_imports(copy)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("module", "source", "contract"),
    [
        ("ladder/violation.py", "import referee.core\n", "The ladder is pure maths"),
        ("referee/core/violation.py", "import django.db\n", "Rules engines are libraries"),
        ("referee/server/violation.py", "import webapp.matches.models\n", "Services, top to bottom"),
        ("referee/sdk/violation.py", "from referee.server import hub\n", "Services, top to bottom"),
        ("referee/protocol/violation.py", "from referee.sdk import host\n", "Services, top to bottom"),
        ("ladder/violation.py", "from webapp import api\n", "Services, top to bottom"),
        ("webapp/bots/violation.py", "from webapp.tournaments import services\n", "Web app: apps by domain"),
        ("referee/games/scrumbrawl/violation.py", "import referee.games.superfantasybrawl.match\n", "Each game"),
        ("referee/sdk/violation.py", "def late():\n    import celery\n", "Referees and bots run without"),
        # The web app sends tasks by name (webapp.tasks_out) and checks uploads itself: no workers code.
        ("webapp/matches/violation.py", "def late():\n    from workers.celery import app\n", "Services, top to bottom"),
        ("webapp/hosting/violation.py", "from workers.hosting import upload\n", "Services, top to bottom"),
        # The front door is the top: nothing below it imports it, by name or otherwise.
        ("workers/violation.py", "from service import cli\n", "Services, top to bottom"),
        ("referee/server/violation.py", "def late():\n    from service import refhost\n", "Services, top to bottom"),
        # What every process shares is the floor, and the engines read none of its environment.
        ("common/violation.py", "from referee.core import ids\n", "What every process shares is the floor"),
        ("referee/games/scrumbrawl/violation.py", "from common import settings\n", "Rules engines are libraries"),
        # The broker settings every process shares import no Celery (a ladder referee loads them).
        ("common/brokerconf.py", "\n\ndef violation():\n    import celery\n", "Referees and bots run without"),
        # A migration is history: it uses the historical models, never the app's code (no exception for it).
        (
            "webapp/bots/migrations/0003_bot_stats.py",
            "\n\ndef violation():\n    from webapp.matches.stats import match_outcomes\n",
            "Web app: apps by domain",
        ),
    ],
)
def test_a_deliberate_violation_breaks_its_contract(copy: Path, module: str, source: str, contract: str) -> None:
    path = copy / module
    original = path.read_text() if path.exists() else None
    path.write_text((original or "") + source)
    try:
        result = _lint_imports(copy)
    finally:
        if original is None:
            path.unlink()
        else:
            path.write_text(original)
    assert result.returncode != 0, result.stdout
    broken = result.stdout[result.stdout.index("Broken contracts") :]
    assert contract in broken, result.stdout
    assert module.removesuffix(".py").replace("/", ".") in broken, result.stdout


def test_a_cycle_between_sibling_modules_breaks_the_acyclic_contract(copy: Path) -> None:
    first, second = copy / "workers" / "violation_a.py", copy / "workers" / "violation_b.py"
    first.write_text("from workers import violation_b\n")
    second.write_text("def late():\n    from workers import violation_a\n")
    try:
        result = _lint_imports(copy)
    finally:
        first.unlink()
        second.unlink()
    assert result.returncode != 0, result.stdout
    broken = result.stdout[result.stdout.index("Broken contracts") :]
    assert "No import cycles" in broken and "violation_" in broken, result.stdout


def test_a_rule_module_importing_the_match_breaks_the_acyclic_contract(copy: Path) -> None:
    """Super Fantasy Brawl's rule modules ask only the ``MatchState`` protocol: the match imports them."""
    state = copy / "referee" / "games" / "superfantasybrawl" / "state.py"
    original = state.read_text()
    state.write_text(original + "\n\ndef violation():\n    from referee.games.superfantasybrawl import match\n")
    try:
        result = _lint_imports(copy)
    finally:
        state.write_text(original)
    assert result.returncode != 0, result.stdout
    broken = result.stdout[result.stdout.index("Broken contracts") :]
    assert "No import cycles" in broken and ".state -> .match" in broken, result.stdout


@pytest.mark.parametrize("target", ["django.db", "webapp.bots.token_store", "workers.celery"])
def test_the_ladder_referee_importing_django_or_the_web_tier_breaks_its_contract(copy: Path, target: str) -> None:
    refhost = copy / "service" / "refhost.py"
    original = refhost.read_text()
    refhost.write_text(original + f"\n\ndef violation():\n    import {target}\n")
    try:
        result = _lint_imports(copy)
    finally:
        refhost.write_text(original)
    assert result.returncode != 0, result.stdout
    broken = result.stdout[result.stdout.index("Broken contracts") :]
    assert "The ladder referee's wiring needs no database" in broken and "service.refhost" in broken, result.stdout
