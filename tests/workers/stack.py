"""The ladder's processes for tests and the benchmark: referees, bot farms, Celery workers.

Every component is a real subprocess started with ``python -m service.cli ...`` (the ``brawl``
command) in its own process group, logging to a file under the stack's directory, so a test can
SIGKILL one and read what it did. The caller supplies the environment (``DATABASE_URL`` of a
database it created, ``REDIS_URL`` of a Redis database it owns).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

# The referees' internal API needs the service credential. The test process (which calls ListBots
# and StartMatch itself) and every process of a stack share one secret through the environment.
os.environ.setdefault("BRAWL_INTERNAL_TOKEN", "stack-" + secrets.token_urlsafe(24))


def free_port() -> int:
    """Returns a TCP port free on the loopback interface now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(check: Callable[[], Any], timeout: float, what: str, interval: float = 0.2) -> Any:
    """Polls ``check`` until it returns something truthy; returns it.

    Raises:
        TimeoutError: ``timeout`` seconds passed first; the message says what was awaited.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


class Stack:
    """A set of supervised subprocesses sharing one environment.

    Args:
        directory: Where logs, the bot spec and the beat schedule go.
        env: Extra environment for every process.
    """

    def __init__(self, directory: Path, env: dict[str, str]) -> None:
        self.directory = directory
        self.env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "webapp.settings",
            "BRAWL_VAR_DIR": str(directory),
            **env,
        }
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.referee_address = ""
        """The first referee started, named by its internal address (what the workers call and record)."""
        self.referees: dict[str, str] = {}
        """Every referee started, by process name, with its internal address (all of them in ``BRAWL_REFEREES``)."""
        self.bot_ports: dict[str, str] = {}
        """The bot port of each referee, by its internal address: where its bots connect."""
        self._internal_ports: dict[str, int] = {}
        self._own_env = env
        self._web_server: Any = None

    def log(self, name: str) -> str:
        """Returns what process ``name`` has logged so far."""
        path = self.directory / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def spawn(self, name: str, argv: Sequence[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Starts ``argv`` as process ``name`` in a new process group."""
        out = open(self.directory / f"{name}.log", "ab")  # noqa: SIM115 - the child owns it
        proc = subprocess.Popen(
            list(argv),
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**self.env, **(env or {})},
            cwd=REPO,
            start_new_session=True,
        )
        out.close()
        self.procs[name] = proc
        return proc

    def brawl(self, name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Starts a ``brawl`` subcommand as process ``name``."""
        return self.spawn(name, [sys.executable, "-m", "service.cli", *args], env)

    def serve_web_internal(self) -> str:
        """Serves the web app from a thread of this process (its Django, its test database); returns its URL.

        Ladder referees check bot tokens through the web tier's internal API
        (``BRAWL_WEB_INTERNAL_URL``); a stack without its own ``brawl web`` gets this one, started
        once, before its first referee. It shares the test's database and service credential.
        """
        if "BRAWL_WEB_INTERNAL_URL" in self._own_env:
            return self._own_env["BRAWL_WEB_INTERNAL_URL"]
        if self._web_server is not None:
            return self.env["BRAWL_WEB_INTERNAL_URL"]
        import threading

        from django.core.handlers.wsgi import WSGIHandler
        from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

        class Quiet(WSGIRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadedWSGIServer(("127.0.0.1", 0), Quiet, allow_reuse_address=False)
        server.set_app(WSGIHandler())
        threading.Thread(target=server.serve_forever, name="web-internal", daemon=True).start()
        self._web_server = server
        url = f"http://127.0.0.1:{server.server_address[1]}"
        self.env["BRAWL_WEB_INTERNAL_URL"] = url
        return url

    def start_referee(self, name: str = "referee", port: int = 0, args: Sequence[str] = ()) -> str:
        """Starts ``brawl referee`` (ladder mode, plus ``args``) and waits until it accepts connections.

        ``port`` is its bot port. Returns its internal address, which names it for the workers
        (:meth:`bot_address` gives its bot port). Every referee started joins ``BRAWL_REFEREES`` of
        the processes started afterwards; the first one is :attr:`referee_address`. A referee
        started again under the same name keeps its internal port.
        """
        self.serve_web_internal()
        port = port or free_port()
        bot_address = f"127.0.0.1:{port}"
        internal_port = self._internal_ports.setdefault(name, free_port())
        address = f"127.0.0.1:{internal_port}"
        self.bot_ports[address] = bot_address
        self.brawl(name, "referee", "--listen", bot_address, "--internal-listen", address, "--grace", "2", *args)

        def up() -> bool:
            self._alive(name)
            try:
                for listening in (port, internal_port):  # the bot port and the internal API
                    with socket.create_connection(("127.0.0.1", listening), timeout=0.5):
                        pass
                return True
            except OSError:
                return False

        wait_until(up, 60, f"{name} to listen on {bot_address}")
        self.referee_address = self.referee_address or address
        self.referees[name] = address
        self.env["BRAWL_REFEREES"] = ",".join(self.referees.values())
        return address

    def bot_address(self, referee: str = "") -> str:
        """Returns the bot port of a referee named by its internal address (default :attr:`referee_address`)."""
        referee = referee or self.referee_address
        return self.bot_ports.get(referee, referee)

    def start_bots(self, entries: list[dict[str, Any]], name: str = "bots", server: str = "") -> None:
        """Starts a bot farm for ``entries`` (``bot``, ``token``, ``max_matches``); waits until all are online.

        The bots connect to the bot port of ``server`` (a referee's internal address, default
        :attr:`referee_address`).
        """
        server = server or self.referee_address
        spec = self.directory / f"{name}.json"
        spec.write_text(json.dumps(entries))
        before = self.connected_bots(server)
        self.brawl(name, "farm", str(spec), "--server", self.bot_address(server))

        def online() -> bool:
            self._alive(name)
            return self.connected_bots(server) >= before + len(entries)

        wait_until(online, 60, f"{len(entries)} bots to connect to {server}")

    def connected_bots(self, server: str = "") -> int:
        """Returns how many bot sessions a referee (default :attr:`referee_address`) has (its ``ListBots``)."""
        from referee.client import list_bots

        return len(list_bots(server or self.referee_address)[1])

    def start_worker(
        self, name: str, *, concurrency: int = 2, beat: bool = False, queues: str = "", pool: str = "prefork"
    ) -> None:
        """Starts ``brawl worker`` as process ``name`` and waits until Celery says it is ready."""
        args = ["worker", f"--concurrency={concurrency}", f"--pool={pool}", f"--hostname={name}@%h"]
        if beat:
            args.append("--beat")
        if queues:
            args.append(f"--queues={queues}")
        self.brawl(name, *args)

        def ready() -> bool:
            self._alive(name)
            return " ready." in self.log(name)

        wait_until(ready, 90, f"worker {name} to be ready")

    def _alive(self, name: str) -> None:
        proc = self.procs[name]
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with status {proc.returncode}:\n{self.log(name)[-4000:]}")

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Sends ``sig`` to process ``name``'s whole group (children included) and waits for it to exit."""
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        self._reap(proc)

    def terminate(self, name: str) -> None:
        """Asks process ``name`` to stop (SIGTERM to it alone: a Celery worker finishes its tasks) and waits."""
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        self._reap(proc)

    @staticmethod
    def _reap(proc: subprocess.Popen[bytes]) -> None:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def stop(self) -> None:
        """Stops every process: SIGTERM, then SIGKILL after a few seconds, newest first."""
        for name in reversed(list(self.procs)):
            proc = self.procs[name]
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for name in reversed(list(self.procs)):
            proc = self.procs.pop(name)
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if self._web_server is not None:
            self._web_server.shutdown()
            self._web_server.server_close()
            self._web_server = None
