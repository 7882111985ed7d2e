"""``brawl host``: the bot host. It validates new uploads and keeps validated versions connected.

Every ``--poll`` seconds the host:

1. claims one pending upload (``hosting.services.do_claim_pending``; several hosts never claim the
   same one), runs the import check and the validation match in the sandbox
   (:mod:`workers.hosting.validation`) and records the verdict and log; a pass makes the upload the
   bot's next version and its latest;
2. starts every runnable version (validated, the bot's latest, the bot active) that is not running,
   up to ``--max-running`` at once: it issues the run a fresh bot token (revoked when the run ends),
   serves the referee's bot port on a Unix socket (:class:`workers.hosting.proxy.UnixProxy`) and
   starts the bot in the sandbox. The bot connects and says Hello before the ladder can seat it, so
   the sandbox's start-up is never charged to a decision: the matchmaker only pairs connected bots;
3. stops runs whose version is no longer runnable (a newer upload, the bot deactivated), and, when
   versions wait for a free place, the run that carried the least traffic in the last ``--idle``
   seconds (an idle bot makes room; it starts again at the next free place);
4. records each ended run's verdict and bounded log (``HostedRun``) for the author, and restarts a
   crashed run after a back-off that doubles (2 s to 5 min).

Each running bot has a slot number; slot ``n`` runs as uid ``UID_BASE + n`` (see
:mod:`workers.hosting.sandbox`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shutil
import signal
import socket
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from webapp.hosting import checks
from workers.hosting import sandbox, upload
from workers.hosting.proxy import UnixProxy

log = logging.getLogger("workers.hosting")

VALIDATION_SLOT = 0
"""Slot of the validation runs (one at a time per host)."""


@dataclass
class Running:
    """One hosted version running in the sandbox."""

    upload_id: int
    version_id: int
    slot: int
    run: Any
    """A :class:`sandbox.SandboxRun`, or a :class:`workers.hosting.k8s.PodRun` in Kubernetes mode."""
    proxy: UnixProxy | None
    """The Unix-socket proxy (bubblewrap mode; a pod dials the referee itself)."""
    token_id: int
    started: datetime
    run_dir: Path | None
    run_id: int = 0
    """The ``HostedRun`` row, written at start and updated with the log while the run lasts."""
    traffic_mark: int = 0
    traffic_at: float = field(default_factory=time.monotonic)
    idle_for: float = 0.0
    log_saved_at: float = field(default_factory=time.monotonic)
    log_saved_size: int = 0
    slices_saved: dict[str, tuple[int, float | None]] = field(default_factory=dict)
    """Per match: the slice's change count and end as last written."""


@dataclass
class HostSettings:
    """How the host runs."""

    referee: str = "127.0.0.1:50051"
    """The referee's bot port, ``HOST:PORT``."""
    max_running: int = 16
    poll: float = 2.0
    idle: float = 600.0
    """Seconds of little traffic after which a run may be stopped to make room for a waiting one."""
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    max_matches: int = 4
    """Seats a hosted bot accepts at once."""
    cleanup_every: float = 600.0
    """Seconds between cleanups of unused uploads' files (the first runs at start)."""
    log_every: float = 5.0
    """Seconds between writes of a running bot's log (the author reads it on the match page meanwhile)."""
    pods: Any = None
    """A :class:`workers.hosting.k8s.PodLauncher`: run each bot as a pod (``--mode k8s``), not in bubblewrap."""
    validation_bind: str = "127.0.0.1:0"
    """Where the private validation referee listens (Kubernetes mode: ``0.0.0.0:PORT``, for the pods)."""
    validation_advertise: str = "127.0.0.1"
    """The address validation pods dial (Kubernetes mode: the host pod's IP)."""
    heartbeat: str | None = None
    """A file touched after every pass (the Kubernetes probes read its age)."""


