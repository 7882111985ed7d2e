"""``module:Class`` bot specs load from the current folder, and a spec that cannot load is one clear line.

The ``brawl`` console script's ``sys.path`` starts with its own ``bin`` folder, not the current
one, so these run the installed script in a subprocess from a folder holding the author's file, as
an author would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BRAWL = str(Path(sys.executable).parent / "brawl")

MYBOT = """
class MyBot:
    def choose(self, decision, observation, options):
        return max(options, key=lambda o: o.params.get("damage", 0)).id
"""


def brawl(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    return subprocess.run([BRAWL, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_brawl_play_finds_the_authors_module_in_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(MYBOT, encoding="utf-8")
    args = ("play", "--game", "scrumbrawl", "mybot:MyBot", "random", "--games", "2", "--out", "replays")
    done = brawl(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "MyBot" in done.stdout
    assert sorted(p.name for p in (tmp_path / "replays").iterdir()) == ["play-0-0.json.gz", "play-0-1.json.gz"]


def test_the_example_bots_load_from_the_repository_root() -> None:
    done = brawl("play", "--game", "scrumbrawl", "examples.python_bots.greedy:GreedyBot", "random", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "GreedyBot" in done.stdout


BROKEN = {
    "missing.py": None,
    "needsdep.py": "import a_package_nobody_installed\n",
    "syntax.py": "class MyBot(:\n",
    "raises.py": "raise RuntimeError('the author forgot a file')\n",
    "noclass.py": "X = 1\n",
}


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("missing:MyBot", "no module 'missing' in the current folder"),
        ("needsdep:MyBot", "importing needsdep failed: No module named 'a_package_nobody_installed'"),
        ("syntax:MyBot", "syntax.py, line 1: "),
        ("raises:MyBot", "importing raises raised RuntimeError: the author forgot a file"),
        ("noclass:MyBot", "noclass has no 'MyBot'"),
        ("noclass:X", "X is not a class (got int)"),
        ("mybot.py:MyBot", "name the module, not the file: mybot:MyBot"),
        ("examples.python_bots:GreedyBot", "examples.python_bots has no 'GreedyBot'"),
    ],
)
@pytest.mark.parametrize("command", ["play", "bot run"])
def test_a_spec_that_cannot_load_is_one_line_and_exit_2(tmp_path: Path, spec: str, reason: str, command: str) -> None:
    for name, text in BROKEN.items():
        if text is not None:
            (tmp_path / name).write_text(text, encoding="utf-8")
    cwd = ROOT if spec.startswith("examples.") else tmp_path
    if command == "play":
        done = brawl("play", "--game", "scrumbrawl", spec, "random", cwd=cwd)
    else:
        done = brawl("bot", "run", spec, "--token", "t", "--server", "127.0.0.1:9", cwd=cwd)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and reason in lines[0], done.stderr
    assert done.stdout == ""
