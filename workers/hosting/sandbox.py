"""One hosted bot process inside bubblewrap, with its limits, its log and a verdict on how it ended.

What is enforced, and where (see docs/hosted-bots.md):

- **No network**: a new network namespace (``--unshare-net``); the bot reaches the referee only
  through the Unix socket of :class:`workers.hosting.proxy.UnixProxy`, bound at
  ``/run/brawl/referee.sock``.
- **Read-only root of only what a bot needs**: a fresh tmpfs root holding read-only binds of
  ``/usr`` (with the ``/bin``, ``/lib`` links), the Python runtime, the installed libraries, the
  SDK (``referee/`` with the ``common/`` it imports, ``brawl`` protos) and the bot's own folder
  at ``/bot``. The service's database, its ``var/`` folder, its settings and other bots' folders
  are not in the sandbox at all.
- **Private /tmp**: a tmpfs of ``Limits.tmp_bytes`` (``--size``), writable by the bot (mode 1777;
  it is also ``HOME``), in the sandbox's own mount namespace, so it is gone with the process.
- **No environment**: ``--clearenv``; the bot gets only ``HOME``, ``PYTHONPATH``, ``BRAWL_SERVER``
  and its own ``BRAWL_TOKEN``.
- **A uid of its own**: bubblewrap starts as root with only ``CAP_SETUID``/``CAP_SETGID`` kept,
  and ``setpriv`` drops to the slot's uid with no capabilities before the bot runs; so the
  process-count limit (``RLIMIT_NPROC``, counted per uid) is this bot's alone.
- **Limits** (``prlimit`` and ``nice`` before bubblewrap starts, inherited): address space
  (``RLIMIT_AS``, memory), processes (``RLIMIT_NPROC``), CPU seconds (``RLIMIT_CPU``), file size
  (``RLIMIT_FSIZE``), open files; and ``nice`` so a busy bot yields the CPU to the referee and its
  neighbours. PID, IPC and UTS namespaces are private; the sandbox dies with the host.

The functions here import neither Django nor the referee: they only build a command line and run it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import os
import re
import shutil
import signal
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

from workers.hosting.matchtag import BoundedLog, Splitter

SOCKET_DIR = "/run/brawl"
"""Where the referee's Unix socket appears inside the sandbox."""
SOCKET_NAME = "referee.sock"
BOT_DIR = "/bot"
"""Where the bot's files appear inside the sandbox (read-only)."""
LOG_LIMIT = 64 * 1024
"""Bytes of a bot's stdout+stderr kept per run (the start and the end; the middle is cut)."""
UID_BASE = 61000
"""Slot ``n`` runs as uid ``UID_BASE + n``: a uid per running bot, so per-uid limits are per bot."""


class SandboxUnavailable(RuntimeError):
    """Raised when bubblewrap or setpriv is missing: hosted bots cannot run on this machine."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed bot."""

    memory_bytes: int = 768 * 1024 * 1024
    """Address space (``RLIMIT_AS``); gRPC's threads reserve a few hundred MiB of it."""
    processes: int = 64
    """Processes and threads of the bot's uid (``RLIMIT_NPROC``); gRPC needs about 20 threads."""
    cpu_seconds: int = 3600
    """CPU time of the bot process (``RLIMIT_CPU``); the host restarts a bot that used it up."""
    file_bytes: int = 16 * 1024 * 1024
    """Largest file the bot may write (``RLIMIT_FSIZE``), in its private /tmp."""
    tmp_bytes: int = 64 * 1024 * 1024
    """Size of the private /tmp."""
    open_files: int = 256
    resident_bytes: int = 512 * 1024 * 1024
    """Resident memory (cgroup ``memory.limit_in_bytes`` / ``memory.max``), where cgroups are writable."""
    cpu_share: float = 0.5
    """Cores the bot may use at most (cgroup CFS quota / ``cpu.max``), where cgroups are writable."""
    nice: int = 10
    """Added niceness: the referee and the web site win the CPU over a busy bot."""


