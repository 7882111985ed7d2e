"""A small process supervisor for ``brawl run``: start services in order, prefix their logs, restart crashes.

Each service is a command with an optional readiness probe. Services start in order; each waits
until its probe passes (a service that dies before it is ready stops everything with the reason).
Output lines are prefixed with the service name. Once everything is up, a service that exits is
restarted after a backoff that doubles with each crash in the crash window (1 s, 2 s, 4 s, up to
30 s), and the restart is logged with the exit status. Only a crash loop - ``max_crashes`` exits of one
service within ``crash_window`` seconds (5 in 60 s) - stops the service, with a message naming the
service and its last output lines. Ctrl-C or SIGTERM stops every process: SIGTERM first, then SIGKILL
for any still running after a grace period, in reverse start order. Each service runs in its own
process group, and the whole group is killed before a restart, so a crashed worker's beat child
cannot outlive it.

The supervisor writes its state (pids, restarts, last exit) to ``status_path`` as JSON after each
change, for operators and for the soak test.

The existing code rather than a library: honcho (Procfile runner) stops everything when one process
exits and has no restart; circus restarts with backoff but brings ZeroMQ, a daemon and its own
configuration format for four processes. See ``docs/deploy.md``. Not a production process manager:
in production each component runs under its own supervisor (systemd, Kubernetes).
"""

from __future__ import annotations

import argparse
import collections
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import settings

Probe = Callable[[], bool]

TAIL_LINES = 20
"""Output lines kept per service, shown when it crash-loops."""


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
    restarts: int = 0
    """Times the process was started again after it exited."""
    last_exit: int | None = None
    """Exit status of the previous process (negative: killed by that signal)."""
    started_at: float = 0.0
    crashes: collections.deque[float] = field(default_factory=collections.deque)
    """``time.monotonic()`` of each exit within the crash window."""
    tail: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=TAIL_LINES))
    """The last output lines."""
    restart_at: float | None = None
    """When a pending restart is due."""


class CrashLoop(RuntimeError):
    """A service exited too often within the crash window."""


