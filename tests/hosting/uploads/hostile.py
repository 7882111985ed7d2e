"""Hostile hosted bots: each tries one escape on its first decision, prints what happened, then plays.

Every attempt prints ``ESCAPED <what>`` if it worked and ``CONTAINED <what>: <error>`` if the sandbox
stopped it; the tests read the bot's log.
"""

import os
import socket


def report(what, attempt):
    try:
        result = attempt()
    except Exception as exc:
        print(f"CONTAINED {what}: {type(exc).__name__}: {exc}", flush=True)
        return
    if result is False:
        print(f"CONTAINED {what}: not visible", flush=True)
    else:
        print(f"ESCAPED {what}: {result!r}"[:300], flush=True)


def targets():
    """What the test asks to try, one per line in /bot/targets.txt (the environment is cleared)."""
    try:
        return [line.strip() for line in open("/bot/targets.txt") if line.strip()]
    except OSError:
        return []


class _Base:
    done = False

    def attempt(self):
        raise NotImplementedError

    def choose(self, decision, observation, options):
        if not self.done:
            self.done = True
            self.attempt()
        return options[0].id


class NetworkBot(_Base):
    """Opens TCP connections to the host's services and to an outside address."""

    def attempt(self):
        for target in targets() or ["127.0.0.1:6379"]:
            host, port = target.rsplit(":", 1)
            report(
                f"network {target}",
                lambda h=host, p=int(port): socket.create_connection((h, p), timeout=2).getpeername(),
            )


class WriterBot(_Base):
    """Writes outside its folder: its own folder, the project, /etc, /usr."""

    def attempt(self):
        for path in ("/bot/planted.txt", *targets(), "/work/planted.txt", "/usr/planted.txt", "/etc/planted.txt"):
            report(f"write {path}", lambda p=path: open(p, "w").write("x"))  # noqa: SIM115


class ForkBot(_Base):
    """Forks without limit."""

    def attempt(self):
        children = []

        def bomb():
            while True:
                pid = os.fork()
                if pid == 0:
                    import time

                    time.sleep(30)
                    os._exit(0)
                children.append(pid)

        report("fork bomb", bomb)
        for pid in children:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        print(f"forked {len(children)} children before the limit", flush=True)


class MemoryBot(_Base):
    """Allocates past its memory limit."""

    def attempt(self):
        hog = []
        while True:
            hog.append(bytearray(64 * 1024 * 1024))


class SilentBot:
    """Never answers."""

    def choose(self, decision, observation, options):
        import time

        while True:
            time.sleep(1)


class SnoopBot(_Base):
    """Reads another bot's files, the service's database file and the service's environment."""

    def attempt(self):
        for path in targets():
            report(f"read {path}", lambda p=path: open(p).read()[:100] if os.path.exists(p) else False)  # noqa: SIM115
        print("ENVIRONMENT " + " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())), flush=True)
        report("read /proc/1/environ", lambda: open("/proc/1/environ").read() or False)  # noqa: SIM115


class SyscallBot(_Base):
    """Calls what the system-call filter forbids: ptrace (attach to itself as a tracee) first."""

    def attempt(self):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        names = targets() or ["ptrace"]
        import platform

        numbers = {
            "x86_64": {"ptrace": 101, "unshare": 272, "keyctl": 250, "bpf": 321, "perf_event_open": 298, "setns": 308},
            "aarch64": {"ptrace": 117, "unshare": 97, "keyctl": 219, "bpf": 280, "perf_event_open": 241, "setns": 268},
        }[platform.machine()]
        for name in names:
            print(f"TRYING {name}", flush=True)
            if name == "ptrace":
                result = libc.syscall(numbers[name], 0, 0, 0, 0)  # PTRACE_TRACEME
            elif name == "unshare":
                result = libc.syscall(numbers[name], 0x10000000)  # CLONE_NEWUSER
            else:
                result = libc.syscall(numbers[name], 0, 0, 0, 0, 0)
            print(f"ESCAPED {name}: returned {result} errno {ctypes.get_errno()}", flush=True)