@dataclass(frozen=True)
class BotCommand:
    """What to run inside the sandbox."""

    kind: str
    """``python`` (a module or package with an SDK class, ``entry`` = ``module:Class``) or ``exec``
    (an executable speaking the protocol, ``entry`` = its path inside the bot folder)."""
    entry: str
    token: str = ""
    max_matches: int = 4
    games: tuple[str, ...] = ()
    extra_args: tuple[str, ...] = ()


PYTHON_RUNNER = (
    "import os, sys\n"
    "sys.path.insert(0, '/bot')\n"
    "from referee.sdk.client import load_object, run_bot\n"
    "entry, n, games = sys.argv[1], int(sys.argv[2]), [g for g in sys.argv[3].split(',') if g]\n"
    "run_bot(load_object(entry), os.environ['BRAWL_SERVER'], os.environ['BRAWL_TOKEN'],"
    " games=games, max_matches=n)\n"
)
"""The program a ``python`` bot runs: the SDK's client around the author's class."""


def tagged_runner() -> str:
    """:data:`PYTHON_RUNNER` preceded by :func:`workers.hosting.matchtag.install` (per-match output).

    The module is sent as source: the sandbox holds the SDK, not the service's ``workers`` package.
    """
    from workers.hosting import matchtag

    return Path(matchtag.__file__).read_text() + "\ninstall()\n" + PYTHON_RUNNER


CHECK_RUNNER = (
    "import sys\n"
    "sys.path.insert(0, '/bot')\n"
    "from referee.sdk.client import load_object\n"
    "obj = load_object(sys.argv[1])\n"
    "bot = obj() if isinstance(obj, type) or callable(obj) else obj\n"
    "ok = callable(getattr(bot, 'choose', None)) or callable(getattr(bot, 'choose_turn', None))\n"
    "print('import ok' if ok else 'no choose() or choose_turn() on ' + type(bot).__name__)\n"
    "sys.exit(0 if ok else 3)\n"
)
"""The import check an upload passes: the entry point loads and makes something with ``choose``."""


def _python_paths() -> list[tuple[str, str]]:
    """(outside, inside) binds for the Python runtime, its libraries and the SDK."""
    binds: list[tuple[str, str]] = []
    base = os.path.realpath(sys.base_prefix)
    if not base.startswith("/usr"):
        binds.append((base, base))
    site = sysconfig.get_paths()["purelib"]
    binds.append((site, "/opt/site"))
    platlib = sysconfig.get_paths()["platlib"]
    if platlib != site:
        binds.append((platlib, "/opt/platsite"))
    for package, inside in (
        ("common", "/opt/brawl/common"),
        ("referee", "/opt/brawl/referee"),
        ("brawl", "/opt/brawl/brawl"),
    ):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise SandboxUnavailable(f"cannot find the {package} package to bind into the sandbox")
        binds.append((next(iter(spec.submodule_search_locations)), inside))
    return binds


def python_executable() -> str:
    """The real interpreter (not the virtualenv's link, whose folder is not in the sandbox)."""
    return os.path.realpath(sys.executable)


def check_available() -> None:
    """Raises :class:`SandboxUnavailable` naming what is missing."""
    for tool in ("bwrap", "setpriv", "prlimit", "nice"):
        if shutil.which(tool) is None:
            raise SandboxUnavailable(f"{tool} is not installed (Debian packages bubblewrap and util-linux)")
    if os.geteuid() != 0:
        raise SandboxUnavailable(
            "brawl host runs bubblewrap as root (it then drops each bot to a uid of its own); run it as root"
        )


