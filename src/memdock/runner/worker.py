"""Worker mode: the same requests and responses as JSON lines over one long-lived adapter's stdin/stdout."""

from __future__ import annotations

import contextlib
import secrets
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

import orjson

from ..errors import BackendError, MemdockError, TransientError
from ..operations import IDEMPOTENT_OPERATIONS
from ..protocol import build_request, check_response
from .channel import Deadline, EventChannel, LineTooLong, Quarantine
from .launch import CallRecord, Launch
from .process import spawn, stop, wait_exit
from .stderr_log import StderrLog


class WorkerCrashed(TransientError):
    pass


class Worker:
    """One adapter process started with --worker. Not thread-safe: the pool gives it to one caller at a time."""

    def __init__(self, launch: Launch, label: str):
        self.launch = launch
        store = launch.store.ensure()
        self.work = store.work_root / f"worker-{label}-{secrets.token_hex(4)}"  # never a dir an earlier worker wrote
        (self.work / "tmp").mkdir(parents=True)
        self.log = StderrLog(self.work / "stderr.log", launch.redactor)
        try:
            self.proc = spawn(
                launch.argv("--worker"),
                env=launch.child_env(self.work / "tmp"),
                cwd=self.work,
                writable=launch.writable(self.work),
                readable=launch.readable(),
                stdin=-1,
                die_with_parent=False,
                exit_grace=launch.exit_grace(),
                python=launch.python_script,
                module_path=launch.descriptor.python_path(),
            )
        except BaseException:
            self.log.close()
            raise
        self.log.attach(self.proc.stderr)  # type: ignore[arg-type]
        self.quarantine = Quarantine()
        self.max_line = launch.max_result_bytes()  # a worker's result travels as one line
        self.channel = EventChannel(
            self.proc.stdout.fileno(),  # type: ignore[union-attr]  # spawned with stdout=PIPE
            self.quarantine,
            launch.redactor.bytes,
            max_line=self.max_line,
            strict=True,
        )
        self.calls = 0
        self.pending: str | None = None  # the request sent whose result has not come back yet
        self.survivors = 0  # processes the worker left behind at its exit, killed

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and not self.channel.eof

    def call(
        self,
        operation: str,
        params: dict[str, Any],
        *,
        on_progress: Callable[[dict[str, Any]], None] | None = None,
        on_checkpoint: Callable[[list[str]], None] | None = None,
        timeout: float | None = None,
        on_record: Callable[[CallRecord], None] | None = None,
    ) -> dict[str, Any]:
        """One request on this worker. ON_RECORD gets what the runner saw during it (as one-shot calls record it)."""
        req = build_request(
            operation,
            data_dir=str(self.launch.store.data_dir),
            work_dir=str(self.work),
            config=self.launch.config,
            params=params,
        )
        rid = req["request_id"]
        record = CallRecord(operation, rid, pid=self.proc.pid, mode="worker")
        quarantined, sampled, hits = self.quarantine.count, len(self.quarantine.samples), self.launch.redactor.hits
        started = time.monotonic()
        try:
            return self._call(req, record, on_progress, on_checkpoint, timeout)
        finally:
            record.seconds = time.monotonic() - started
            record.exit_code = self.proc.poll()
            record.quarantined = self.quarantine.count - quarantined
            record.quarantine_samples = self.quarantine.samples[sampled:]
            record.redactions = self.launch.redactor.hits - hits
            if on_record is not None:
                on_record(record)

    def _call(
        self,
        req: dict[str, Any],
        record: CallRecord,
        on_progress: Callable[[dict[str, Any]], None] | None,
        on_checkpoint: Callable[[list[str]], None] | None,
        timeout: float | None,
    ) -> dict[str, Any]:
        operation, rid = req["operation"], req["request_id"]
        try:
            self.proc.stdin.write(orjson.dumps(req) + b"\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            raise WorkerCrashed(f"worker for {self.launch.descriptor.name} is gone ({self._why(0.0)})") from None
        self.calls += 1
        self.pending = rid
        limit = timeout if timeout is not None else self.launch.timeout(operation)
        began = time.monotonic()
        try:
            for ev in self.channel.events(timeout=limit, idle=self.launch.idle()):
                if ev.data.get("request_id") not in (None, rid):
                    self.quarantine.add(orjson.dumps(ev.data), self.launch.redactor.bytes)
                    continue
                record.count_event(ev, on_progress, on_checkpoint)
                if ev.kind == "result":
                    self.pending = None
                    response = ev.data.get("response")
                    result = check_response(
                        response,
                        request_id=rid,
                        operation=operation,
                        source=f"{self.launch.descriptor.name} worker {operation}",
                    )
                    redacted: dict[str, Any] = self.launch.redactor.value(result)
                    return redacted
        except LineTooLong as too_long:
            self.close(force=True)
            raise BackendError(
                f"{self.launch.descriptor.name} worker {operation}: a response line passed the cap of {too_long.cap} "
                "bytes "
                "(limits.max_result_bytes in adapter.json); large results go by reference; stopped the worker",
                details={"cap": too_long.cap},
            ) from None
        except Deadline as d:
            self.close(force=True)
            raise TransientError(
                f"worker for {self.launch.descriptor.name} exceeded its {d.kind} limit of {d.seconds:g}s during "
                f"{operation}; stopped it"
            ) from None
        except MemdockError as exc:
            exc.message = self.launch.redactor.text(exc.message)
            exc.args = (exc.message,)
            raise
        left = min(2.0, max(0.0, limit - (time.monotonic() - began)))
        raise WorkerCrashed(f"worker for {self.launch.descriptor.name} exited during {operation} ({self._why(left)})")

    def _why(self, wait: float) -> str:
        """Its exit code and last stderr line. Its output ended, so it is exiting: its code is waited for up to WAIT
        seconds (within the call's limit), else read as it is (None while it runs)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            wait_exit(self.proc, wait)
        code = self.proc.poll()
        tail = self.log.tail(400).strip().splitlines()
        return f"exit code {code}" + (f"; stderr: {tail[-1]}" if tail else "")

    def close(self, *, force: bool = False, grace: float = 2.0) -> None:
        if self.proc.poll() is None:
            try:
                if not force:
                    self.proc.stdin.close()  # type: ignore[union-attr]
                    self.proc.wait(timeout=grace + self.launch.exit_grace())
            except Exception:
                pass
            stop(self.proc, grace=1.0)
        self.channel.close()
        self.log.join(timeout=5)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except Exception:
                pass
        self.survivors = self.proc.survivors() or self.survivors
        self.proc.close_report()
        self.launch.store.discard(self.work)


class WorkerPool:
    """Up to SIZE workers for one adapter. A crashed worker is replaced, and an idempotent request retried once
    unless RETRY_CRASHED is False (the conformance kit's: it must see every crash)."""

    def __init__(self, launch: Launch, size: int = 1, *, retry_crashed: bool = True):
        self.launch, self.size, self.retry_crashed = launch, max(1, size), retry_crashed
        self._idle: list[Worker] = []
        self._count = 0
        self._cond = threading.Condition()
        self._closed = False
        self._serial = 0
        self.survivors = 0  # processes closed workers left behind, killed by their shepherds

    def _acquire(self) -> Worker:
        with self._cond:
            while True:
                if self._closed:
                    raise BackendError("worker pool is closed")
                while self._idle:
                    w = self._idle.pop()
                    if w.alive:
                        return w
                    self._retire(w, force=True)
                    self._count -= 1
                if self._count < self.size:
                    self._count += 1
                    self._serial += 1
                    label = f"{self.launch.descriptor.name}-{self._serial}"
                    break
                self._cond.wait()
        try:
            return Worker(self.launch, label)
        except BaseException:
            with self._cond:
                self._count -= 1
                self._cond.notify()
            raise

    def _release(self, w: Worker, broken: bool) -> None:
        """Give W back, or retire it: broken, dead, or still working on a request its caller gave up on (a
        callback such as a ledger commit raised mid-call); its next caller would otherwise run beside that."""
        with self._cond:
            if broken or self._closed or not w.alive or w.pending is not None:
                self._retire(w, force=True)
                self._count -= 1
            else:
                self._idle.append(w)
            self._cond.notify()

    def start(self) -> None:
        """Start workers up to the pool's size now (a server does before it listens, so that no request waits
        for an interpreter and the adapter's imports); never waits for a busy one."""
        held: list[Worker] = []
        try:
            while len(held) < self.size:
                with self._cond:
                    if self._closed or (not self._idle and self._count >= self.size):
                        break
                held.append(self._acquire())
        finally:
            for w in held:
                self._release(w, broken=False)

    def call(self, operation: str, params: dict[str, Any], **callbacks: Any) -> dict[str, Any]:
        """OPERATION on an idle (or new) worker; callbacks as Worker.call (on_progress, on_checkpoint, timeout,
        on_record)."""
        for attempt in (1, 2):
            w = self._acquire()
            broken = False
            try:
                return w.call(operation, params, **callbacks)
            except WorkerCrashed:
                broken = True
                if attempt == 2 or not self.retry_crashed or operation not in IDEMPOTENT_OPERATIONS:
                    raise
            except TransientError:
                broken = True
                raise
            finally:
                self._release(w, broken)
        raise AssertionError("unreachable")

    @property
    def quarantined(self) -> int:
        return sum(w.quarantine.count for w in self._idle)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            workers, self._idle = self._idle, []
            self._cond.notify_all()
        for w in workers:
            self._retire(w)

    def _retire(self, w: Worker, *, force: bool = False) -> None:
        w.close(force=force)
        self.survivors += w.survivors
