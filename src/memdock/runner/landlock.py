"""Linux Landlock through ctypes: limit a child's writes (and, in strict mode, its reads) to what it was given.

By default reading and executing stay allowed everywhere; creating, writing,
renaming and removing files is allowed only beneath the listed directories.
Strict mode also handles Landlock's read rights (execute, read a file, list a
directory): then only the writable directories and a read allowlist can be
read. Applied in the child between fork and exec, so it binds the adapter and
all it starts.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
from collections.abc import Sequence
from functools import cache

_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR, REMOVE_DIR, REMOVE_FILE = (1 << i for i in range(6))
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (1 << i for i in range(6, 13))
REFER, TRUNCATE = 1 << 13, 1 << 14
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE
READS = EXECUTE | READ_FILE | READ_DIR

# Devices a normal program writes to; nothing persistent.
ALWAYS_WRITABLE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
# POSIX shared memory and semaphores (multiprocessing locks, torch workers). Writable under the default
# sandbox; under strict only for an adapter that declares sandbox.shared_memory, as it is shared with every
# other program of the user's (readable, and a channel that outlives the call).
SHARED_MEMORY = "/dev/shm"
# What strict mode lets every program read besides its allowlist: randomness.
ALWAYS_READABLE = ("/dev/urandom", "/dev/random")


# ABI 6 scoping: a sandboxed process may not signal, nor connect to an abstract unix socket of, a process
# outside its Landlock domain (memdock itself, the MCP server, the user's other programs).
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
SCOPES = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
_SCOPE_ABI = 6


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _ScopedRulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


@cache
def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is absent or disabled."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64", "arm64", "riscv64"):
        return 0
    try:
        v = _libc().syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(0, int(v))


def handled_writes(abi: int) -> int:
    mask = (
        WRITE_FILE
        | REMOVE_DIR
        | REMOVE_FILE
        | MAKE_CHAR
        | MAKE_DIR
        | MAKE_REG
        | MAKE_SOCK
        | MAKE_FIFO
        | MAKE_BLOCK
        | MAKE_SYM
    )
    if abi >= 2:
        mask |= REFER
    if abi >= 3:
        mask |= TRUNCATE
    return mask


def restrict(writable: Sequence[str], readable: Sequence[str] | None = None) -> None:
    """Restrict this process (call it in the child) to writing beneath WRITABLE and, when READABLE is given,
    to reading and executing only beneath READABLE and WRITABLE. Raises OSError on failure."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available")
    libc = _libc()
    handled = handled_writes(abi) | (READS if readable is not None else 0)
    attr = _ScopedRulesetAttr(handled, 0, SCOPES) if scopes_signals(abi) else _RulesetAttr(handled)
    fd = libc.syscall(_SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    rules = [(p, handled) for p in list(writable) + list(ALWAYS_WRITABLE)]
    if readable is not None:
        rules += [(p, READS) for p in list(readable) + list(ALWAYS_READABLE)]
    try:
        for path, rights in rules:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                access = rights if stat.S_ISDIR(os.fstat(pfd).st_mode) else rights & _FILE_ONLY
                rule = _PathBeneathAttr(access, pfd)
                if (
                    libc.syscall(
                        _SYS_ADD_RULE,
                        ctypes.c_int(fd),
                        ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule),
                        ctypes.c_uint32(0),
                    )
                    != 0
                ):
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(pfd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS) failed")
        if libc.syscall(_SYS_RESTRICT, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)


def scopes_signals(abi: int | None = None) -> bool:
    """Whether the sandbox also keeps adapters from signalling memdock (Landlock ABI 6 scoping)."""
    return (abi_version() if abi is None else abi) >= _SCOPE_ABI


def signal_status() -> str:
    """For `memdock doctor`: can a sandboxed adapter signal (stop, kill) memdock or other processes of the user's?"""
    abi = abi_version()
    if scopes_signals(abi):
        return (
            f"enforced (Landlock ABI {abi} scoping): a sandboxed adapter cannot signal memdock or any process outside "
            "its own call, nor reach their abstract unix sockets"
        )
    return (
        f"not enforced: this kernel's Landlock ABI is {abi} (scoping needs 6), so an adapter can stop or kill "
        "memdock and other processes of the user's; run only adapters you trust"
    )


def status() -> str:
    abi = abi_version()
    if abi:
        return (
            f"enforced (Landlock ABI {abi}): adapters may write only to their data dir, work dir and private temp dir"
        )
    return (
        "not enforced: this kernel offers no Landlock; adapters' writes are not limited (the conformance kit "
        "still checks them)"
    )


def strict_status() -> str:
    abi = abi_version()
    if abi:
        return (
            f"available (Landlock ABI {abi}): with --sandbox strict an adapter reads only its runtime, its folder, "
            "system libraries, its stores and the bundle it indexes"
        )
    return "not available: this kernel offers no Landlock, so --sandbox strict refuses to run adapters"
