"""The soak: ``brawl run`` on embedded defaults plus 12 extra bots for N minutes, measured from outside.

What a new user does (issue 12): ``make run``, then more bots - here 6 ``brawl bot run`` processes
and a ``brawl farm`` of 6, half on each game, each with a token from ``brawl token create``. Every
15 s the harness samples the resident memory of every process the run started (by an environment
marker every child inherits), the size of the var folder, the supervisor's state
(``var/supervisor.json``) and the finished matches per game (read-only from the SQLite database).
At the end it stops everything with Ctrl-C and runs ``brawl ratings verify``. :func:`soak` returns
the figures; the tests (``test_soak.py``) assert on them; ``python -m tests.run.soak --minutes 30``
prints them as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("scrumbrawl", "superfantasybrawl")
EXTRA_SINGLE = 6
"""Extra bots run as ``brawl bot run`` processes (half per game)."""
EXTRA_FARM = 6
"""Extra bots run in one ``brawl farm`` process (half per game)."""
SAMPLE_EVERY = 15.0


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def processes_with(marker: str) -> dict[int, str]:
    """Pid -> command line of the processes whose environment carries ``marker``."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if marker.encode() in (proc / "environ").read_bytes():
                found[int(proc.name)] = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
    return found


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` in KiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder`` (files vanishing meanwhile count as 0)."""
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


def role(cmdline: str) -> str:
    """A stable name for a process across restarts: the ``brawl`` subcommand, plus its parent's role."""
    parts = cmdline.split()
    if "service.cli" in parts:
        i = parts.index("service.cli")
        sub = parts[i + 1 : i + 3]
        if sub[:1] == ["bot"]:
            return "bot run"
        return " ".join(sub[:1])
    if "gunicorn" in cmdline or "webapp.wsgi" in cmdline:
        return "web-child"
    if "multiprocessing" in cmdline or "celery" in cmdline:
        return "worker-child"
    return parts[0] if parts else "?"


@dataclass
class Sample:
    """One look at the running service."""

    t: float
    rss_kib: dict[str, int]
    var_bytes: int
    broker_files: int
    finished: dict[str, int]
    restarts: dict[str, int]
    alive: dict[str, bool]


@dataclass
class Report:
    """The figures of one soak."""

    minutes: float
    samples: list[Sample] = field(default_factory=list)
    per_third: dict[str, list[float]] = field(default_factory=dict)
    longest_pause: dict[str, float] = field(default_factory=dict)
    """Per game, the longest stretch in seconds (at the sampling's resolution) without a new ladder match."""
    """Matches finished per minute per game in each third of the run."""
    console_lines_per_minute: float = 0.0
    var_growth_bytes: int = 0
    db_bytes_per_match: float = 0.0
    log_files: dict[str, int] = field(default_factory=dict)
    ratings_verify: int = -1
    ratings_output: str = ""
    exit_code: int | None = None
    failure: str | None = None
    extra_bots_alive: bool = False
    unrestarted: list[str] = field(default_factory=list)

    def rss_growth(self) -> dict[str, tuple[int, int]]:
        """Per role: (RSS at the end of the first third, RSS at the end) in KiB."""
        first = next(s for s in self.samples if s.t >= self.minutes * 60 / 3)
        last = self.samples[-1]
        return {k: (first.rss_kib.get(k, 0), v) for k, v in last.rss_kib.items()}


def _finished(db: Path, *, ladder_only: bool = True) -> dict[str, int]:
    """Finished matches per game (ladder matches only, unless ``ladder_only`` is false)."""
    where = "status = 'finished'" + (" and tournament_id is null" if ladder_only else "")
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        try:
            rows = conn.execute(f"select game, count(*) from matches_match where {where} group by game").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return {}
    return {g: n for g, n in rows}


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return int(resp.status)
    except OSError:
        return 0


def soak(minutes: float, workdir: Path, checkout: Path = ROOT) -> Report:
    """Runs ``brawl run`` from ``checkout`` with 12 extra bots for ``minutes``; returns the figures."""
    var = workdir / "var"
    web, ref, internal = free_port(), free_port(), free_port()
    marker = f"BRAWL_SOAK_MARK={workdir}"
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        PYTHONPATH=f"{checkout}:{checkout / 'proto'}",
        BRAWL_VAR_DIR=str(var),
        BRAWL_SOAK_MARK=str(workdir),
        DJANGO_SETTINGS_MODULE="webapp.settings",
    )
    env.pop("BRAWL_LOG_DIR", None)
    brawl = [sys.executable, "-m", "service.cli"]
    console = workdir / "console.log"
    report = Report(minutes=minutes)
    run_log = console.open("w")
    run = subprocess.Popen(
        [*brawl, "run", "--var", str(var), "--web", f"127.0.0.1:{web}", "--referee", f"127.0.0.1:{ref}",
         "--referee-internal", f"127.0.0.1:{internal}"],
        cwd=checkout, env=env, stdout=run_log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    extras: list[subprocess.Popen[bytes]] = []
    try:
        deadline = time.monotonic() + 300
        while _get(f"http://127.0.0.1:{web}/healthz") != 200 or "Brawl Ladder is running" not in console.read_text():
            if run.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("brawl run did not come up:\n" + console.read_text()[-3000:])
            time.sleep(1)
        farm_spec = []
        bot_logs = workdir / "bots"
        bot_logs.mkdir()
        classes = ["workers.housebots:SteadyBot", "workers.housebots:ErraticBot", "workers.housebots:HeuristicBot"]
        for i in range(EXTRA_SINGLE + EXTRA_FARM):
            game = GAMES[i % 2]
            name = f"soak-{i:02d}"
            made = subprocess.run(
                [*brawl, "token", "create", "--bot", name, "--game", game, "--owner", "author"],
                cwd=checkout, env=env, capture_output=True, text=True, check=True,
            )  # fmt: skip
            token = made.stdout.splitlines()[0].strip()
            cls = classes[i % len(classes)]
            if i < EXTRA_SINGLE:
                out = (bot_logs / f"{name}.log").open("w")
                extras.append(
                    subprocess.Popen(
                        [
                            *brawl,
                            "bot",
                            "run",
                            cls,
                            "--server",
                            f"127.0.0.1:{ref}",
                            "--token",
                            token,
                            "--max-matches",
                            "2",
                        ],
                        cwd=checkout,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )
            else:
                farm_spec.append({"bot": cls, "token": token, "max_matches": 2, "name": name})
        spec = workdir / "farm.json"
        spec.write_text(json.dumps(farm_spec))
        extras.append(
            subprocess.Popen(
                [*brawl, "farm", str(spec), "--server", f"127.0.0.1:{ref}"],
                cwd=checkout,
                env=env,
                stdout=(bot_logs / "farm.log").open("w"),
                stderr=subprocess.STDOUT,
            )
        )
        start = time.monotonic()
        console_start = len(console.read_text().splitlines())
        db = var / "brawl.sqlite3"
        base_finished = _finished(db)
        base_recorded = sum(_finished(db, ladder_only=False).values())
        base_var = folder_bytes(var)
        base_db = _db_bytes(var)
        while True:
            now = time.monotonic() - start
            report.samples.append(_sample(now, marker, var, db, base_finished))
            with (workdir / "samples.jsonl").open("a") as f:  # kept if the run is cut short
                f.write(json.dumps(asdict(report.samples[-1])) + "\n")
            if now >= minutes * 60:
                break
            if run.poll() is not None:
                break
            time.sleep(min(SAMPLE_EVERY, max(0.5, minutes * 60 - now)))
        elapsed = time.monotonic() - start
        lines = len(console.read_text().splitlines()) - console_start
        report.console_lines_per_minute = round(lines / (elapsed / 60), 1)
        report.extra_bots_alive = all(p.poll() is None for p in extras)
        state = json.loads((var / "supervisor.json").read_text())
        report.failure = state.get("failure")
        report.unrestarted = [n for n, s in state["services"].items() if s["pid"] is None]
        report.var_growth_bytes = folder_bytes(var) - base_var
        # Per match recorded in the window, tournament and house matches included: they all store rows.
        recorded = sum(_finished(db, ladder_only=False).values()) - base_recorded
        db_growth = _db_bytes(var) - base_db
        report.db_bytes_per_match = round(db_growth / recorded, 1) if recorded else 0.0
        logs = var / "logs"
        report.log_files = {p.name: p.stat().st_size for p in sorted(logs.iterdir())} if logs.exists() else {}
        report.per_third = _per_third(report.samples, minutes)
        report.longest_pause = _longest_pause(report.samples)
    finally:
        for p in extras:
            p.send_signal(signal.SIGINT)
        run.send_signal(signal.SIGINT)
        try:
            report.exit_code = run.wait(timeout=90)
        except subprocess.TimeoutExpired:
            run.kill()
            report.exit_code = run.wait()
        for p in extras:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        run_log.close()
    verify = subprocess.run([*brawl, "ratings", "verify"], cwd=checkout, env=env, capture_output=True, text=True)
    report.ratings_verify = verify.returncode
    report.ratings_output = (verify.stdout + verify.stderr)[-2000:]
    return report


def _db_bytes(var: Path) -> int:
    """The database's size in use: its pages minus the free ones, as a reader sees it now.

    Not the files' sizes: the write-ahead log holds up to a few MB of pages until SQLite folds it
    into the main file, which over a 3-minute soak alone would add some 20 KB per match.
    """
    db = var / "brawl.sqlite3"
    if not db.exists():
        return 0
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as conn:
        pages, size, free = (
            conn.execute(f"PRAGMA {pragma}").fetchone()[0] for pragma in ("page_count", "page_size", "freelist_count")
        )
    return int((pages - free) * size)


def _sample(now: float, marker: str, var: Path, db: Path, base: dict[str, int]) -> Sample:
    rss: dict[str, int] = {}
    for pid, cmd in processes_with(marker).items():
        key = role(cmd)
        rss[key] = rss.get(key, 0) + rss_kib(pid)
    try:
        state = json.loads((var / "supervisor.json").read_text())
    except (OSError, ValueError):
        state = {"services": {}}
    finished = _finished(db)
    queue = var / "broker" / "queue"
    return Sample(
        t=round(now, 1),
        rss_kib=rss,
        var_bytes=folder_bytes(var),
        broker_files=len(os.listdir(queue)) if queue.exists() else 0,
        finished={g: finished.get(g, 0) - base.get(g, 0) for g in GAMES},
        restarts={n: s["restarts"] for n, s in state["services"].items()},
        alive={n: s["pid"] is not None for n, s in state["services"].items()},
    )


def _longest_pause(samples: list[Sample]) -> dict[str, float]:
    out = {}
    for game in GAMES:
        longest, since = 0.0, samples[0].t
        for before, after in itertools.pairwise(samples):
            if after.finished[game] > before.finished[game]:
                since = after.t
            longest = max(longest, after.t - since)
        out[game] = round(longest, 1)
    return out


def _per_third(samples: list[Sample], minutes: float) -> dict[str, list[float]]:
    """Matches finished per minute per game in each third of the run, from the nearest samples."""
    span = minutes * 60 / 3
    out: dict[str, list[float]] = {}
    for game in GAMES:
        rates = []
        for k in range(3):
            lo = min(samples, key=lambda s: abs(s.t - k * span))
            hi = min(samples, key=lambda s: abs(s.t - (k + 1) * span))
            rates.append(round((hi.finished[game] - lo.finished[game]) / ((hi.t - lo.t) / 60), 2) if hi.t > lo.t else 0)
        out[game] = rates
    return out


def main() -> None:
    """Runs a soak and prints its report as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--workdir", type=Path, required=True)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(json.dumps(asdict(soak(args.minutes, args.workdir)), indent=1))


if __name__ == "__main__":
    main()
