"""`memdock add`'s one pass and its adapter at once: the adapter indexes the delta while the pass still makes it.

The index call starts at the delta's first lines (a delta with none starts no adapter), on a thread of its own,
with `params.stream`: its adapter (one that declares `input_stream`, see `sdk/stream.py`) reads from its stdin
the lines the journal segment gets, each as `TYPE JSON`, and `end COUNT` once the segment is sealed. The run's
thread writes the delta and owns the ledger; the call's thread only reads the adapter's events and queues them,
never blocking on the ledger, so the adapter never waits on its stdout while the run waits on its stdin. The
checkpointed ids wait (`engine/held.py`: in memory up to a bound, then spooled to a file) and reach the ledger
once the segment is sealed and its end line sent: the ledger never counts a record the journal does not hold.

What can go wrong, and what is left:
- the run refuses a record (or dies): the adapter's input ends without its end line; it fails and commits
  nothing of the stream (a first sqlite load is never swapped in; a later sqlite run holds the stream in one
  transaction, rolled back), so the store holds what the ledger and journal hold, and the next run sends the
  records again. An adapter that commits as it reads must give the same guarantee (see `sdk/stream.py`).
- the adapter dies: the run's next write finds the pipe closed; the run stops and raises the adapter's error.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from itertools import repeat
from pathlib import Path
from typing import IO, Any

from ..bundle import BundleWriter
from ..errors import BackendError
from ..sdk.stream import END  # the framing's end line: one constant for writer and reader
from .held import HeldIds

_DONE = ("done", None)


class InputStream:
    """The delta's lines to the adapter's stdin (the run's thread), the adapter's events back (the call's)."""

    def __init__(self, start: Callable[[], None] | None = None, spill_dir: Path | None = None) -> None:
        """START (once, at the first lines to write) starts the call that opens the pipe: an empty delta starts
        no adapter. Checkpointed ids past a bound wait in a file in SPILL_DIR."""
        self.start = start
        self.held = HeldIds(spill_dir)
        self.events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self.sent = 0
        self._pipe: IO[bytes] | None = None
        self._ready = threading.Event()
        self._stop: Callable[[], None] | None = None
        self._writing = False
        self._lock = threading.Lock()
        self._closed = False  # the run is done with the input, whether or not the pipe came
        self.pid: int | None = None

    def tee(self, writer: BundleWriter) -> Tee:
        return Tee(writer, self)

    # the call's thread (`runner/oneshot.py`)
    def opened(self, pipe: IO[bytes], stop: Callable[[], None], pid: int) -> None:
        """The adapter started (process group PID) with PIPE as its stdin; STOP ends it."""
        _widen(pipe)
        with self._lock:
            self._pipe, self._stop, self.pid = pipe, stop, pid
            closed = self._closed
        self._ready.set()
        if closed:  # the run gave up (Ctrl-C, an error) while the adapter started: its input ends now
            self.close()

    def on_checkpoint(self, ids: list[str]) -> None:
        self.held.add(ids)
        self.events.put(("checkpoint", None))

    def on_progress(self, event: dict[str, Any]) -> None:
        self.events.put(("progress", event))

    def finished(self) -> None:
        """The call is over (or never started): nothing more comes."""
        self._ready.set()
        self.events.put(_DONE)

    # the run's thread
    def wait_open(self) -> bool:
        self._ready.wait()
        return self._pipe is not None

    def open(self) -> None:
        """Start the adapter's call, if it is not started yet."""
        if self._pipe is None and self.start is not None:
            start, self.start = self.start, None
            start()

    def write_lines(self, rtype: str, lines: Sequence[bytes]) -> None:
        if lines:
            self.open()
            head = rtype.encode() + b" "
            if _newline_ended(lines):
                data = head.join([b"", *lines])  # one copy of the lines (`head + head.join(lines)` made two)
            else:  # a line without its newline
                data = b"".join(head + (line if line.endswith(b"\n") else line + b"\n") for line in lines)
            self._write(data)
            self.sent += len(lines)

    def end(self) -> None:
        """Every line is written and the segment sealed: the end line, then EOF."""
        self._write(END + b" " + str(self.sent).encode() + b"\n")
        self.close()

    def making(self) -> bool:
        """Whether the run is still making the input and not waiting on the adapter to read it: the adapter's
        silence is then the run's, and its idle clock waits (a slow pass does not stop a healthy adapter)."""
        pipe = self._pipe
        return pipe is not None and not pipe.closed and not self._writing

    def _write(self, data: bytes) -> None:
        assert self._pipe is not None
        self._writing = True
        try:
            self._pipe.write(data)
        except (BrokenPipeError, ValueError):  # the adapter is gone; its call's error says why
            raise AdapterGone() from None
        finally:
            self._writing = False

    def close(self) -> None:
        """EOF on the adapter's stdin (without the end line, an incomplete input it refuses), now or as soon as the
        adapter's stdin comes."""
        with self._lock:
            self._closed, pipe = True, self._pipe
        if pipe is not None and not pipe.closed:
            try:
                pipe.close()
            except BrokenPipeError:  # the adapter is gone; its call's error says why
                pass

    def stop(self) -> None:
        if self._stop is not None:
            self._stop()


PIPE_BYTES = 1 << 20
"""What the kernel holds of the stream for the adapter (Linux gives a pipe 64 KiB): while the adapter writes a group
of records, the pass goes on making the next ones instead of waiting on a full pipe."""


def _newline_ended(lines: Sequence[bytes]) -> bool:
    """Whether each of LINES ends with its newline (a line never holds one inside), found from each line's last
    byte: counting the newlines of all their bytes cost the pass 1-2% of its CPU."""
    try:
        return all(map(bytes.endswith, lines, repeat(b"\n")))
    except TypeError:  # a line that is no bytes object (a bytearray): asked one by one
        return all(line.endswith(b"\n") for line in lines)


def _widen(pipe: IO[bytes]) -> None:
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):  # not Linux, or above /proc/sys/fs/pipe-max-size: as it is
        pass


class Tee:
    """A journal segment's writer whose lines also go to STREAM (`delta.build_delta`'s TEE)."""

    def __init__(self, writer: BundleWriter, stream: InputStream):
        self.writer, self.stream = writer, stream

    def write_lines(
        self, rtype: str, lines: Sequence[bytes], records: Sequence[dict[str, Any]] | None = None, *, made: bool = False
    ) -> None:
        self.writer.write_lines(rtype, lines, records, made=made)
        self.stream.write_lines(rtype, lines)

    def begin(self) -> None:
        """Start the adapter now, before the first lines: its start-up then overlaps the pass making them."""
        self.stream.open()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.writer, name)