class BotHost:
    """The host's state: running versions, their slots, and crash back-offs."""

    def __init__(self, settings: HostSettings) -> None:
        self.settings = settings
        host, _, port = settings.referee.rpartition(":")
        self.referee_host = host or "127.0.0.1"
        self.referee_port = int(port)
        self.running: dict[int, Running] = {}
        self.backoff: dict[int, tuple[float, float]] = {}
        """upload id -> (not before, next delay)."""
        self._stop = asyncio.Event()
        self._next_cleanup = 0.0
        self.disk: Any = None
        """The last cleanup's ``DiskReport`` (bytes stored, uploads kept and removed)."""
        pid = os.getpid()
        self.host_id = (
            f"k8s/{settings.pods.client.namespace}"
            if settings.pods is not None
            else f"{socket.gethostname()}/{pid}/{sandbox.process_start(pid) or 0}"
        )
        """Written on each run's row, so that the next host can close the runs of a dead one."""

    def stop(self) -> None:
        """Asks :meth:`serve` to stop every run and return."""
        self._stop.set()

    async def serve(self) -> None:
        """Runs the host loop until :meth:`stop`; first removes what dead hosts left behind."""
        if self.settings.pods is None:
            sandbox.check_available()
        if self.settings.pods is not None:
            left = await self.settings.pods.sweep()
            if left:
                log.warning("host: deleted %d pod(s) left by an earlier host: %s", len(left), ", ".join(left))
        closed = await asyncio.to_thread(_close_db, self.close_orphan_runs)
        if closed:
            log.warning("host: %d run(s) of a dead host closed and their tokens revoked", closed)
        swept = await asyncio.to_thread(sandbox.sweep_leftovers) if self.settings.pods is None else None
        if swept is not None and swept.groups:
            log.warning(
                "host: %d run group(s) of a dead host: %d process(es) killed, %d group(s) left",
                swept.groups,
                swept.killed,
                swept.left,
            )
        try:
            while not self._stop.is_set():
                try:
                    await self.tick()
                    if self.settings.heartbeat:
                        Path(self.settings.heartbeat).touch()
                except Exception:
                    log.exception("host: tick failed; retrying")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), self.settings.poll)
        finally:
            for upload_id in list(self.running):
                await self._end(upload_id, restart=False)

    def close_orphan_runs(self) -> int:
        """Ends the runs a dead host left open (their tokens revoked); returns how many.

        A bubblewrap host judges the runs of its own machine: dead when their host's pid no longer
        runs with the same start time. A cluster host judges the runs of its namespace: there is one
        host, so a run still open at its start belongs to a host that is gone.
        """
        from webapp.hosting import services

        machine = socket.gethostname()

        def is_dead(host: str) -> bool:
            if host.startswith("k8s/"):  # called at start, before this host has a run of its own
                return self.settings.pods is not None and host == self.host_id
            if host == self.host_id:
                return False
            name, _, rest = host.partition("/")
            pid, _, start = rest.partition("/")
            if name != machine or not pid.isdigit():
                return False
            return sandbox.process_start(int(pid)) != int(start or 0)

        return services.do_close_orphan_runs(is_dead)

    async def tick(self) -> None:
        """One pass: validate one pending upload, reap ended runs, stop stale ones, start runnable ones."""
        from webapp.hosting import services

        await self.validate_one()
        if time.monotonic() >= self._next_cleanup:
            # Files of rejected uploads and of superseded versions no replay refers to; disk use logged.
            self._next_cleanup = time.monotonic() + self.settings.cleanup_every
            self.disk = await asyncio.to_thread(_close_db, services.do_cleanup)
            log.info(
                "host: hosted uploads take %d bytes (%d kept, %d removed)",
                self.disk.stored_bytes,
                self.disk.kept_uploads,
                self.disk.removable_uploads,
            )
        for upload_id, r in list(self.running.items()):
            await r.run.refresh()
            if r.run.returncode is not None:
                await self._end(upload_id, restart=True)
        await self._save_logs()
        rows = await asyncio.to_thread(_close_db, services.runnable)
        wanted = {row.pk: row for row in rows}
        for upload_id in list(self.running):
            if upload_id not in wanted:
                await self._end(upload_id, restart=False)
        now = time.monotonic()
        for r in self.running.values():
            # A pod's traffic is not seen by the host: its age stands for idleness (the oldest makes room).
            carried = r.proxy.bytes_up + r.proxy.bytes_down if r.proxy is not None else 0
            if carried - r.traffic_mark > 16 * 1024:
                r.traffic_mark, r.traffic_at = carried, now
            r.idle_for = now - r.traffic_at
        waiting = [
            row for pk, row in wanted.items() if pk not in self.running and self.backoff.get(pk, (0.0, 0.0))[0] <= now
        ]
        while waiting and len(self.running) >= self.settings.max_running:
            idlest = max(self.running.values(), key=lambda r: r.idle_for)
            if idlest.idle_for < self.settings.idle:
                break
            log.info("host: stopping idle upload %s to make room", idlest.upload_id)
            await self._end(idlest.upload_id, restart=False)
        for row in waiting:
            if len(self.running) >= self.settings.max_running:
                break
            await self._start(row)

    async def validate_one(self) -> None:
        """Claims one pending upload, if any, and runs its import check and validation match."""
        from webapp.bots.models import Bot
        from webapp.hosting import services
        from workers.hosting.validation import validate

        row = await asyncio.to_thread(_close_db, services.do_claim_pending)
        if row is None:
            return
        game = await asyncio.to_thread(_close_db, lambda: Bot.objects.get(pk=row.bot_id).game)
        folder = checks.stored_path(services.storage_root(), row.sha256)
        log.info("host: validating upload %s (%s %s)", row.pk, row.kind, row.entry)
        text = ""
        pods = self.settings.pods
        if row.kind == "python":
            if pods is not None:
                ok, text = await pods.import_check(row.pk, row.sha256, row.entry)
            else:
                ok, text = await upload.import_check(folder, row.entry, slot=VALIDATION_SLOT)
            if not ok:
                await asyncio.to_thread(
                    _close_db, services.do_record_validation, row, False, "the import check failed", text
                )
                return
        result = await validate(
            folder,
            sandbox.BotCommand(row.kind, row.entry),
            game,
            slot=VALIDATION_SLOT,
            limits=self.settings.limits,
            launch=None if pods is None else self._pod_launch(row),
            bind=self.settings.validation_bind,
            advertise=self.settings.validation_advertise,
            # A pod first waits for a node and the image: more time to say Hello than a local sandbox.
            connect_timeout=30.0 if pods is None else 180.0,
        )
        await asyncio.to_thread(
            _close_db,
            services.do_record_validation,
            row,
            result.passed,
            result.summary,
            (text + "\n" if text else "") + result.log,
        )
        log.info("host: upload %s %s: %s", row.pk, "passed" if result.passed else "failed", result.summary)

    async def _save_logs(self) -> None:
        """Writes the log of each running bot that logged something since the last write (every ``log_every`` s)."""
        from webapp.hosting import services

        now = time.monotonic()
        for r in list(self.running.values()):
            size = len(r.run.log.head) + len(r.run.log.tail) + r.run.log.dropped
            if not r.run_id or now - r.log_saved_at < self.settings.log_every:
                continue
            slices = _changed_slices(r)  # a match's start or end changes its slice with no new output
            if size == r.log_saved_size and not slices:
                continue
            r.log_saved_at, r.log_saved_size = now, size
            await asyncio.to_thread(_close_db, services.do_update_run, r.run_id, r.run.log.text())
            if slices:
                await asyncio.to_thread(_close_db, services.do_save_match_logs, r.run_id, slices)

    def _pod_launch(self, row: Any) -> Any:
        async def launch(command: sandbox.BotCommand, server: str) -> Any:
            return await self.settings.pods.start(row.pk, row.sha256, command, server=server, what="validate")

        return launch

    def _free_slot(self) -> int:
        used = {r.slot for r in self.running.values()}
        return next(n for n in range(1, self.settings.max_running + 2) if n not in used)

    async def _start(self, row: Any) -> None:
        from django.utils import timezone

        from webapp.bots.models import Bot
        from webapp.bots.services import do_issue_token, do_revoke_token
        from webapp.hosting import services

        bot = await asyncio.to_thread(_close_db, lambda: Bot.objects.get(pk=row.bot_id))
        issued = await asyncio.to_thread(_close_db, do_issue_token, bot)
        slot = self._free_slot()
        command = sandbox.BotCommand(
            row.kind, row.entry, token=issued.token, max_matches=self.settings.max_matches, games=(bot.game,)
        )
        run_dir: Path | None = None
        proxy: UnixProxy | None = None
        if self.settings.pods is not None:
            try:
                run = await self.settings.pods.start(row.pk, row.sha256, command)
            except Exception:
                await asyncio.to_thread(_close_db, do_revoke_token, issued.record)
                raise
        else:
            run_dir = Path(tempfile.mkdtemp(prefix=f"brawl-host-{slot}-"))
            run_dir.chmod(0o755)
            proxy = UnixProxy(run_dir / sandbox.SOCKET_NAME, self.referee_host, self.referee_port)
            await proxy.start()
            folder = checks.stored_path(services.storage_root(), row.sha256)
            run = await sandbox.start(folder, run_dir, command, slot=slot, limits=self.settings.limits)
        started = timezone.now()
        record = await asyncio.to_thread(
            _close_db,
            lambda: services.do_start_run(row, started, host=self.host_id, token_id=issued.record.pk),
        )
        self.running[row.pk] = Running(
            row.pk, row.version_id, slot, run, proxy, issued.record.pk, started, run_dir, run_id=record.pk
        )
        log.info("host: started upload %s (bot %s v%s) in slot %s", row.pk, bot.name, row.version_id, slot)

    async def _end(self, upload_id: int, *, restart: bool) -> None:
        from webapp.bots.models import BotToken
        from webapp.bots.services import do_revoke_token
        from webapp.hosting import services
        from webapp.hosting.models import HostedUpload

        r = self.running.pop(upload_id)
        await r.run.stop()
        if r.proxy is not None:
            await r.proxy.stop()
        if r.run_dir is not None:
            shutil.rmtree(r.run_dir, ignore_errors=True)
        verdict = r.run.verdict()
        # The matches still open when the run ended get its verdict (a crash, OOM kill, forbidden call).
        slices = _changed_slices(r, verdict=verdict)

        def record() -> None:
            do_revoke_token(BotToken.objects.get(pk=r.token_id))
            if r.run_id:
                services.do_update_run(r.run_id, r.run.log.text(), verdict=verdict, ended=True)
            else:
                r.run_id = services.do_record_run(
                    HostedUpload.objects.get(pk=upload_id), r.started, verdict, r.run.log.text()
                ).pk
            if slices:
                services.do_save_match_logs(r.run_id, slices)

        await asyncio.to_thread(_close_db, record)
        if restart:
            _, delay = self.backoff.get(upload_id, (0.0, 2.0))
            self.backoff[upload_id] = (time.monotonic() + delay, min(delay * 2, 300.0))
            log.warning("host: upload %s ended (%s); restart in %.0f s", upload_id, verdict, delay)
        else:
            self.backoff.pop(upload_id, None)
            log.info("host: upload %s stopped (%s)", upload_id, verdict)


