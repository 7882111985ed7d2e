"""The referee benchmark still runs end to end (``bench/bench_referee.py``).

The bench drives the referee through interfaces a refactor could break without any other test
noticing (sessions opened in process, the reader's handler, the runners' records), and it is only
run by hand. Each mode runs here on the small test game with a few hundred decisions and must
print a row of figures for it. The figures themselves are not checked: speed is measured by
running the bench, never asserted in tests.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NUMBER = r"\s+[\d.]+"


@pytest.mark.parametrize(
    ("args", "row"),
    [
        (
            ["--concurrency", "2", "--processes", "1", "--batching", "off,on", "--lag"],
            # ... | max step, cpu ('-' without --step-cpu), gc, cb, lag
            rf"^tinygame\s+1\s+2\s+(off|on) \|{NUMBER}{NUMBER} \|{NUMBER * 3} \|{NUMBER} \|{NUMBER}\s+-{NUMBER * 3}$",
        ),
        (
            ["--breakdown", "--concurrency", "2", "--rounds", "1"],
            rf"^tinygame\s+2 \|{NUMBER * 5} \|{NUMBER * 2} \|{NUMBER * 2}$",
        ),
    ],
    ids=["throughput", "breakdown"],
)
def test_the_referee_bench_prints_its_rows(args: list[str], row: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_referee", "--games", "tinygame", "--decisions", "300", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rows = [line for line in out.stdout.splitlines() if re.match(row, line)]
    expected = 2 if "--batching" in args else 1
    assert len(rows) == expected, out.stdout
