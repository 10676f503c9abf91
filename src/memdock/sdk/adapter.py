"""Adapter base class and the protocol loop (one-shot `--request FILE`, or `--worker`)."""

from __future__ import annotations

import _thread
import functools
import json
import os
import sys
import time

from .. import PAYLOAD_VERSION, PROTOCOL_VERSION
from ..atomic import write_atomic
from ..diskfull import disk_full, is_disk_full
from ..errors import BackendError, ConfigError, InvalidInputError, MemdockError, UnsupportedOperationError, VersionError
from ..exiting import end
from ..operations import FEATURES, OPERATIONS
from .params import min_score_of

TYPE_CHECKING = False  # every adapter starts by importing this module: no `typing` at run time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, BinaryIO, NoReturn, Protocol

    from ..bundle import BundleReader
    from ..contract import DeleteResult, GetResult, HealthStatus, IndexResult, PrepareResult, SearchResult

    class EventSink(Protocol):
        """Where an operation's events go: the protocol's stdout (`_Events`), or callbacks in-process."""

        def emit(self, event: dict[str, Any], request_id: str | None = None) -> None: ...


_TRIVIAL_OBJECT_KEYS = {
    "type",
    "properties",
    "additionalProperties",
    "patternProperties",
    "description",
    "title",
    "$schema",
    "$id",
}


class Context:
    """One request as the adapter sees it, with the means to report progress and checkpoints."""

    def __init__(self, request: dict[str, Any], out: EventSink):
        self.request = request
        self.operation: str = request["operation"]
        self.request_id: str = request["request_id"]
        self.config: dict[str, Any] = request.get("config", {})
        self.params: dict[str, Any] = request.get("params", {})
        self._out = out

    @property
    def data_dir(self) -> Path:
        from pathlib import Path

        return Path(self.request["data_dir"])

    @property
    def work_dir(self) -> Path:
        from pathlib import Path

        return Path(self.request["work_dir"])

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        ev: dict[str, Any] = {"event": "progress", "done": done, "total": total}
        if message:
            ev["message"] = message
        self._out.emit(ev, self.request_id)

    def checkpoint(self, ids: list[str]) -> None:
        """Call only after the backend has durably committed these records."""
        self._out.emit({"event": "checkpoint", "ids": ids}, self.request_id)

    def input_bundle(self, *, validate: bool | None = None) -> BundleReader:
        """The bundle of `params.bundle`. VALIDATE None checks every record against the schema unless the runner
        says it wrote this bundle itself from records it had validated (`params.verified`); the reader checks
        counts and each part's sha256 either way, and JSON, nesting and duplicate ids unless the bundle is verified
        and VALIDATE None (the runner checked those too). A journal segment the runner hands over keeps its parts
        gzip-compressed (`sealed`): they are read as plain ones."""
        if validate is None:
            return self._reader(validate=not self.verified, checked=self.verified)
        return self._reader(validate=validate, checked=False)

    def _reader(self, *, validate: bool, checked: bool) -> BundleReader:
        from ..bundle import BundleReader

        path = self.params.get("bundle")
        if not isinstance(path, str) or not path:
            raise InvalidInputError("index needs params.bundle: the path of a payload bundle")
        return BundleReader(path, validate=validate, sealed=True, checked=checked)

    @property
    def streamed(self) -> bool:
        """The core writes this index run's records on stdin as it makes them (`params.stream`, see
        `sdk/stream.py`); `input_stream` reads them."""
        return self.params.get("stream") is True

    def input_stream(self) -> Any:
        """The records the core writes on stdin (a `memdock.sdk.stream.StreamedInput`), checked by the core."""
        from .stream import StreamedInput

        if not self.streamed:
            raise InvalidInputError("this index run's input is params.bundle, not a stream")
        return StreamedInput(sys.stdin.buffer, self.work_dir, where=f"{self.operation} input stream")

    @property
    def verified(self) -> bool:
        """The runner wrote `params.bundle` from records it had validated (its delta of what changed, or a shard
        of it): the schema check would only repeat its own."""
        return self.params.get("verified") is True

    def staged_bundle(self) -> BundleReader:
        """The input bundle, read through once before anything is written: the first record the schema refuses
        (an integer past int64, a leap second, nesting past the limit, a bad checksum) fails the call here,
        naming file, line, id and field. The reader returned skips the schema check the pass already did. A
        bundle the runner verified is not read twice."""
        if not self.verified:
            problems = self.input_bundle().verify(max_errors=1)
            if problems:
                raise problems[0]
        return self._reader(validate=False, checked=True)  # the pass above checked every record

    def log(self, message: str) -> None:
        sys.stderr.write(message.rstrip("\n") + "\n")
        sys.stderr.flush()


