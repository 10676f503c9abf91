"""Remembers written by a process of their own, so a front end's recalls never wait for a write's Python.

A remember costs the front end more than its index call: the notes become a corpus and a chunks bundle, the
store engine reads them back, diffs them against the ledger and journals them. That is pure Python: on the
write lane's thread it holds the GIL the event loop and every recall need (`py-spy record --gil` on a front end
under bench/shared.py: the write lane 138 of 308 samples, the recall path 7). A long-lived front end (`memdock
mcp --http`) therefore hands each batch of notes to a child process that opens the same backend (OPENER) and
runs `ServiceCore.remember_notes` there, with its own write worker. The lane's thread only pickles the notes
and then waits on a pipe, without the GIL.

What stays true: the child takes the store's write lock as the front end would, so writes still go one at a
time and in the lane's order (a forget runs on the lane between two batches, in the front end); the ledger,
journal and store are on disk, so the next recall or listing, here or on another front end, sees the write.
A caller that gives up mid-write only stops waiting: the child finishes the batch, as the lane's thread did.
A child that dies answers its batch degraded and is started again for the next one.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from ..contract import Capabilities, MemoryBackend
from ..errors import BackendError, MemdockError
from .remember import Note
from .results import Remembered

Opener = Callable[[], MemoryBackend]
CLOSE_GRACE = 30.0
CHILD = "from memdock.service.write_process import main; main()"


class WriteProcess:
    """A child process remembering notes into the backend OPENER opens (it must pickle: e.g. a functools.partial
    of memdock.connect.open_backend). CAPABILITIES are the front end's, so the child asks its adapter for nothing
    but writes. Calls are one at a time (the service's write lane is one thread)."""

    def __init__(self, opener: Opener, capabilities: Capabilities, deadline: float):
        self._hello = ("open", opener, capabilities, deadline)
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None

    def remember_notes(self, notes: list[Note]) -> list[Remembered]:
        """NOTES' results in order, as ServiceCore.remember_notes returns them in the child; a memdock error
        there is raised here; a child that exits mid-call answers every note degraded."""
        with self._lock:
            try:
                kind, value = self._ask(("remember", notes))
            except (EOFError, OSError, pickle.UnpicklingError) as exc:
                why = f"the write process exited during the write ({self._reap()}: {type(exc).__name__})"
                return [Remembered(n.entry_id or "", n.thread_id, degraded=True, reason=why) for n in notes]
        if kind == "error":
            raise MemdockError.from_envelope(value)
        result: list[Remembered] = value
        return result

    def _ask(self, message: tuple[Any, ...]) -> tuple[str, Any]:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            proc = self._proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        pickle.dump(message, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        proc.stdin.flush()
        answer: tuple[str, Any] = pickle.load(proc.stdout)
        return answer

    def start(self) -> None:
        """Start the child now and wait until it has opened the backend (else the first batch starts it)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                try:
                    self._proc = self._start()
                except (EOFError, OSError, pickle.UnpicklingError):
                    self._reap()  # the first batch tries again and says why

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._proc = proc
        assert proc.stdin is not None and proc.stdout is not None
        pickle.dump(self._hello, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        proc.stdin.flush()
        pickle.load(proc.stdout)  # ("ready", None): the backend is open (or refused: every batch hears why)
        return proc

    def _reap(self) -> str:
        proc, self._proc = self._proc, None
        if proc is None:
            return "never started"
        _stop(proc, grace=1.0)
        return f"exit code {proc.returncode}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def close(self) -> None:
        """Let the child finish its write and close its backend (end of input), then stop it."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _stop(proc, grace=CLOSE_GRACE)


def _stop(proc: subprocess.Popen[bytes], grace: float) -> None:
    for stream in (proc.stdin, proc.stdout):
        try:
            stream.close()  # type: ignore[union-attr]
        except OSError:
            pass
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """The child: open the backend the first message names, then answer each batch until end of input."""
    from .core import ServiceCore

    _, opener, capabilities, deadline = pickle.load(requests)
    core: ServiceCore | None = None
    try:
        core = ServiceCore(_opened(opener, capabilities), deadline=deadline, capabilities=capabilities)
        refused = None
    except MemdockError as exc:  # e.g. the store went away: every batch is told, the child stays
        refused = exc.to_envelope()
    pickle.dump(("ready", None), answers)
    answers.flush()
    try:
        while True:
            try:
                _, notes = pickle.load(requests)
            except EOFError:
                return
            answer = ("error", refused) if core is None else _remember(core, notes)
            pickle.dump(answer, answers, protocol=pickle.HIGHEST_PROTOCOL)
            answers.flush()
    finally:
        if core is not None:
            core.close()


def _opened(opener: Opener, capabilities: Capabilities) -> MemoryBackend:
    """OPENER's backend, told the front end's CAPABILITIES and with its write worker started, where it offers
    both (a SubprocessBackend does): the child then runs one adapter process, its write worker, from the start."""
    backend = opener()
    assume = getattr(backend, "assume_capabilities", None)
    if assume is not None:
        assume(capabilities)
    start = getattr(backend, "start_workers", None)
    if start is not None:
        start(writer=True)
    return backend


def _remember(core: Any, notes: list[Note]) -> tuple[str, Any]:
    try:
        return "ok", core.remember_notes(notes)
    except MemdockError as exc:
        return "error", exc.to_envelope()
    except Exception as exc:  # the caller sees it as a backend error, never a hang
        return "error", BackendError(f"write process: {type(exc).__name__}: {exc}").to_envelope()


def main() -> None:
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print in the child must not break the answers' framing
    serve(sys.stdin.buffer, answers)