class AdapterGone(BackendError):
    """The adapter closed its input before the run was done writing it (its own error says why)."""

    def __init__(self) -> None:
        super().__init__("the adapter stopped reading its input stream")


class CallThread:
    """FN, the adapter call, on a thread of its own; its result or error once joined."""

    def __init__(self, fn: Callable[[], dict[str, Any]], stream: InputStream):
        self.fn, self.stream = fn, stream
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="memdock-index-call", daemon=True)

    def _run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as exc:  # handed to the run's thread, which raises it
            self.error = exc
        finally:
            self.stream.finished()

    def start(self) -> None:
        """Start the call and wait for the adapter's stdin; raise why it did not start."""
        self.thread.start()
        if not self.stream.wait_open():
            self.join()

    @property
    def started(self) -> bool:
        return self.thread.ident is not None

    def wait(self) -> None:
        """Wait for the call to be over (if it was started), whatever came of it."""
        if self.started:
            self.thread.join()

    def join(self) -> dict[str, Any]:
        self.thread.join()
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


def drain(stream: InputStream, on_checkpoint: Callable[[list[str]], None], on_progress: Any) -> None:
    """Hand the adapter's queued events to the run (its thread, the ledger's) until the call is over."""
    while True:
        kind, value = stream.events.get()
        if kind == "done":
            return
        if kind == "checkpoint":
            for ids in stream.held.take():
                on_checkpoint(ids)
        elif on_progress is not None:
            on_progress(value)