class _Described:
    """A class attribute read from the adapter's adapter.json (`descriptor_path`), so the name and version are
    written once; a subclass that sets the attribute itself overrides it."""

    def __init__(self, default: str):
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, obj: object, owner: type[Adapter]) -> str:
        path = owner.descriptor_path
        return self.default if path is None else str(_descriptor(str(path)).get(self.key, self.default))


def adapter_json(module_file: str) -> str:
    """The adapter.json beside the package that holds MODULE_FILE: `descriptor_path = adapter_json(__file__)`.

    (os.path rather than pathlib: pathlib's imports are a tenth of a one-shot adapter call.)"""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(module_file))), "adapter.json")


@functools.cache
def _descriptor(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        raw: dict[str, Any] = json.load(f)
    return raw


class Adapter:
    """Base class: override the operations your backend supports. `name` and `version` come from the
    adapter.json at `descriptor_path` (set it; a subclass may also set them itself)."""

    name: str = _Described("adapter")  # type: ignore[assignment]
    version: str = _Described("0.0.0")  # type: ignore[assignment]
    protocol_versions: tuple[str, ...] = (PROTOCOL_VERSION,)
    payload_versions: tuple[str, ...] = (PAYLOAD_VERSION,)
    features: dict[str, bool] = {}
    score: dict[str, Any] = {"range": [0.0, 1.0], "semantics": "relevance, higher is better"}
    id_shapes: dict[str, str] = {}
    descriptor_path: str | os.PathLike[str] | None = None
    input_stream: bool = False
    """Whether `index` reads its records from stdin as the core makes them when asked (`Context.streamed`)."""
    implied_edges: bool = False
    """Whether `index` derives an entry's contains/follows/mentions edges from its `implied_edges` (payload 1.2.0,
    `sdk/implied.py`): the core then sends them as no records of their own."""

    def operations(self, ctx: Context) -> list[str]:
        ops = ["capabilities"]
        for op in OPERATIONS[1:]:
            if getattr(type(self), op, None) is not getattr(Adapter, op, None):
                ops.append(op)
        return ops

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        active = {"concurrent_index": self._shared_writers(), **self.active_features(ctx)}
        if self.input_stream:
            active["input_stream"] = True
        if self.implied_edges:
            active["implied_edges"] = True
        return {
            "adapter": self.name,
            "adapter_version": self.version,
            "protocol_versions": list(self.protocol_versions),
            "payload_versions": list(self.payload_versions),
            "operations": self.operations(ctx),
            "features": {f: bool(active.get(f, False)) for f in FEATURES}
            | {k: v for k, v in active.items() if k not in FEATURES},
            "id_shapes": dict(self.id_shapes),
            "score": dict(self.score),
        }

    def active_features(self, ctx: Context) -> dict[str, bool]:
        """The features for this config. `concurrent_index`, unless set here, is what adapter.json's
        `parallel_writers` says (shared); an adapter that cannot take parallel writers with some config sets it
        False."""
        return dict(self.features)

    def _shared_writers(self) -> bool:
        path = self.descriptor_path
        return path is not None and _descriptor(str(path)).get("parallel_writers") == "shared"

    def check_config(self, config: dict[str, Any]) -> None:
        """Validate the config against adapter.json's config_schema; a violation is a ConfigError."""
        if self.descriptor_path is None:
            return
        schema = self._config_schema()
        if not schema or (not config and _accepts_empty_object(schema)):
            return
        compiled = self._config_validator(schema)
        issues = [] if compiled.is_valid(config) else compiled.issues(config)
        if issues:
            raise ConfigError(f"invalid config for {self.name}: {issues[0].path}: {issues[0].message}")

    def _config_schema(self) -> dict[str, Any] | None:
        schema: dict[str, Any] | None = _descriptor(str(self.descriptor_path)).get("config_schema")
        return schema

    def _config_validator(self, schema: dict[str, Any]) -> Any:
        """Compiled once per process: a worker checks the config of every request."""
        if not hasattr(self, "_config_validator_cache"):
            from ..validation import get_engine

            self._config_validator_cache = get_engine().compile(schema)
        return self._config_validator_cache

    def close(self) -> None:
        """Called once when the process ends (worker mode: at stdin EOF)."""

    # The operations. Override those your backend has; the others answer `unsupported`. Each returns its typed
    # result (memdock.contract), which the SDK writes to the wire; a plain dict in the wire's shape also works.

    def healthcheck(self, ctx: Context) -> HealthStatus | dict[str, Any]:
        raise self._unsupported(ctx)

    def prepare(self, ctx: Context) -> PrepareResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def index(self, ctx: Context) -> IndexResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def query(self, ctx: Context) -> SearchResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def search_nodes(self, ctx: Context) -> SearchResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def search_facts(self, ctx: Context) -> SearchResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def search_episodes(self, ctx: Context) -> SearchResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def get_node(self, ctx: Context) -> GetResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def get_edge(self, ctx: Context) -> GetResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def delete(self, ctx: Context) -> DeleteResult | dict[str, Any]:
        raise self._unsupported(ctx)

    def _unsupported(self, ctx: Context) -> UnsupportedOperationError:
        return UnsupportedOperationError(f"{self.name} does not support {ctx.operation}")


def _accepts_empty_object(schema: dict[str, Any]) -> bool:
    """True when {} is valid by construction, so start-up need not load a validator for an empty config."""
    return set(schema) <= _TRIVIAL_OBJECT_KEYS and schema.get("type", "object") == "object"


class _Events:
    """The protocol channel: the process's original stdout, kept apart from anything else that prints."""

    def __init__(self, stream: BinaryIO, worker: bool):
        self.stream, self.worker = stream, worker
        self.lock = _thread.allocate_lock()  # not threading: a one-shot adapter may never need that module

    def emit(self, event: dict[str, Any], request_id: str | None = None) -> None:
        if self.worker and request_id:
            event = {**event, "request_id": request_id}
        line = _dumps(event) + b"\n"
        with self.lock:
            self.stream.write(line)
            self.stream.flush()


def _protect_stdout() -> BinaryIO:
    """Move the protocol to a private fd and point fd 1 at stderr, so stray prints cannot corrupt it."""
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(proto_fd, "wb", buffering=0)


def _dispatch(adapter: Adapter, request: dict[str, Any], out: EventSink) -> dict[str, Any]:
    """Run one request; always returns a response (result or error envelope)."""
    base = {
        "protocol_version": PROTOCOL_VERSION,
        "request_id": str(request.get("request_id", "")),
        "operation": str(request.get("operation", "")),
    }
    try:
        op = request.get("operation")
        offered = [str(v) for v in request.get("offered_protocols") or [request.get("protocol_version", "")]]
        mine = {v.split(".")[0] for v in adapter.protocol_versions}
        if not any(v.split(".")[0] in mine for v in offered):
            raise VersionError(
                f"{adapter.name} speaks protocol {', '.join(adapter.protocol_versions)}; the caller offered "
                f"{', '.join(offered)}",
                details={"adapter": list(adapter.protocol_versions), "caller": offered},
            )
        if not isinstance(op, str) or op not in OPERATIONS:
            raise UnsupportedOperationError(f"unknown operation {op!r}")
        ctx = Context(request, out)
        adapter.check_config(ctx.config)
        if op != "capabilities" and op not in adapter.operations(ctx):
            raise UnsupportedOperationError(f"{adapter.name} does not support {op}")
        floor = min_score_of(ctx.params) if op == "query" else None
        result = wire_result(getattr(adapter, op)(ctx))
        if floor is not None:
            result = cut_below(result, floor)
        return {**base, "ok": True, "result": result}
    except MemdockError as exc:
        return {**base, "ok": False, "error": exc.to_envelope()}
    except Exception as exc:
        where = getattr(exc, "filename", None) or request.get("data_dir") or "."
        if is_disk_full(exc, near=where):
            return {**base, "ok": False, "error": disk_full(where, f"running {request.get('operation')}").to_envelope()}
        import traceback

        traceback.print_exc(file=sys.stderr)
        return {**base, "ok": False, "error": BackendError(f"{type(exc).__name__}: {exc}").to_envelope()}


def cut_below(result: Any, floor: float) -> Any:
    """A query's wire result without the hits scoring under FLOOR (params.min_score): the one place it is applied
    for every adapter (one that cuts before its limit, as sqlite does, loses nothing more here)."""
    if isinstance(result, dict) and isinstance(result.get("hits"), list):
        kept = [h for h in result["hits"] if isinstance(h.get("score"), (int, float)) and h["score"] >= floor]
        result = {**result, "hits": kept}
    return result


def wire_result(result: Any) -> Any:
    """An operation's typed result as the wire's JSON object (a dict is passed through as it is).

    memdock.contract is not imported here: an adapter returning a typed result has imported it already, and
    one returning dicts should not pay for it at every one-shot start."""
    contract = sys.modules.get("memdock.contract")
    if contract is None or isinstance(result, dict):
        return result
    if isinstance(result, contract.DeleteResult):
        return {"deleted": result.deleted, "not_found": result.not_found, "cascaded": result.cascaded}
    if isinstance(result, contract.SearchResult):
        out = result.to_dict()
        if not result.backend:
            del out["backend"]
        return out
    if isinstance(result, (contract.HealthStatus, contract.PrepareResult, contract.IndexResult, contract.GetResult)):
        return result.to_dict()
    return result


def _dumps(obj: Any) -> bytes:
    """JSON for the wire; NaN and Infinity are refused rather than written as invalid JSON."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _exit_code(response: dict[str, Any]) -> int:
    if response["ok"]:
        return 0
    return MemdockError.from_envelope(response["error"]).exit_code


def _run_request_file(adapter: Adapter, path: str, out: _Events) -> int:
    try:
        with open(path, "rb") as f:
            request = json.load(f)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"cannot read request {path}: {exc}\n")
        return InvalidInputError("").exit_code
    response = _dispatch(adapter, request, out)
    result_path = request.get("result_path") or os.path.join(request.get("work_dir", "."), "result.json")
    try:
        write_atomic(result_path, _dumps(response), durable=False)
    except OSError as exc:
        if not is_disk_full(exc):
            raise
        # no room for the result: say so where the runner looks when there is no envelope (the stderr tail)
        sys.stderr.write(disk_full(result_path, "writing the result").message + "\n")
        return BackendError("").exit_code
    out.emit({"event": "result", "path": result_path})
    return _exit_code(response)


def _watch_parent() -> None:
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(0)

    import threading

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _run_worker(adapter: Adapter, out: _Events) -> int:
    _watch_parent()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("request must be an object")
        except ValueError as exc:
            sys.stderr.write(f"ignoring malformed request line: {exc}\n")
            continue
        response = _dispatch(adapter, request, out)
        out.emit({"event": "result", "response": response}, response["request_id"])
    return 0


def serve(adapter: Adapter, argv: list[str] | None = None) -> NoReturn:
    """The adapter program's main: `--request FILE` (one-shot) or `--worker`. Ends the process with the exit
    code once the adapter is closed (see `_exit`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    worker = "--worker" in argv
    out = _Events(_protect_stdout(), worker)
    try:
        if worker:
            code = _run_worker(adapter, out)
        elif "--request" in argv and argv.index("--request") + 1 < len(argv):
            code = _run_request_file(adapter, argv[argv.index("--request") + 1], out)
        else:
            sys.stderr.write("usage: ADAPTER --request FILE | --worker\n")
            code = 2
    finally:
        adapter.close()
    _exit(code)


def _exit(code: int) -> NoReturn:
    """End the process with CODE as `memdock.exiting.end` does (the CLI ends so too)."""
    end(code)
