"""Linux Landlock through ctypes: limit a child's writes to the directories it was given.

Reading and executing stay allowed everywhere; creating, writing, renaming
and removing files is allowed only beneath the listed directories. Applied in
the child between fork and exec, so it binds the adapter and all it starts.
"""

from __future__ import annotations

import ctypes
import os
import platform
from functools import cache
from typing import Sequence

_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

WRITE_FILE, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (1 << i for i in range(6, 13))
REFER, TRUNCATE = 1 << 13, 1 << 14
_FILE_ONLY = WRITE_FILE | TRUNCATE

# Devices and shared memory a normal program writes to; nothing persistent.
ALWAYS_WRITABLE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/shm")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


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
    mask = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
    if abi >= 2:
        mask |= REFER
    if abi >= 3:
        mask |= TRUNCATE
    return mask


def restrict_writes(writable: Sequence[str]) -> None:
    """Restrict this process (call it in the child) to writing beneath WRITABLE. Raises OSError on failure."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available")
    libc = _libc()
    handled = handled_writes(abi)
    attr = _RulesetAttr(handled)
    fd = libc.syscall(_SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path in list(writable) + list(ALWAYS_WRITABLE):
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                access = handled if os.path.isdir(path) else handled & _FILE_ONLY
                rule = _PathBeneathAttr(access, pfd)
                if libc.syscall(_SYS_ADD_RULE, ctypes.c_int(fd), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(pfd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS) failed")
        if libc.syscall(_SYS_RESTRICT, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)


def status() -> str:
    abi = abi_version()
    if abi:
        return f"enforced (Landlock ABI {abi}): adapters may write only to their data dir, work dir and private temp dir"
    return "not enforced: this kernel offers no Landlock; adapters' writes are not limited (the conformance kit still checks them)"
