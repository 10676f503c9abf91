"""The shepherd: runs one adapter process as its child and lets no descendant of it outlive the call.

The runner starts it as a program of its own (`PYTHON [FLAGS] -c "import shepherd; ..." GRACE TERM_GRACE REPORT_FD
MODE -- ARGV...`, see process.SHEPHERD_PROGRAM), never imports it into the host process, and it uses the standard
library only. The runner has made it a
child subreaper (PR_SET_CHILD_SUBREAPER, set before exec, which keeps it), so every process the adapter
starts, even a daemon that forked twice and called setsid, is re-parented to it rather than to init when its
parent dies. When the adapter exits, the
processes it left get GRACE seconds to finish (then SIGKILL); on SIGTERM/SIGINT/SIGHUP (the runner's stop, or
the death of the runner) every descendant gets SIGTERM, then SIGKILL after TERM_GRACE. It exits only when no
descendant is left, with the adapter's own exit status. On REPORT_FD it writes `exited` when the adapter
exits (the runner then stops its idle clock: the grace bounds the wait), and last a JSON line
`{"survivors": N}`, N being the processes it had to kill after the adapter had exited.

MODE `exec` execs ARGV in the child. MODE `inline` (a Python adapter, ARGV = SCRIPT ARGS..., the shepherd
started by the adapter's own interpreter with its flags) runs SCRIPT in the forked child, as `python SCRIPT`
would: one interpreter start per call instead of two. MODE `module` (`... module PATHS -- PACKAGE ARGS...`)
runs PACKAGE as `python -m PACKAGE` would, with the folders PATHS (os.pathsep-separated) first on sys.path.

Keeping this in its own process keeps the subreaper flag, and the reaping of unknown children, out of the
application that embeds memdock; each call owns exactly the processes beneath its shepherd.
"""

from __future__ import annotations

import _signal as signal  # the C module: `signal` (and ctypes, json) would double this process's start-up time
import os
import sys
import time

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def descendants(root: int) -> list[int]:
    """Every live process beneath ROOT, from the ppid field of /proc/<pid>/stat."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        state, ppid = stat[stat.rindex(b")") + 2 :].split()[:2]
        if state != b"Z":
            children.setdefault(int(ppid), []).append(int(name))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


def _signal_all(sig: int) -> list[int]:
    pids = descendants(os.getpid())
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    return pids


def _start(argv: list[str], inline: bool) -> int:
    """Fork the adapter: exec ARGV, or (INLINE) return 0 in the child, which then runs the script itself."""
    pid = os.fork()
    if pid:
        return pid
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        if inline:
            return 0
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, f"memdock: cannot run {argv[0]}: {exc.strerror}\n".encode())
    os._exit(127)


def _run_inline(argv: list[str]) -> None:
    """Run the script as `python SCRIPT ARGS` would, in a fresh __main__ (runpy would double our start-up time)."""
    script = argv[0]
    sys.argv = list(argv)
    if not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
        sys.path[0] = os.path.dirname(os.path.abspath(script))  # as `python SCRIPT` sets it, not our own dir
    with open(script, "rb") as f:
        code = compile(f.read(), script, "exec")
    main = type(sys)("__main__")
    main.__file__ = script
    main.__dict__["__builtins__"] = sys.modules["builtins"]
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _run_module(paths: list[str], argv: list[str]) -> None:
    """Run package ARGV[0] as `python -m` would, its folders PATHS first on the module search path (the adapter
    folder, and any shared package folder, named in adapter.json's `python_path`): its __main__.py runs as
    __main__ with the package as __package__, so its relative imports work (runpy would cost a start-up)."""
    sys.path[:0] = paths
    package = argv[0]
    script = next(
        (
            os.path.join(p, package, "__main__.py")
            for p in paths
            if os.path.isfile(os.path.join(p, package, "__main__.py"))
        ),
        None,
    )
    if script is None:
        sys.exit(f"memdock: no module named {package}.__main__ in {os.pathsep.join(paths)}")
    sys.argv = [script, *argv[1:]]
    with open(script, "rb") as f:
        code = compile(f.read(), script, "exec")
    main = type(sys)("__main__")
    main.__file__ = script
    main.__package__ = package
    main.__dict__["__builtins__"] = sys.modules["builtins"]
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def shepherd(main: int, grace: float, term_grace: float, report_fd: int) -> tuple[int, int]:
    """Tend MAIN to the end of its whole process tree. Returns (its wait status, processes killed after it
    exited). Writes "exited" to REPORT_FD as soon as MAIN itself has exited."""
    watched = {signal.SIGCHLD, *STOP_SIGNALS}
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # stdin and stdout reach EOF when the adapter and its children are done, not us
        os.dup2(null, fd)
    os.close(null)
    status: int | None = None
    kill_at: float | None = None
    stopping = False
    killed_after_exit: set[int] = set()
    while True:
        try:
            while True:
                pid, st = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                if pid == main:
                    status = st
                    os.write(report_fd, b"exited\n")
                    if kill_at is None:
                        kill_at = time.monotonic() + grace
        except ChildProcessError:
            return (status if status is not None else 0), len(killed_after_exit)
        now = time.monotonic()
        if kill_at is not None and now >= kill_at:
            killed = _signal_all(signal.SIGKILL)
            if status is not None:
                killed_after_exit.update(killed)
            signal.sigtimedwait(watched, 0.1)
            continue
        info = signal.sigwaitinfo(watched) if kill_at is None else signal.sigtimedwait(watched, kill_at - now)
        if info is not None and info.si_signo != signal.SIGCHLD and not stopping:
            stopping = True
            termed = _signal_all(signal.SIGTERM)
            if status is not None:
                killed_after_exit.update(termed)
            kill_at = min(kill_at if kill_at is not None else now + term_grace, now + term_grace)


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def main(args: list[str]) -> None:
    grace, term_grace, report_fd, mode = float(args[0]), float(args[1]), int(args[2]), args[3]
    module_path, rest = (args[4], args[5:]) if mode == "module" else ("", args[4:])
    if mode not in ("exec", "inline", "module") or not rest or rest[0] != "--" or len(rest) < 2:
        sys.exit("usage: shepherd.py GRACE TERM_GRACE REPORT_FD exec|inline|module PATHS -- ARGV...")
    argv = rest[1:]
    os.set_inheritable(report_fd, False)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD, *STOP_SIGNALS})
    child = _start(argv, mode != "exec")
    if child == 0:
        os.close(report_fd)
        sys.modules.pop("shepherd", None)  # imported by name from runner/ (process.SHEPHERD_PROGRAM): not the adapter's
        if mode == "module":
            _run_module(module_path.split(os.pathsep) if module_path else [], argv)
        else:
            _run_inline(argv)
        return  # the interpreter ends as after `python SCRIPT`: atexit, threads, the script's exit status
    status, survivors = shepherd(child, grace, term_grace, report_fd)
    os.write(report_fd, f'{{"survivors": {survivors}}}\n'.encode())
    os.close(report_fd)
    _exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
