"""Runs every benchmark module in ``bench/`` in turn (``make bench``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    """Runs each ``bench/bench_*.py`` and ``bench/mirrored_pairs.py``; returns 1 if any fails."""
    here = Path(__file__).parent
    names = sorted(p.stem for p in here.glob("*.py") if p.stem not in {"__init__", "__main__"})
    failed = []
    for n, name in enumerate(names, 1):
        print(f"== [{n}/{len(names)}] bench.{name}", flush=True)
        if subprocess.run([sys.executable, "-m", f"bench.{name}", *sys.argv[1:]], check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
