"""A small process supervisor for ``brawl run``: start services in order, prefix their logs, stop cleanly.

Each service is a command with an optional readiness probe. Services start in order; each waits
until its probe passes (or its process dies, which stops everything with the reason). Output lines
are prefixed with the service name. Ctrl-C or SIGTERM stops every process: SIGTERM first, then
SIGKILL for any still running after a grace period, in reverse start order.

Not a production process manager: in production each component runs under its own supervisor
(systemd, Kubernetes); see ``docs/deploy.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Probe = Callable[[], bool]


def tcp_probe(host: str, port: int) -> Probe:
    """Returns a probe that passes once something accepts TCP connections at ``host:port``."""

    def probe() -> bool:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            return False

    return probe


def http_probe(url: str) -> Probe:
    """Returns a probe that passes once ``url`` answers with a status below 500."""

    def probe() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return int(resp.status) < 500
        except OSError:
            return False

    return probe


@dataclass
class Service:
    """One supervised process."""

    name: str
    argv: Sequence[str]
    ready: Probe | None = None
    env: dict[str, str] = field(default_factory=dict)
    ready_timeout: float = 60.0
    process: subprocess.Popen[str] | None = None


class Supervisor:
    """Starts services in order and stops them all on request or when one dies."""

    def __init__(self, services: Sequence[Service], *, grace: float = 10.0, out: Callable[[str], None] | None = None):
        self.services = list(services)
        self.grace = grace
        self._out = out or (lambda line: print(line, flush=True))
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self.on_ready: Callable[[], None] | None = None
        """Called once every service is ready (``brawl run`` prints its banner there)."""

    def _pump(self, svc: Service) -> None:
        assert svc.process is not None and svc.process.stdout is not None
        width = max(len(s.name) for s in self.services)
        for line in svc.process.stdout:
            with self._lock:
                self._out(f"{svc.name:<{width}} | {line.rstrip()}")

    def start(self) -> None:
        """Starts every service in order, waiting for each to be ready.

        Raises:
            RuntimeError: a service exited or did not become ready in time (everything is stopped).
        """
        for svc in self.services:
            env = {**os.environ, **svc.env, "PYTHONUNBUFFERED": "1"}
            svc.process = subprocess.Popen(
                list(svc.argv),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env=env,
                start_new_session=True,  # so Ctrl-C reaches us once, and we stop children in order
            )
            threading.Thread(target=self._pump, args=(svc,), daemon=True).start()
            if svc.ready is None:
                continue
            deadline = time.monotonic() + svc.ready_timeout
            while not svc.ready():
                if svc.process.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{svc.name} exited with status {svc.process.returncode} before it was ready")
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{svc.name} was not ready after {svc.ready_timeout:.0f} s")
                time.sleep(0.2)

    def wait(self) -> int:
        """Blocks until a service exits or a stop is requested; returns the exit status to use."""
        while not self._stopping.is_set():
            for svc in self.services:
                if svc.process is not None and svc.process.poll() is not None:
                    self._out(f"{svc.name} exited with status {svc.process.returncode}; stopping everything")
                    self.stop()
                    return 1
            self._stopping.wait(0.5)
        return 0

    def stop(self) -> None:
        """Stops every running service, newest first: SIGTERM, then SIGKILL after the grace period."""
        self._stopping.set()
        running = [s for s in reversed(self.services) if s.process is not None and s.process.poll() is None]
        for svc in running:
            assert svc.process is not None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(svc.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        for svc in running:
            assert svc.process is not None
            try:
                svc.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._out(f"{svc.name} did not stop within {self.grace:.0f} s; killing it")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(svc.process.pid, signal.SIGKILL)
                svc.process.wait()

    def run_until_interrupted(self) -> int:
        """Starts everything, then waits; SIGINT and SIGTERM stop everything cleanly."""

        def on_signal(signum: int, _frame: object) -> None:
            self._out(f"received {signal.Signals(signum).name}; stopping")
            self._stopping.set()

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        try:
            self.start()
        except RuntimeError as exc:
            print(f"brawl run: {exc}", file=sys.stderr)
            return 1
        if self.on_ready is not None:
            self.on_ready()
        status = self.wait()
        self.stop()
        return status


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl run``."""
    parser = subparsers.add_parser(
        "run",
        help="run the whole service on one machine: referee, worker with beat, web site, house bots",
        description="Migrates the database, creates the demo data, then runs and supervises every "
        "component until Ctrl-C. Uses DATABASE_URL and REDIS_URL when set; otherwise SQLite and a "
        "filesystem broker under --var.",
    )
    parser.add_argument("--web", default="127.0.0.1:8000", metavar="HOST:PORT", help="web site address")
    parser.add_argument("--referee", default="127.0.0.1:50051", metavar="HOST:PORT", help="referee (bots connect here)")
    parser.add_argument("--var", default="var", type=Path, help="folder for the database, broker, replays (./var)")
    parser.add_argument("--no-house-bots", action="store_true", help="do not connect the house bots")
    parser.set_defaults(func=cmd_run)