def _dirs_for(paths: list[str]) -> list[str]:
    """``--dir`` arguments (mode 0755) for every parent of ``paths``, so another uid can walk them."""
    parents: list[str] = []
    for inside in paths:
        parts = Path(inside).parts[1:-1]
        for i in range(len(parts)):
            parent = "/" + "/".join(parts[: i + 1])
            if parent not in parents and parent not in ("/usr", "/tmp"):
                parents.append(parent)
    args: list[str] = []
    for parent in parents:
        args += ["--perms", "0755", "--dir", parent]
    return args


def build_command(
    bot_dir: Path, socket_dir: Path, command: BotCommand, *, slot: int, limits: Limits, seccomp_fd: int | None = None
) -> tuple[list[str], dict[str, str]]:
    """Returns the argv that runs ``command`` in a sandbox, and the environment given to bubblewrap.

    Args:
        bot_dir: the bot's unpacked files (bound read-only at ``/bot``).
        socket_dir: the folder holding the proxy's socket (bound at ``/run/brawl``).
        command: what to run.
        slot: the running bot's slot number; its uid is ``UID_BASE + slot``.
        limits: the limits (the rlimits are set by :func:`launcher`, the tmpfs size here).
        seccomp_fd: a file descriptor holding the system-call filter (:mod:`workers.hosting.seccomp`),
            which bubblewrap installs just before it runs the command.
    """
    uid = UID_BASE + slot
    binds = _python_paths()
    args = [
        "bwrap",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--cap-add",
        "CAP_SETUID",
        "--cap-add",
        "CAP_SETGID",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for name in ("bin", "sbin", "lib", "lib64", "lib32"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    args += _dirs_for([inside for _, inside in binds] + [BOT_DIR, SOCKET_DIR + "/x"])
    for outside, inside in binds:
        args += ["--ro-bind", outside, inside]
    args += ["--ro-bind", str(bot_dir), BOT_DIR, "--bind", str(socket_dir), SOCKET_DIR]
    # The tmpfs is mounted by bubblewrap, as root: without a mode it is root's 0755 and the bot's
    # uid (its HOME too) could not write it. 1777 is any /tmp's mode; only the bot's uid is inside.
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    args += ["--chdir", BOT_DIR]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    server = f"unix:{SOCKET_DIR}/{SOCKET_NAME}"
    env = {
        "HOME": "/tmp",
        "PYTHONPATH": ":".join(["/opt/brawl", *(inside for _, inside in binds if inside.startswith("/opt/"))]),
        "PYTHONDONTWRITEBYTECODE": "1",
        # gRPC's fork handlers log a line per fork(); a bot that forks would flood its own log.
        "GRPC_ENABLE_FORK_SUPPORT": "0",
        "GRPC_VERBOSITY": "ERROR",
        "BRAWL_SERVER": server,
        "BRAWL_TOKEN": command.token,
    }
    for key, value in env.items():
        args += ["--setenv", key, value]
    args += [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]
    if command.kind == "python":
        args += [python_executable(), "-c", tagged_runner(), command.entry, str(command.max_matches)]
        args += [",".join(command.games)]
    elif command.kind == "check":
        args += [python_executable(), "-c", CHECK_RUNNER, command.entry]
    elif command.kind == "exec":
        args += [f"{BOT_DIR}/{command.entry}", "--server", server, *command.extra_args]
    else:
        raise ValueError(f"unknown bot kind {command.kind!r} (python, check or exec)")
    return args, {"PATH": "/usr/bin:/bin"}


ATTACH_SCRIPT = 'for f in $BRAWL_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done; exec "$@"'
"""Moves the shell into the run's cgroups, then becomes the rest of the command line."""


def launcher(limits: Limits, cgroups: Cgroups | None = None) -> tuple[list[str], dict[str, str]]:
    """The programs that set the limits before bubblewrap starts (they are inherited), and their environment.

    No Python runs between fork and exec (no ``preexec_fn``): the host is multi-threaded (gRPC), and
    Python code in a forked child of a threaded process can crash or deadlock. So the cgroup attach
    is a shell, the rlimits are ``prlimit`` and the priority ``nice``; the new session comes from
    ``start_new_session``. The chain starts with ``setpriv --pdeathsig KILL``, so a host that dies
    (even by SIGKILL) takes every stage with it; bubblewrap's ``--die-with-parent`` then carries
    that into the sandbox, whose PID namespace dies with its first process.
    """
    env: dict[str, str] = {}
    # SIGKILL when the host dies, from the first exec on: bubblewrap's own --die-with-parent only
    # starts once bubblewrap runs, and this closes the gap before it (the setting survives exec).
    prefix: list[str] = ["setpriv", "--pdeathsig", "KILL", "--"]
    if cgroups is not None:
        env["BRAWL_CGROUP_PROCS"] = " ".join(str(p / "cgroup.procs") for p in cgroups.paths.values())
        prefix += ["/bin/sh", "-c", ATTACH_SCRIPT, "sh"]
    prefix += [
        "prlimit",
        f"--as={limits.memory_bytes}",
        f"--nproc={limits.processes}",
        # SIGXCPU at the soft limit (named in the verdict), SIGKILL a few seconds later.
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
        "nice",
        "-n",
        str(limits.nice),
    ]
    return prefix, env


FORBIDDEN_SYSCALL = "forbidden system call (killed by the syscall filter)"
"""The verdict of a bot the seccomp filter killed (:mod:`workers.hosting.seccomp`)."""


def verdict(returncode: int | None, log: str, *, stopped: bool) -> str:
    """Names how a sandboxed run ended, from its exit status and the end of its log.

    Args:
        returncode: the process's status (negative: killed by that signal); ``None`` if running.
        log: its stdout and stderr.
        stopped: whether the host stopped it (idle, shut down, or over time).
    """
    end = log[-8000:]
    # What the limits did comes first: a bot that hit its memory limit and was then stopped by the
    # host (its SDK caught the MemoryError and played on) is named by the limit, not by the stop.
    if returncode == -signal.SIGXCPU or (returncode == -signal.SIGKILL and "CPU" in end):
        return "CPU limit reached (killed)"
    if returncode in (-signal.SIGSYS, 128 + signal.SIGSYS):
        # bubblewrap exits with 128 + N when the bot died of signal N; SIGSYS is the filter's kill.
        return FORBIDDEN_SYSCALL
    if "MemoryError" in log or "std::bad_alloc" in end or "Cannot allocate memory" in end:
        return "out of memory (memory limit reached)"
    if ("BlockingIOError" in log and "Errno 11" in log) or "pthread_create failed" in end:
        return "process limit reached (too many processes or threads)"
    if "File too large" in end or returncode == -signal.SIGXFSZ:
        return "file size limit reached"
    if returncode is None:
        return "running"
    if stopped:
        return "stopped by the host"
    if returncode == -signal.SIGKILL:
        return "killed (SIGKILL; out of memory or the host's stop)"
    if returncode == 0:
        return "exited normally"
    if returncode < 0:
        return f"crashed (signal {signal.Signals(-returncode).name})"
    last = [line for line in end.strip().splitlines() if line.strip()]
    reason = last[-1][:200] if last else ""
    return f"crashed (exit status {returncode}{': ' + reason if reason else ''})"


CGROUP_ROOT = Path("/sys/fs/cgroup")
_RUNS = itertools.count(1)
CGROUP_GROUP = "brawl-hosted"
_GROUP_RE = re.compile(r"^host-(?P<pid>\d+)-(?P<start>\d+)-slot-\d+-\d+$|^slot-\d+-(?P<oldpid>\d+)-\d+$")
"""A run's group name: the host's pid and start time (``/proc/PID/stat`` field 22), slot, run."""


def process_start(pid: int) -> int | None:
    """The start time of process ``pid`` in clock ticks since boot, or ``None`` if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    return int(stat.rsplit(")", 1)[1].split()[19])


def group_name(slot: int) -> str:
    """A fresh group name for a run of this host: a group whose removal failed is never reused."""
    pid = os.getpid()
    return f"host-{pid}-{process_start(pid) or 0}-slot-{slot}-{next(_RUNS)}"


def _owner_alive(name: str) -> bool:
    """Whether the host that made group ``name`` still runs (same pid and start time)."""
    match = _GROUP_RE.match(name)
    if match is None:
        return True  # not ours to judge
    if match["oldpid"] is not None:
        return process_start(int(match["oldpid"])) is not None
    return process_start(int(match["pid"])) == int(match["start"])


@dataclass(frozen=True)
class SweepReport:
    """What :func:`sweep_leftovers` found: groups of dead hosts, removed, and the processes killed."""

    groups: int
    killed: int
    left: int
    """Groups that could not be removed (a process would not die within the wait)."""


def sweep_leftovers(wait: float = 5.0) -> SweepReport:
    """Kills what is left of sandboxes whose host died, and removes their cgroups.

    A host killed by SIGKILL cannot clean up: bubblewrap's ``--die-with-parent`` and the launcher's
    ``--pdeathsig`` end its sandboxes, but a process that escaped them (a race at start, a kernel
    that lost the signal) would run on, and its empty groups would stay. A starting host therefore
    looks at every run group under ``brawl-hosted``: one whose host (pid and start time, in the
    group's name) no longer runs is killed (``cgroup.kill`` on cgroup v2, else SIGKILL to each
    process in ``cgroup.procs`` until none is left) and removed. Groups of hosts still running
    (several hosts may share a machine) are left alone.
    """
    groups: dict[str, list[Path]] = {}
    parents = [CGROUP_ROOT / CGROUP_GROUP] + [CGROUP_ROOT / c / CGROUP_GROUP for c in ("memory", "cpu", "pids")]
    for parent in parents:
        with contextlib.suppress(OSError):
            for child in parent.iterdir():
                if child.is_dir() and _GROUP_RE.match(child.name):
                    groups.setdefault(child.name, []).append(child)
    found = killed = left = 0
    for name, paths in sorted(groups.items()):
        if _owner_alive(name):
            continue
        found += 1
        killed += _kill_group(paths, wait)
        if any(path.exists() for path in paths):
            left += 1
    return SweepReport(found, killed, left)


def _kill_group(paths: list[Path], wait: float) -> int:
    """SIGKILLs every process in the group (all its controllers) until none is left; removes it."""
    killed: set[int] = set()
    deadline = time.monotonic() + wait
    for path in paths:
        with contextlib.suppress(OSError):
            if (path / "cgroup.kill").exists():
                (path / "cgroup.kill").write_text("1")
    while True:
        pids: set[int] = set()
        for path in paths:
            with contextlib.suppress(OSError, ValueError):
                pids |= {int(line) for line in (path / "cgroup.procs").read_text().split()}
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        for path in paths:
            with contextlib.suppress(OSError):
                path.rmdir()
        if not any(path.exists() for path in paths) or time.monotonic() > deadline:
            return len(killed)
        time.sleep(0.02)


class Cgroups:
    """A bot run's cgroups: hard resident-memory, CPU-quota and process-count limits.

    Used where the host may create cgroups (cgroup v1 ``memory``, ``cpu`` and ``pids`` hierarchies,
    or cgroup v2 with those controllers delegated); :meth:`create` returns ``None`` elsewhere and
    the rlimits and ``nice`` remain the only limits (docs/hosted-bots.md says which is which).
    """

    PERIOD_US = 100_000

    def __init__(self, paths: dict[str, Path], v2: bool) -> None:
        self.paths = paths
        self.v2 = v2

    @classmethod
    def create(cls, name: str, limits: Limits) -> Cgroups | None:
        """Makes the run's groups and writes its limits; ``None`` when cgroups are not writable here."""
        quota = max(1000, int(limits.cpu_share * cls.PERIOD_US))
        made: list[Path] = []
        try:
            if (CGROUP_ROOT / "cgroup.controllers").exists():
                parent = CGROUP_ROOT / CGROUP_GROUP
                parent.mkdir(exist_ok=True)
                (CGROUP_ROOT / "cgroup.subtree_control").write_text("+memory +cpu +pids")
                (parent / "cgroup.subtree_control").write_text("+memory +cpu +pids")
                group = parent / name
                group.mkdir(exist_ok=True)
                made.append(group)
                (group / "memory.max").write_text(str(limits.resident_bytes))
                (group / "memory.swap.max").write_text("0")
                (group / "cpu.max").write_text(f"{quota} {cls.PERIOD_US}")
                (group / "pids.max").write_text(str(limits.processes))
                return cls({"unified": group}, v2=True)
            paths = {c: CGROUP_ROOT / c / CGROUP_GROUP / name for c in ("memory", "cpu", "pids")}
            for path in paths.values():
                path.mkdir(parents=True, exist_ok=True)
                made.append(path)
            (paths["memory"] / "memory.limit_in_bytes").write_text(str(limits.resident_bytes))
            (paths["cpu"] / "cpu.cfs_period_us").write_text(str(cls.PERIOD_US))
            (paths["cpu"] / "cpu.cfs_quota_us").write_text(str(quota))
            (paths["pids"] / "pids.max").write_text(str(limits.processes))
            return cls(paths, v2=False)
        except OSError:
            for path in made:
                with contextlib.suppress(OSError):
                    path.rmdir()
            return None

    def attach(self, pid: int) -> None:
        """Moves ``pid`` into every group (called in the child before it execs bubblewrap)."""
        for path in self.paths.values():
            (path / "cgroup.procs").write_text(str(pid))

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer acted in this run's memory group."""
        try:
            if self.v2:
                events = (self.paths["unified"] / "memory.events").read_text()
                return any(line.split()[0] == "oom_kill" and int(line.split()[1]) > 0 for line in events.splitlines())
            control = (self.paths["memory"] / "memory.oom_control").read_text()
            return any(line.startswith("oom_kill ") and int(line.split()[1]) > 0 for line in control.splitlines())
        except (OSError, ValueError, IndexError):
            return False

    def kill_all(self, wait: float = 5.0) -> int:
        """SIGKILLs every process still in the run's groups until none is left; returns how many.

        The sandbox's processes die with bubblewrap, except in a short window at its start (before
        its child has set its parent-death signal): a stop that lands there would leave the bot
        running. The groups hold every process of the run, whatever its session or namespace.
        """
        killed: set[int] = set()
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            pids: set[int] = set()
            for path in self.paths.values():
                with contextlib.suppress(OSError, ValueError):
                    pids |= {int(line) for line in (path / "cgroup.procs").read_text().split()}
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
            time.sleep(0.01)
        return len(killed)

    def remove(self, wait: float = 5.0) -> bool:
        """Removes the groups; returns whether all are gone.

        When bubblewrap (the namespace's first process) ends, the kernel kills what remains of the
        sandbox, but those processes leave the group a moment later: removal retries until
        ``wait`` seconds have passed.
        """
        deadline = time.monotonic() + wait
        for path in self.paths.values():
            while path.exists():
                try:
                    path.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.02)
        return not any(p.exists() for p in self.paths.values())


@dataclass
class SandboxRun:
    """A bot process started in the sandbox; read :attr:`log` and :meth:`verdict` after it ends."""

    process: asyncio.subprocess.Process
    log: BoundedLog
    matches: Splitter = field(default_factory=Splitter)
    """The output split by match (tags removed before :attr:`log` gets it)."""
    stopped: bool = False
    cgroups: Cgroups | None = None
    oom: bool = False
    """Whether the cgroup OOM killer acted (read when the run ended, before its groups are removed)."""
    _reader: asyncio.Task[None] | None = None

    @property
    def returncode(self) -> int | None:
        """The process's status once it ended (negative: the signal that killed it)."""
        return self.process.returncode

    async def refresh(self, *, force: bool = False) -> None:
        """Nothing to read: the process's status is current (a pod's run reads its state here)."""

    async def wait(self, timeout: float | None = None) -> int:
        """Waits for the process (and its output) to end; returns its status."""
        await asyncio.wait_for(self.process.wait(), timeout)
        if self._reader is not None:
            await self._reader
        self._release()
        assert self.process.returncode is not None
        return self.process.returncode

    async def stop(self, grace: float = 2.0) -> None:
        """Stops the whole sandbox: SIGTERM to its process group, SIGKILL after ``grace`` seconds."""
        if self.process.returncode is not None:
            if self._reader is not None:
                await self._reader
            self._release()
            return
        self.stopped = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            await self.process.wait()
        if self.cgroups is not None:
            # Whatever bubblewrap's end did not take with it (the bot's output pipe stays open while
            # any of them lives, so the log reader would wait for it).
            self.oom = self.oom or self.cgroups.oom_killed()
            await asyncio.to_thread(self.cgroups.kill_all)
        if self._reader is not None:
            await self._reader
        self._release()

    def verdict(self) -> str:
        """How the run ended (see :func:`verdict`)."""
        if self.oom:
            return "out of memory (memory limit reached)"
        return verdict(self.process.returncode, self.log.text(), stopped=self.stopped)

    def _release(self) -> None:
        """Reads the OOM state and removes the run's cgroups once it has ended."""
        if self.cgroups is not None and self.process.returncode is not None:
            self.oom = self.oom or self.cgroups.oom_killed()
            self.cgroups.remove()
            self.cgroups = None


def _filter_fd() -> int | None:
    """A memory file holding the seccomp filter, read by bubblewrap; ``None`` where none is defined."""
    from workers.hosting import seccomp

    try:
        program = seccomp.program()
    except seccomp.FilterUnavailable:
        return None
    fd = os.memfd_create("brawl-seccomp")
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


async def start(
    bot_dir: Path,
    socket_dir: Path,
    command: BotCommand,
    *,
    slot: int,
    limits: Limits | None = None,
    log_limit: int = LOG_LIMIT,
    use_cgroups: bool = True,
    syscall_filter: bool = True,
) -> SandboxRun:
    """Starts ``command`` in a sandbox; stdout and stderr go to one bounded log.

    With ``use_cgroups`` the run also gets cgroup limits where the host may create cgroups
    (:class:`Cgroups`); ``run.cgroups`` is ``None`` where it may not. With ``syscall_filter`` the
    bot runs under the seccomp filter of :mod:`workers.hosting.seccomp` (where the architecture has
    one: x86-64 and AArch64).
    """
    check_available()
    limits = limits or Limits()
    seccomp_fd = _filter_fd() if syscall_filter else None
    argv, env = build_command(bot_dir, socket_dir, command, slot=slot, limits=limits, seccomp_fd=seccomp_fd)
    # A fresh group per run, named after the host: a starting host sweeps the groups of dead ones.
    cgroups = Cgroups.create(group_name(slot), limits) if use_cgroups else None
    prefix, launch_env = launcher(limits, cgroups)
    try:
        process = await asyncio.create_subprocess_exec(
            *prefix,
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={**env, **launch_env},
            start_new_session=True,
            pass_fds=() if seccomp_fd is None else (seccomp_fd,),
        )
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
    run = SandboxRun(process, BoundedLog(log_limit), cgroups=cgroups)

    async def read() -> None:
        assert process.stdout is not None
        while data := await process.stdout.read(8192):
            run.log.add(run.matches.feed(data))
        run.log.add(run.matches.flush())

    run._reader = asyncio.create_task(read())
    return run
