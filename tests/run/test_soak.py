"""The soak (issue 12): ``brawl run`` with 12 extra bots keeps going, steadily, within bounded memory and disk.

Both are in the slow suite (``make test-slow``): the 3-minute version, and the 30-minute one that
``make soak`` runs; ``BRAWL_SOAK_MINUTES`` overrides either length. The default suite keeps
``brawl run`` unattended in ``test_run_command.py`` and ``test_restart.py``. Both assert:

- no process died unrestarted: every service of ``brawl run`` has a live pid at the end, the
  supervisor never gave up, ``brawl run`` exits 0 on Ctrl-C, and the extra bots are still connected;
- the ladder kept scheduling both games: each game finished ladder matches in the first third, and
  no game went longer than the matchmaker's ``rematch_patience`` (10 minutes) plus 3 minutes without
  one. Not a steady rate: the rematch limit (4 meetings of a pair per 24 h, ``ladder.matchmaking``)
  caps a pool of 10 fast bots per game at a few hundred matches a day, which they play within
  minutes; after that the ladder pairs a bot again only once it has waited ``rematch_patience``,
  so it plays in bursts. The matches per minute of each third are reported, not asserted;
- memory stayed flat: the resident memory of each kind of process at the end is within 50% (plus
  30 MiB of slack for caches warming up) of what it was at the end of the first third;
- disk growth stayed bounded: the broker holds no backlog (its queue came down under 20 files in
  the last third of the run at least once), no log file exceeds its rotation size,
  and the database grows by less than 96 KiB per match recorded (the replay and the viewer's frames
  are both stored gzip-compressed: about 8 and 44 KB a match on the 3-minute soak's mix; a leak or
  an uncompressed store would be several times that);
- ``brawl ratings verify`` passes at the end.

The figures (written to ``soak-report.json`` in the test's folder and printed) go to
``docs/benchmarks.md``.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

import pytest

from ladder.matchmaking import MatchmakingConfig
from tests.run.soak import Report, soak

PATIENCE = MatchmakingConfig().rematch_patience.total_seconds()
"""Seconds after which the rematch limit gives way for a waiting bot."""
LOG_MAX_BYTES = 10_000_000
"""``common.logsetup``'s default rotation size."""


def _check(report: Report) -> None:
    assert report.failure is None, report.failure
    assert report.unrestarted == [], f"services without a live process: {report.unrestarted}"
    assert report.exit_code == 0
    assert report.extra_bots_alive, "an extra bot process exited"
    for game, rates in report.per_third.items():
        assert rates[0] > 0, f"{game}: no ladder match in the first third: {rates}"
        pause = report.longest_pause[game]
        assert pause <= PATIENCE + 180, f"{game}: {pause:.0f} s without a ladder match (per third: {rates})"
    for role, (first, last) in report.rss_growth().items():
        if first:
            assert last <= first * 1.5 + 30 * 1024, f"{role}: RSS grew from {first} KiB to {last} KiB"
    # No backlog: in the last third the broker's queue came down under 20 files at least once. A
    # backlog that grows never does; a single sample may catch a burst of results in flight (one
    # loaded run saw 30 files in the last sample, with every service alive and keeping up).
    last_third = [s.broker_files for s in report.samples if s.t >= report.minutes * 60 * 2 / 3]
    assert min(last_third) < 20, f"broker backlog in the last third: {last_third} files"
    assert all(size <= LOG_MAX_BYTES + 64_000 for size in report.log_files.values()), report.log_files
    assert report.db_bytes_per_match < 96 * 1024, f"{report.db_bytes_per_match} bytes per match"
    assert report.ratings_verify == 0, report.ratings_output


def _run(minutes: float, tmp_path: Path) -> Report:
    minutes = float(os.environ.get("BRAWL_SOAK_MINUTES", minutes))
    report = soak(minutes, tmp_path)
    figures = {k: v for k, v in asdict(report).items() if k != "samples"}
    figures["rss_kib_first_third_vs_end"] = report.rss_growth()
    figures["last_sample"] = asdict(report.samples[-1])
    (tmp_path / "soak-report.json").write_text(json.dumps(asdict(report), indent=1))
    print("soak figures:", json.dumps(figures, indent=1))
    return report


def _budget(minutes: float) -> float:
    """pytest-timeout seconds for a soak of ``minutes`` (or ``BRAWL_SOAK_MINUTES``): run, start-up, checks."""
    return float(os.environ.get("BRAWL_SOAK_MINUTES", minutes)) * 60 + 900


@pytest.mark.slow
@pytest.mark.timeout(_budget(3))
def test_soak_three_minutes(tmp_path: Path) -> None:
    _check(_run(3, tmp_path))


@pytest.mark.slow
@pytest.mark.timeout(_budget(30))
def test_soak_thirty_minutes(tmp_path: Path) -> None:
    _check(_run(30, tmp_path))