def _changed_slices(r: Running, *, verdict: str | None = None) -> list[Any]:
    """The per-match slices of ``r``'s output changed since last written; with ``verdict`` (the run
    ended) every open match's slice, ended now and given that verdict."""
    from webapp.hosting.services import MatchSlice

    splitter = getattr(r.run, "matches", None)
    if splitter is None:  # a pod: its output carries no match marks
        return []
    out = []
    for match_id, piece in splitter.slices.items():
        mark = (piece.changes, piece.ended)
        if verdict is not None and piece.ended is None:
            out.append(MatchSlice(match_id, piece.started, time.time(), piece.text(), verdict))
        elif r.slices_saved.get(match_id) != mark:
            out.append(MatchSlice(match_id, piece.started, piece.ended, piece.text()))
        r.slices_saved[match_id] = mark
    return out


def _close_db(fn: Any, *args: Any) -> Any:
    """Runs ``fn`` in a worker thread and closes that thread's database connection afterwards."""
    from django.db import connection

    try:
        return fn(*args)
    finally:
        connection.close()


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl host``."""
    parser = subparsers.add_parser("host", help="run hosted (uploaded) bots in a sandbox on the ladder")
    parser.add_argument(
        "--server", default=os.environ.get("BRAWL_HOST_REFEREE", "127.0.0.1:50051"), metavar="HOST:PORT"
    )
    parser.add_argument("--max-running", type=int, default=16, help="hosted bots running at once")
    parser.add_argument("--poll", type=float, default=2.0, help="seconds between passes")
    parser.add_argument(
        "--idle", type=float, default=600.0, help="seconds of little traffic before a run may make room"
    )
    parser.add_argument("--memory-mb", type=int, default=768, help="address-space limit per bot, MiB")
    parser.add_argument("--processes", type=int, default=64, help="processes and threads per bot")
    parser.add_argument("--cpu-seconds", type=int, default=3600, help="CPU seconds per run before it is restarted")
    parser.add_argument(
        "--mode",
        choices=("sandbox", "k8s"),
        default="sandbox",
        help="sandbox: bubblewrap on this machine; k8s: one pod per running bot (docs/hosted-bots.md)",
    )
    k8s = parser.add_argument_group("k8s mode")
    k8s.add_argument("--k8s-api", help="the API server's URL (default: the cluster's, from inside a pod)")
    k8s.add_argument("--k8s-namespace", help="where the pods go (default: the service account's namespace)")
    k8s.add_argument("--k8s-image", default="brawl-ladder:0.1.0", help="the image of the bots' pods")
    k8s.add_argument("--k8s-var-claim", default="brawl-var", help="the claim holding the uploads")
    k8s.add_argument("--validation-port", type=int, default=50061, help="the validation referee's port (k8s)")
    k8s.add_argument(
        "--advertise", help="this host's address for validation pods (default: what this host's name resolves to)"
    )
    parser.add_argument("--heartbeat", metavar="FILE", help="touch FILE after every pass (for liveness probes)")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.set_defaults(func=cmd_host)


def k8s_settings(args: argparse.Namespace, limits: sandbox.Limits) -> dict[str, Any]:
    """The :class:`HostSettings` fields of Kubernetes mode, from ``brawl host``'s flags."""
    from workers.hosting.k8s import KubeClient, PodLauncher

    client = KubeClient.in_cluster(args.k8s_api, args.k8s_namespace)
    pods = PodLauncher(client, image=args.k8s_image, referee=args.server, var_claim=args.k8s_var_claim, limits=limits)
    return {
        "pods": pods,
        "validation_bind": f"0.0.0.0:{args.validation_port}",
        # In a pod the kubelet's /etc/hosts maps the pod's name to the pod's IP.
        "validation_advertise": args.advertise or socket.gethostbyname(socket.gethostname()),
    }


def cmd_host(args: argparse.Namespace) -> int:
    """Runs the host until interrupted; 2 when the sandbox cannot run here."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    limits = sandbox.Limits(
        memory_bytes=args.memory_mb * 1024 * 1024, processes=args.processes, cpu_seconds=args.cpu_seconds
    )
    extra: dict[str, Any] = {}
    try:
        if args.mode == "k8s":
            extra = k8s_settings(args, limits)
        else:
            sandbox.check_available()
    except (sandbox.SandboxUnavailable, RuntimeError) as exc:
        print(f"brawl host: {exc}", flush=True)
        return 2
    host = BotHost(
        HostSettings(
            referee=args.server,
            max_running=args.max_running,
            poll=args.poll,
            idle=args.idle,
            limits=limits,
            heartbeat=args.heartbeat,
            **extra,
        )
    )

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, host.stop)
        await host.serve()

    where = "as pods in namespace " + extra["pods"].client.namespace if extra else "in bubblewrap"
    print(f"host: hosted bots run {where} and connect to {args.server}", flush=True)
    asyncio.run(main())
    return 0
