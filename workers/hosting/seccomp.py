"""The system-call filter of hosted bots: a classic BPF program for seccomp, built in pure Python.

bubblewrap installs it (``--seccomp FD``) just before it runs the bot's command, so it binds the
bot and everything the bot starts, and cannot be removed (seccomp filters are inherited and only
ever added to). The program is small and fixed, so it is written here instruction by instruction
rather than with libseccomp: Debian's ``python3-seccomp`` binds to the system Python only, and a
pure-Python builder has no dependency and can be read in full.

What it does, for the architectures it knows (x86-64 and AArch64):

- a call from another ABI (another audit architecture; on x86-64 also the x32 numbers) kills the
  process, so a 32-bit or x32 entry cannot bypass the table;
- the calls in :data:`KILL` kill the whole process (``SECCOMP_RET_KILL_PROCESS``): debugging other
  processes, namespaces, mounts, kernel keyrings, eBPF, perf events, modules, kexec, reading or
  writing another process's memory, and the like. No bot needs them; they are the kernel's attack
  surface. The verdict names the kill (``sandbox.verdict``);
- ``clone`` with any namespace flag kills the process too (a plain ``clone`` for threads and
  ``fork`` passes);
- the calls in :data:`NOT_AVAILABLE` fail with ``ENOSYS``, as on an older kernel: ``clone3``,
  whose flags sit in memory a filter cannot read (the C library then falls back to ``clone``),
  and ``io_uring`` (Node's libuv falls back to its thread pool);
- everything else is allowed: namespaces, the uid, the rlimits and cgroups confine it.
"""

from __future__ import annotations

import platform
import struct

# Classic BPF opcodes (linux/filter.h, linux/bpf_common.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
ENOSYS = 38

# Offsets in struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # both architectures here are little-endian

CLONE_NAMESPACES = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
)
"""``clone`` flags that make a new namespace."""

KILL = (
    "ptrace", "process_vm_readv", "process_vm_writev",
    "unshare", "setns",
    "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "name_to_handle_at", "open_by_handle_at",
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd", "fanotify_init", "lookup_dcookie",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "syslog", "vhangup",
    "settimeofday", "clock_settime", "clock_adjtime",
    "iopl", "ioperm",
)  # fmt: skip
"""Calls that kill the bot: no bot needs them, and each is kernel attack surface."""

NOT_AVAILABLE = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
"""Calls that fail with ``ENOSYS``, so that callers fall back to what the filter can check."""

SYSCALLS: dict[str, dict[str, int]] = {
    "x86_64": {
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "unshare": 272, "setns": 308,
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "name_to_handle_at": 303, "open_by_handle_at": 304, "keyctl": 250, "add_key": 248, "request_key": 249,
        "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "fanotify_init": 300, "lookup_dcookie": 212,
        "init_module": 175, "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
        "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163, "quotactl": 179, "syslog": 103,
        "vhangup": 153, "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "iopl": 172,
        "ioperm": 173, "clone3": 435, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "clone": 56,
    },
    "aarch64": {
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "unshare": 97, "setns": 268,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "name_to_handle_at": 264, "open_by_handle_at": 265, "keyctl": 219, "add_key": 217, "request_key": 218,
        "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "fanotify_init": 262, "lookup_dcookie": 18,
        "init_module": 105, "finit_module": 273, "delete_module": 106, "kexec_load": 104, "kexec_file_load": 294,
        "reboot": 142, "swapon": 224, "swapoff": 225, "acct": 89, "quotactl": 60, "syslog": 116,
        "vhangup": 58, "settimeofday": 170, "clock_settime": 112, "clock_adjtime": 266,
        "clone3": 435, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "clone": 220,
    },
}  # fmt: skip
"""System call numbers (``asm/unistd_64.h``, ``asm-generic/unistd.h``); AArch64 has no iopl/ioperm."""

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000


class FilterUnavailable(RuntimeError):
    """No filter is defined for this machine's architecture."""


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program(arch: str | None = None) -> bytes:
    """The filter for ``arch`` (this machine's by default) as ``struct sock_filter`` records.

    Raises:
        FilterUnavailable: the architecture has no table here.
    """
    arch = arch or platform.machine()
    if arch not in SYSCALLS:
        raise FilterUnavailable(f"no system-call filter for {arch} (x86_64 and aarch64 have one)")
    numbers = SYSCALLS[arch]
    kill = _insn(_RET_K, 0, 0, RET_KILL_PROCESS)
    code = [
        _insn(_LD_W_ABS, 0, 0, _ARCH),
        _insn(_JEQ_K, 1, 0, AUDIT_ARCH[arch]),
        kill,
        _insn(_LD_W_ABS, 0, 0, _NR),
    ]
    if arch == "x86_64":
        code += [_insn(_JGE_K, 0, 1, X32_SYSCALL_BIT), kill]
    for name in KILL:
        if name in numbers:
            code += [_insn(_JEQ_K, 0, 1, numbers[name]), kill]
    for name in NOT_AVAILABLE:
        code += [_insn(_JEQ_K, 0, 1, numbers[name]), _insn(_RET_K, 0, 0, RET_ERRNO | ENOSYS)]
    # clone: allowed unless its flags (the first argument) ask for a namespace.
    code += [
        _insn(_JEQ_K, 0, 2, numbers["clone"]),
        _insn(_LD_W_ABS, 0, 0, _ARG0_LOW),
        _insn(_JSET_K, 1, 0, CLONE_NAMESPACES),
        _insn(_RET_K, 0, 0, RET_ALLOW),
        kill,
    ]
    return b"".join(code)


def denied(arch: str | None = None) -> list[str]:
    """The calls that kill a bot on ``arch``."""
    numbers = SYSCALLS.get(arch or platform.machine(), {})
    return [name for name in KILL if name in numbers]
