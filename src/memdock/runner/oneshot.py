"""One operation, one process: request file in, events on stdout, result file out."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..atomic import write_atomic
from ..errors import BackendError, MemdockError, TransientError, error_for_exit_code
from ..protocol import SUPPORTED_PROTOCOLS, build_request, check_response
from .channel import Deadline, EventChannel, Quarantine
from .launch import CallRecord, Launch
from .process import AdapterProcess, spawn, stop, wait_exit
from .result_file import read_capped
from .stderr_log import StderrLog

if TYPE_CHECKING:
    from ..engine.stream import InputStream

EventCallback = Callable[[dict[str, Any]], None]


def run_once(
    launch: Launch,
    operation: str,
    params: dict[str, Any],
    *,
    on_progress: EventCallback | None = None,
    on_checkpoint: Callable[[list[str]], None] | None = None,
    offered: tuple[str, ...] | None = None,
    keep_work_dir: bool = False,
    timeout: float | None = None,
    stream: InputStream | None = None,
) -> tuple[dict[str, Any], CallRecord]:
    """OPERATION by a process of its own; STREAM gets its stdin, a pipe (see `engine/stream.py`)."""
    store = launch.store.ensure()
    work = store.new_work_dir(operation)
    result_path = work / "result.json"
    request = build_request(
        operation,
        data_dir=str(store.data_dir),
        work_dir=str(work),
        config=launch.config,
        params=params,
        result_path=str(result_path),
        offered=offered or SUPPORTED_PROTOCOLS,
    )
    record = CallRecord(operation, request["request_id"], work_dir=str(work))
    hits_before = launch.redactor.hits
    (request_path := work / "request.json").write_bytes(orjson.dumps(request, option=orjson.OPT_INDENT_2))
    started = time.monotonic()
    limit = timeout if timeout is not None else launch.timeout(operation)
    log = StderrLog(work / "stderr.log", launch.redactor)
    proc = _spawn(launch, request_path, work, params, log, stream)
    record.pid = proc.pid
    log.attach(proc.stderr)  # type: ignore[arg-type]
    quarantine = Quarantine()
    channel = EventChannel(
        proc.stdout.fileno(),  # type: ignore[union-attr]  # spawned with stdout=PIPE
        quarantine,
        launch.redactor.bytes,
        max_line=launch.max_event_bytes(),
    )
    channel.watch_exit(proc.report_fd, proc.read_report)
    failure: MemdockError | None = None
    try:
        making = None if stream is None else stream.making  # the idle clock waits while the run makes the input
        for ev in channel.events(timeout=limit, idle=launch.idle(), waited=making):
            record.count_event(ev, on_progress, on_checkpoint)
        remaining = max(0.1, limit - (time.monotonic() - started))
        wait_exit(proc, remaining)
    except Deadline as d:
        what = "went silent (no progress) for" if d.kind == "idle" else "did not finish within"
        failure = TransientError(
            f"adapter {launch.descriptor.name} {what} {d.seconds:g}s during {operation}; stopped it"
        )
    except Exception as exc:  # the callbacks (ledger) or a wait past the deadline
        failure = exc if isinstance(exc, MemdockError) else TransientError(f"{operation}: {exc}")
    finally:
        if proc.poll() is None or failure is not None:
            stop(proc)
        channel.close()
        log.join(timeout=10)
        proc.stdout.close()  # type: ignore[union-attr]
        record.survivors = proc.survivors() or 0
        proc.close_report()
    _finish_record(record, proc.returncode, time.monotonic() - started, quarantine, log)
    try:
        if failure is not None:
            raise failure
        result = _read_result(launch, operation, request["request_id"], result_path, proc.returncode, record)
    except MemdockError as exc:
        _describe_failure(exc, launch, record, work)
        record.redactions = launch.redactor.hits - hits_before
        store.prune()
        exc.call_record = record  # type: ignore[attr-defined]
        raise
    record.redactions = launch.redactor.hits - hits_before
    if not keep_work_dir:
        store.discard(work)
        record.work_dir = None
    return result, record


def _spawn(
    launch: Launch, request_path: Path, work: Path, params: dict[str, Any], log: StderrLog, stream: InputStream | None
) -> AdapterProcess:
    """The adapter's process; with STREAM, its stdin is a pipe handed to STREAM, which the caller writes."""
    try:
        proc = spawn(
            launch.argv("--request", str(request_path)),
            env=launch.child_env(work / "tmp"),
            cwd=work,
            writable=launch.writable(work),
            readable=launch.readable(params),
            exit_grace=launch.exit_grace(),
            python=launch.python_script,
            module_path=launch.descriptor.python_path(),
            stdin=subprocess.DEVNULL if stream is None else subprocess.PIPE,
        )
    except BaseException:
        log.close()
        raise
    if stream is not None:
        assert proc.stdin is not None
        stream.opened(proc.stdin, lambda: stop(proc), proc.pid)
    return proc


def _finish_record(
    record: CallRecord, exit_code: int | None, seconds: float, quarantine: Quarantine, log: StderrLog
) -> None:
    record.seconds = seconds
    record.exit_code = exit_code
    record.quarantined, record.quarantine_samples = quarantine.count, quarantine.samples
    record.overlong, record.dropped_bytes = quarantine.overlong, quarantine.dropped_bytes
    record.stderr_tail = log.tail()


def _describe_failure(exc: MemdockError, launch: Launch, record: CallRecord, work: Path) -> None:
    """Redact the error and attach what the caller needs to see why: stderr's tail, the work dir, dropped stdout."""
    exc.message = launch.redactor.text(exc.message)
    exc.args = (exc.message,)
    extra: dict[str, Any] = {"stderr_tail": record.stderr_tail, "work_dir": str(work)}
    if record.quarantined:
        extra["stdout_dropped"] = {
            "lines": record.quarantined,
            "overlong_lines": record.overlong,
            "bytes": record.dropped_bytes,
        }
    exc.details = launch.redactor.value({**exc.details, **extra})


def _read_result(
    launch: Launch, operation: str, request_id: str, path: Path, code: int, record: CallRecord
) -> dict[str, Any]:
    source = f"{launch.descriptor.name} {operation}"
    raw = read_capped(path, launch.max_result_bytes(), source)
    if raw is not None:
        clean = launch.redactor.bytes(raw)
        if clean != raw:
            write_atomic(
                path, clean, durable=False
            )  # the work dir may be kept for debugging: never with a secret in it
            raw = clean
        try:
            response = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise BackendError(f"{source}: result file is not valid JSON: {exc}") from None
        result = check_response(response, request_id=request_id, operation=operation, source=source)
        if code != 0:
            raise BackendError(f"{source}: adapter wrote a result but exited with code {code}")
        redacted: dict[str, Any] = launch.redactor.value(result)
        return redacted
    if code == 0:
        raise BackendError(f"{source}: adapter exited 0 without writing a result")
    tail = record.stderr_tail.strip().splitlines()
    hint = f": {tail[-1]}" if tail else ""
    raise error_for_exit_code(code, f"{source}: adapter exited with code {code} and no error envelope{hint}")