class Supervisor:
    """Starts services in order, restarts those that exit, and stops everything on request or on a crash loop.

    Args:
        services: the services, in start order.
        grace: seconds between SIGTERM and SIGKILL when stopping.
        out: where supervisor and service lines go (stdout by default).
        max_crashes: exits of one service within ``crash_window`` that stop everything.
        crash_window: seconds over which exits are counted.
        backoff: first restart delay in seconds; doubled for each further exit in the window.
        max_backoff: the longest restart delay.
        status_path: a JSON file rewritten with every service's pid and restarts on each change.
    """

    def __init__(
        self,
        services: Sequence[Service],
        *,
        grace: float = 10.0,
        out: Callable[[str], None] | None = None,
        max_crashes: int = 5,
        crash_window: float = 60.0,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        status_path: Path | None = None,
    ):
        self.services = list(services)
        self.grace = grace
        self.max_crashes = max_crashes
        self.crash_window = crash_window
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.status_path = status_path
        self._out = out or (lambda line: print(line, flush=True))
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._width = max(len(s.name) for s in self.services)
        self.failure: str | None = None
        """Why the supervisor stopped everything, when it did so on its own."""
        self.on_ready: Callable[[], None] | None = None
        """Called once every service is ready (``brawl run`` prints its banner there)."""

    def _say(self, line: str) -> None:
        with self._lock:
            self._out(f"{'run':<{self._width}} | {line}")

    def _pump(self, svc: Service, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            text = line.rstrip()
            with self._lock:
                svc.tail.append(text)
                self._out(f"{svc.name:<{self._width}} | {text}")

    def _spawn(self, svc: Service, *, restart: bool = False) -> None:
        env = {**os.environ, **svc.env, "PYTHONUNBUFFERED": "1"}
        svc.process = subprocess.Popen(
            list(svc.argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,  # so Ctrl-C reaches us once, and we stop children in order
        )
        svc.started_at = time.monotonic()
        svc.restart_at = None
        if restart:  # counted once the new process is in place: a reader never sees the count with the old one
            svc.restarts += 1
        threading.Thread(target=self._pump, args=(svc, svc.process), daemon=True).start()
        self._write_status()

    def _write_status(self) -> None:
        if self.status_path is None:
            return
        state = {
            "pid": os.getpid(),
            "failure": self.failure,
            "services": {
                s.name: {
                    "pid": s.process.pid if s.process is not None and s.process.poll() is None else None,
                    "restarts": s.restarts,
                    "last_exit": s.last_exit,
                }
                for s in self.services
            },
        }
        # A name per writer: the monitor thread and stop() may write at once, and with one shared
        # name one's rename would take the other's file away (FileNotFoundError).
        staged = self.status_path.with_name(f"{self.status_path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        staged.write_text(json.dumps(state, indent=1))
        os.replace(staged, self.status_path)  # readers never see half a file

    def start(self) -> None:
        """Starts every service in order, waiting for each to be ready.

        Raises:
            RuntimeError: a service exited or did not become ready in time (everything is stopped).
        """
        for svc in self.services:
            self._spawn(svc)
            assert svc.process is not None
            if svc.ready is None:
                continue
            deadline = time.monotonic() + svc.ready_timeout
            while not svc.ready():
                if svc.process.poll() is not None:
                    self.stop()
                    raise RuntimeError(
                        f"{svc.name} exited with status {svc.process.returncode} before it was ready"
                        + self._tail_text(svc)
                    )
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"{svc.name} was not ready after {svc.ready_timeout:.0f} s" + self._tail_text(svc)
                    )
                time.sleep(0.2)

    def _tail_text(self, svc: Service) -> str:
        time.sleep(0.2)  # let the pump thread read the last lines the process wrote
        with self._lock:
            lines = list(svc.tail)
        if not lines:
            return " (it printed nothing)"
        return f"; its last {len(lines)} output lines:\n" + "\n".join(f"    {line}" for line in lines)

    def _on_exit(self, svc: Service, now: float) -> None:
        """Records an exit of ``svc`` and schedules its restart, or raises :class:`CrashLoop`."""
        assert svc.process is not None
        status = svc.process.returncode
        svc.last_exit = status
        # Whatever the process left behind in its group (a worker's beat child) goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(svc.process.pid, signal.SIGKILL)
        svc.crashes.append(now)
        while svc.crashes and now - svc.crashes[0] > self.crash_window:
            svc.crashes.popleft()
        how = f"signal {signal.Signals(-status).name}" if status < 0 else f"status {status}"
        if len(svc.crashes) >= self.max_crashes:
            raise CrashLoop(
                f"{svc.name} exited {len(svc.crashes)} times within {self.crash_window:.0f} s (last: {how}); "
                "stopping everything" + self._tail_text(svc)
            )
        delay = min(self.max_backoff, self.backoff * 2 ** (len(svc.crashes) - 1))
        svc.restart_at = now + delay
        self._say(
            f"WARNING {svc.name} exited with {how}; restarting it in {delay:.0f} s "
            f"({len(svc.crashes)} exit(s) in the last {self.crash_window:.0f} s)"
        )
        self._write_status()

    def wait(self) -> int:
        """Restarts services that exit until a stop is requested or a crash loop; returns the exit status to use."""
        while not self._stopping.is_set():
            now = time.monotonic()
            for svc in self.services:
                if svc.process is None:
                    continue
                if svc.restart_at is not None:
                    if now >= svc.restart_at:
                        self._spawn(svc, restart=True)
                        self._say(f"{svc.name} restarted (pid {svc.process.pid}, restart {svc.restarts})")
                    continue
                if svc.process.poll() is None:
                    continue
                try:
                    self._on_exit(svc, now)
                except CrashLoop as exc:
                    self.failure = str(exc)
                    self._say(f"ERROR {exc}")
                    self._write_status()
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
                self._say(f"{svc.name} did not stop within {self.grace:.0f} s; killing it")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(svc.process.pid, signal.SIGKILL)
                svc.process.wait()
        # A group leader may be gone while its children still run (a beat child): end the groups.
        for svc in self.services:
            if svc.process is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(svc.process.pid, signal.SIGKILL)
        self._write_status()

    def run_until_interrupted(self) -> int:
        """Starts everything, then waits; SIGINT and SIGTERM stop everything cleanly."""

        def on_signal(signum: int, _frame: object) -> None:
            self._say(f"received {signal.Signals(signum).name}; stopping")
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
        if self.failure:
            print(f"brawl run: {self.failure}", file=sys.stderr)
        return status


def _free_loopback_port() -> int:
    """Returns a loopback port free now (for a listener only this run's processes call)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
    parser.add_argument(
        "--asgi",
        default="",
        metavar="HOST:PORT",
        help="the ASGI server of the people's tables' WebSockets (the table page opens its socket there); "
        "default 127.0.0.1:8001 beside the default web address, else a free loopback port",
    )
    parser.add_argument(
        "--web-internal",
        default=None,
        metavar="HOST:PORT",
        help="the web tier's internal API listener (the referees' token checks, own threads); default a free "
        "loopback port",
    )
    parser.add_argument("--referee", default="127.0.0.1:50051", metavar="HOST:PORT", help="referee (bots connect here)")
    parser.add_argument(
        "--referee-internal",
        default="127.0.0.1:50052",
        metavar="HOST:PORT",
        help="the referee's internal API (workers and web; loopback, with the generated service credential)",
    )
    parser.add_argument(
        "--referees",
        type=int,
        default=None,
        metavar="N",
        help="referee processes sharing the bot port (SO_REUSEPORT), internal API on consecutive ports from "
        "--referee-internal; default one per core when REDIS_URL is set (the relay joins bots of one match "
        "on different processes), else 1",
    )
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
    try:
        count = referee_count(args.referees, os.environ)
    except ValueError as exc:
        print(f"brawl run: {exc}", file=sys.stderr)
        return 2
    internal_host, internal_port = args.referee_internal.rsplit(":", 1)
    internals = [f"{internal_host}:{int(internal_port) + i}" for i in range(count)]
    # The workers and the web tier reach the referees' internal listeners, never the bot port.
    os.environ.setdefault("BRAWL_REFEREES", ",".join(internals))
    # ...and the referees reach the web tier's internal API to check bot tokens (no database for them).
    # It has a listener of its own (webapp.internal_server), so a busy site never delays a bot's connect.
    web_internal = args.web_internal or f"127.0.0.1:{_free_loopback_port()}"
    os.environ.setdefault("BRAWL_WEB_INTERNAL_URL", f"http://{web_internal}")
    # Every service also logs to a rotated file (common.logsetup), so an unattended run keeps its
    # recent history on disk within a bounded size.
    os.environ.setdefault("BRAWL_LOG_DIR", str(var / "logs"))
    # Four house bots per game meet each other 4 times a day within a minute or two; past that a bot
    # waits this long before the rematch limit gives way (10 min by default), which would leave the
    # demo ladder idle most of the time.
    os.environ.setdefault("BRAWL_REMATCH_PATIENCE", "60")
    try:
        demo = _prepare(var)
    except Exception as exc:
        print(f"brawl run: set-up failed: {exc!r}", file=sys.stderr)
        return 1
    spec_path = var / "house-bots.json"
    spec_path.write_text(json.dumps(demo.farm, indent=1))
    spec_path.chmod(0o600)
    brawl = [sys.executable, "-m", "service.cli"]
    ref_host, ref_port = args.referee.rsplit(":", 1)
    web_host, web_port = args.web.rsplit(":", 1)
    if not args.asgi:
        args.asgi = "127.0.0.1:8001" if args.web == "127.0.0.1:8000" else f"127.0.0.1:{_free_loopback_port()}"
    asgi_host, asgi_port = args.asgi.rsplit(":", 1)
    # The table page (served by the WSGI site) opens its socket on the ASGI server; the seat
    # clients there connect to this referee's bot port.
    # (":PORT": the page's own host name, so the session cookie goes along whichever name it was opened by.)
    os.environ.setdefault("BRAWL_TABLES_WS_URL", f":{asgi_port}")
    os.environ.setdefault("BRAWL_TABLES_REFEREE", args.referee)
    referee_cmd = [*brawl, "referee", "--listen", args.referee, "--grace", "5"]
    services = [
        Service(
            "referee" if i == 0 else f"referee-{i + 1}",
            [*referee_cmd, "--internal-listen", internal, *(["--reuse-port"] if count > 1 else [])],
            tcp_probe(ref_host, int(ref_port)),
        )
        for i, internal in enumerate(internals)
    ]
    services += [
        Service("worker", [*brawl, "worker", "--beat", "--concurrency", "1", "--pool", "solo"]),
        Service(
            "web",
            [*brawl, "web", "--addr", args.web, "--internal-addr", web_internal, "--no-migrate"],
            http_probe(f"http://{web_host}:{web_port}/healthz"),
        ),
        Service("asgi", [*brawl, "asgi", "--addr", args.asgi], http_probe(f"http://{asgi_host}:{asgi_port}/healthz")),
    ]
    if not args.no_house_bots:
        services.append(Service("housebots", [*brawl, "farm", str(spec_path), "--server", args.referee]))
        from workers.hosting import sandbox

        try:
            sandbox.check_available()
        except sandbox.SandboxUnavailable as exc:
            print(f"run: no bot host (hosted bots stay pending): {exc}", flush=True)
        else:
            # The bot host validates uploads and runs hosted versions (the demo's hosted house bots).
            services.append(Service("host", [*brawl, "host", "--server", args.referee]))
    supervisor = Supervisor(services, grace=15.0, status_path=var / "supervisor.json")
    database = settings.env("DATABASE_URL", str) or f"sqlite {var / 'brawl.sqlite3'}"
    broker = settings.current().redis_url or f"embedded filesystem broker {var / 'broker'}"

    def banner() -> None:
        print(
            "\n".join(
                [
                    "",
                    "Brawl Ladder is running:",
                    f"  web site     http://{args.web}/",
                    f"  table sockets ws://{args.asgi}/ws/tables/<id>/  (brawl asgi)",
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


def referee_count(asked: int | None, environ: Mapping[str, str]) -> int:
    """How many referee processes ``brawl run`` starts: ``asked``, else one per core with Redis, else 1.

    Several processes share the bot port, so the two bots of a match may land on different ones;
    only the Redis relay joins them, so without ``REDIS_URL`` (the embedded broker) one referee
    plays everything.

    Raises:
        ValueError: ``asked`` is below 1, or above 1 without ``REDIS_URL``.
    """
    redis = bool(settings.env("REDIS_URL", str, environ=environ))
    if asked is None:
        return max(1, os.cpu_count() or 1) if redis else 1
    if asked < 1:
        raise ValueError(f"--referees must be at least 1, got {asked}")
    if asked > 1 and not redis:
        raise ValueError("--referees above 1 needs REDIS_URL: the relay joins bots on different referees")
    return asked


def _demo_logins() -> dict[str, tuple[str, bool]]:
    from workers.demo import DEMO_LOGINS

    return DEMO_LOGINS
