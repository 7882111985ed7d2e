"""Runs the self-contained benchmarks in turn (``make bench``).

``bench_scheduler`` (needs PostgreSQL and Redis) and ``bench_web`` (needs a seeded database) are
run on their own; their docstrings say how.
"""

from __future__ import annotations

import subprocess
import sys

SELF_CONTAINED = [
    "bench_scrumbrawl",
    "bench_superfantasybrawl",
    "bench_referee",
    "bench_ratings",
    "bench_prediction",
    "mirrored_pairs",
]


def main() -> int:
    """Runs each self-contained benchmark with its defaults; returns 1 if any fails."""
    failed = []
    for n, name in enumerate(SELF_CONTAINED, 1):
        print(f"== [{n}/{len(SELF_CONTAINED)}] bench.{name}", flush=True)
        if subprocess.run([sys.executable, "-m", f"bench.{name}"], check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