def _prepare(var: Path) -> Any:
    """Migrates the database and creates the demo data; returns the demo (farm spec and notes)."""
    import django
    from django.core.management import call_command

    django.setup()
    print("run: migrating the database", flush=True)
    call_command("migrate", verbosity=0, interactive=False)
    from workers.demo import ensure_demo

    print("run: creating demo users, house bots and tournaments (the first start plays a small cup)", flush=True)
    return ensure_demo()


def cmd_run(args: argparse.Namespace) -> int:
    """Runs every component under one supervisor until interrupted."""
    var: Path = args.var.resolve()
    var.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("BRAWL_VAR_DIR", str(var))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    os.environ.setdefault("BRAWL_REFEREES", args.referee)
    try:
        demo = _prepare(var)
    except Exception as exc:
        print(f"brawl run: set-up failed: {exc!r}", file=sys.stderr)
        return 1
    spec_path = var / "house-bots.json"
    spec_path.write_text(json.dumps(demo.farm, indent=1))
    spec_path.chmod(0o600)
    brawl = [sys.executable, "-m", "referee.cli"]
    ref_host, ref_port = args.referee.rsplit(":", 1)
    web_host, web_port = args.web.rsplit(":", 1)
    services = [
        Service(
            "referee",
            [*brawl, "referee", "--listen", args.referee, "--grace", "5"],
            tcp_probe(ref_host, int(ref_port)),
        ),
        Service("worker", [*brawl, "worker", "--beat", "--concurrency", "1", "--pool", "solo"]),
        Service(
            "web",
            [*brawl, "web", "--addr", args.web, "--no-migrate"],
            http_probe(f"http://{web_host}:{web_port}/healthz"),
        ),
    ]
    if not args.no_house_bots:
        services.append(Service("housebots", [*brawl, "farm", str(spec_path), "--server", args.referee]))
    supervisor = Supervisor(services, grace=15.0)
    database = os.environ.get("DATABASE_URL") or f"sqlite {var / 'brawl.sqlite3'}"
    broker = os.environ.get("REDIS_URL") or f"filesystem broker {var / 'broker'}"

    def banner() -> None:
        print(
            "\n".join(
                [
                    "",
                    "Brawl Ladder is running:",
                    f"  web site     http://{args.web}/",
                    f"  API docs     http://{args.web}/api/docs/",
                    f"  bots connect {args.referee}  (brawl bot run module:Class --server {args.referee} --token T)",
                    f"  database     {database}",
                    f"  broker       {broker}",
                    "  demo logins  " + ", ".join(f"{u} / {p}" for u, (p, _) in _demo_logins().items()),
                    *(f"  demo         {note}" for note in demo.notes),
                    "Ctrl-C stops everything.",
                    "",
                ]
            ),
            flush=True,
        )

    supervisor.on_ready = banner
    return supervisor.run_until_interrupted()


def _demo_logins() -> dict[str, tuple[str, bool]]:
    from workers.demo import DEMO_LOGINS

    return DEMO_LOGINS
