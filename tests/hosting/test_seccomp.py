"""The system-call filter of hosted bots (workers/hosting/seccomp.py).

The BPF program is checked twice: by a small classic-BPF interpreter here, call by call, and by the
kernel, in the real sandbox: each forbidden call kills the bot with SIGSYS (bubblewrap exits with
128 + 31), the same call without the filter succeeds, threads and fork still work, and a hostile
upload that calls ptrace mid-match gets the verdict "forbidden system call", on the ladder and in
its validation.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import shutil
import struct
import tempfile
from pathlib import Path

import pytest

from referee.server.match import MatchState
from tests.hosting.test_sandbox import GAME, SMALL, hosted, play
from tests.referee.bots import FirstBot
from tests.referee.harness import referee_env
from workers.hosting import sandbox, seccomp
from workers.hosting.validation import validate

UPLOADS = Path(__file__).parent / "uploads"
needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0, reason="needs bubblewrap and root"
)
ARCH = platform.machine()


def run_bpf(program: bytes, nr: int, arch: int, arg0: int = 0) -> int:
    """Runs the classic BPF ``program`` on a ``struct seccomp_data``; returns the action."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    insns = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif code in (0x15, 0x35, 0x45):  # jeq, jge, jset
            taken = acc == k if code == 0x15 else acc >= k if code == 0x35 else bool(acc & k)
            pc += 1 + (jt if taken else jf)
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")


@pytest.mark.parametrize("arch", sorted(seccomp.SYSCALLS))
def test_the_program_decides_each_call_as_documented(arch: str) -> None:
    program = seccomp.program(arch)
    audit = seccomp.AUDIT_ARCH[arch]
    numbers = seccomp.SYSCALLS[arch]
    assert len(program) % 8 == 0 and len(program) // 8 < 4096
    for name in seccomp.denied(arch):
        assert run_bpf(program, numbers[name], audit) == seccomp.RET_KILL_PROCESS, name
    for name in seccomp.NOT_AVAILABLE:
        assert run_bpf(program, numbers[name], audit) == seccomp.RET_ERRNO | seccomp.ENOSYS, name
    clone = numbers["clone"]
    threads = 0x3D0F00  # what glibc's pthread_create passes
    assert run_bpf(program, clone, audit, threads) == seccomp.RET_ALLOW
    assert run_bpf(program, clone, audit, 0x01200011) == seccomp.RET_ALLOW  # fork()
    for flag in (0x10000000, 0x20000000, 0x40000000, 0x00020000):
        assert run_bpf(program, clone, audit, threads | flag) == seccomp.RET_KILL_PROCESS
    for allowed in range(0, 20):  # read, write, open, close, ... (0-19 on both architectures)
        if allowed not in numbers.values():
            assert run_bpf(program, allowed, audit) == seccomp.RET_ALLOW
    other = next(a for name, a in seccomp.AUDIT_ARCH.items() if name != arch)
    assert run_bpf(program, 0, other) == seccomp.RET_KILL_PROCESS  # another ABI
    if arch == "x86_64":
        assert run_bpf(program, seccomp.X32_SYSCALL_BIT | 0, audit) == seccomp.RET_KILL_PROCESS


def test_the_numbers_match_this_machines_kernel_headers() -> None:
    header = {
        "x86_64": "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
        "aarch64": "/usr/include/asm-generic/unistd.h",
    }[ARCH]
    text = Path(header).read_text()
    for name, number in seccomp.SYSCALLS[ARCH].items():
        found = re.search(rf"#define __NR_{name}\s+(\d+)", text)
        assert found is not None and int(found[1]) == number, name
    with pytest.raises(seccomp.FilterUnavailable):
        seccomp.program("sparc64")


PROBE = """#!/usr/bin/python3
import ctypes, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
name = sys.argv[-1]
if name == "threads-and-fork":
    t = threading.Thread(target=print, args=("thread ok",)); t.start(); t.join()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    print("fork ok", flush=True)
    sys.exit(0)
nr = int(name)
print("calling", nr, flush=True)
args = {NEWUSER_CALLS: (0x10000000,)}.get(nr, (0, 0, 0, 0, 0))
result = libc.syscall(nr, *args)
print("returned", result, "errno", ctypes.get_errno(), flush=True)
"""


async def probe(argument: str, *, syscall_filter: bool = True) -> tuple[int, str]:
    root = Path(tempfile.mkdtemp(prefix="brawl-seccomp-"))
    bot, run_dir = root / "bot", root / "run"
    bot.mkdir()
    run_dir.mkdir()
    unshare = seccomp.SYSCALLS[ARCH]["unshare"]
    (bot / "probe.py").write_text(PROBE.replace("NEWUSER_CALLS", str(unshare)))
    (bot / "probe.py").chmod(0o755)
    for path in (root, bot, run_dir):
        path.chmod(0o755)
    command = sandbox.BotCommand("exec", "probe.py", token="t", extra_args=(argument,))
    run = await sandbox.start(bot, run_dir, command, slot=13, limits=SMALL, syscall_filter=syscall_filter)
    try:
        code = await run.wait(60)
    finally:
        await run.stop()
        shutil.rmtree(root, ignore_errors=True)
    return code, run.verdict()


@needs_sandbox
def test_each_forbidden_call_kills_the_bot_in_the_real_sandbox() -> None:
    numbers = seccomp.SYSCALLS[ARCH]

    async def scenario() -> None:
        for name in ("ptrace", "unshare", "setns", "keyctl", "add_key", "bpf", "perf_event_open", "mount",
                     "process_vm_readv", "kexec_load", "userfaultfd", "init_module"):  # fmt: skip
            code, verdict = await probe(str(numbers[name]))
            assert (code, verdict) == (128 + 31, sandbox.FORBIDDEN_SYSCALL), name
        # Without the filter, ptrace(PTRACE_TRACEME) succeeds: the filter is what stopped it.
        code, verdict = await probe(str(numbers["ptrace"]), syscall_filter=False)
        assert (code, verdict) == (0, "exited normally")
        # clone3 answers ENOSYS (the C library falls back to clone), and ordinary work goes on.
        code, _ = await probe(str(numbers["clone3"]))
        assert code == 0
        code, verdict = await probe("threads-and-fork")
        assert (code, verdict) == (0, "exited normally")

    asyncio.run(scenario())


@needs_sandbox
def test_a_hostile_upload_calling_ptrace_mid_match_gets_a_clear_verdict() -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME])
            async with hosted(env, "hostile:SyscallBot", "tracer", slot=14, targets=["ptrace"]) as run:
                runner = await play(env, "tracer")
                await run.wait(30)
            assert runner.state is MatchState.SUCCEEDED  # the connected bot's match still ends
        assert run.verdict() == sandbox.FORBIDDEN_SYSCALL, run.log.text()[-2000:]
        assert "TRYING ptrace" in run.log.text() and "ESCAPED" not in run.log.text()

    asyncio.run(scenario())


@needs_sandbox
def test_validation_rejects_it_naming_the_forbidden_call() -> None:
    result = asyncio.run(validate(UPLOADS, sandbox.BotCommand("python", "hostile:SyscallBot"), GAME, slot=15))
    assert not result.passed
    assert result.summary == f"the bot's run ended: {sandbox.FORBIDDEN_SYSCALL}", result.summary
