"""The checks of the conformance kit, in the order they run. Each raises Skip or Fail, or returns a detail.

Every check makes the calls it judges, on backends it opens with `h.backend()`;
what several checks judge alike is built once per session with `h.shared`.
Adding a check: write `def check_NAME(h: Harness) -> str` and add `("NAME", check_NAME)` to CHECKS.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..contract import Capabilities
from ..engine.ledger import Ledger
from ..errors import MemdockError
from ..operations import BY_NAME, OPERATIONS, WRITE_OPERATIONS
from ..records import Hit
from ..runner.backend import SubprocessBackend
from ..runner.launch import CallRecord
from ..untrusted import NotRegularFile, open_regular, read_upto
from . import golden
from .harness import Fail, Harness, Skip
from .stream_check import check_input_stream
from .thread_delete_check import check_delete_thread


def _expect_error(fn: Callable[[], object], category: str, what: str) -> MemdockError:
    try:
        fn()
    except MemdockError as exc:
        if exc.category != category:
            raise Fail(f"{what}: expected a {category} error, got {exc.category}: {exc.message}") from None
        return exc
    raise Fail(f"{what}: expected a {category} error, the call succeeded")


def _caps(h: Harness) -> Capabilities:
    return h.capabilities()


def _retrieval(h: Harness) -> bool:
    caps = _caps(h)
    return caps.supports("query") and caps.features.get("retrieval", True) is not False


def check_handshake(h: Harness) -> str:
    caps = h.backend().get_capabilities()
    if caps.adapter != h.descriptor.name:
        raise Fail(f"capabilities name the adapter {caps.adapter!r}, its adapter.json says {h.descriptor.name!r}")
    if "capabilities" not in caps.operations:
        raise Fail("operations must list capabilities")
    unknown = [op for op in caps.operations if op not in OPERATIONS]
    if unknown:
        raise Fail(f"capabilities list unknown operations: {unknown}")
    lo, hi = caps.score.get("range", [None, None])
    if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo < hi):
        raise Fail(f"score range must be [low, high], got {caps.score.get('range')}")
    on = sorted(k for k, v in caps.features.items() if v)
    return (
        f"protocol {', '.join(caps.protocol_versions)}; {len(caps.operations)} operations; features: "
        f"{', '.join(on) or 'none'}"
    )


def check_version_negotiation(h: Harness) -> str:
    b = h.backend()
    exc = _expect_error(
        lambda: b.call("capabilities", {}, offered=("99.0",)), "version", "a caller offering only protocol 99.0"
    )
    if "99" not in exc.message:
        raise Fail(f"the version error must name the version offered (99.0): {exc.message}")
    return exc.message


def _bad_config(schema: dict[str, Any]) -> dict[str, Any] | None:
    if schema.get("additionalProperties") is False:
        return {"__memdock_conformance_unknown__": 1}
    wrong = {
        "string": 12345,
        "integer": "not-a-number",
        "number": "not-a-number",
        "boolean": "yes",
        "object": 1,
        "array": 1,
    }
    for name, prop in (schema.get("properties") or {}).items():
        if (
            isinstance(prop, dict)
            and not prop.get("x-secret")
            and isinstance(prop.get("type"), str)
            and prop["type"] in wrong
        ):
            return {name: wrong[prop["type"]]}
    return None


def check_invalid_config(h: Harness) -> str:
    bad = _bad_config(h.descriptor.config_schema)
    if bad is None:
        raise Skip("config_schema accepts any config, so no config can be invalid")
    b = h.backend(config=bad)
    exc = _expect_error(lambda: b.call("capabilities", {}), "config", f"config {bad}")
    return exc.message


def check_healthcheck(h: Harness) -> str:
    if not _caps(h).supports("healthcheck"):
        raise Skip("adapter does not list healthcheck")
    status = h.backend().healthcheck()
    return f"ok={status.ok} {status.message}".strip()


def check_bad_payload(h: Harness) -> str:
    if not _caps(h).supports("index"):
        raise Skip("adapter does not list index")
    bundle, part = golden.write_bad_bundle(h.root / "bad-bundle")
    b = h.backend()
    exc = _expect_error(
        lambda: b.call("index", {"bundle": str(bundle)}), "invalid_input", "a chunk without text on line 2"
    )
    if part not in exc.message or ":2" not in exc.message:
        raise Fail(f"the error must name the file and line ({part}:2): {exc.message}")
    return exc.message


def _golden_hits(b: SubprocessBackend, text: str, limit: int = 5) -> list[Hit]:
    return b.query(text, limit=limit).hits


def _matches(hit: Hit, entry_id: str) -> bool:
    idx = entry_id.rsplit("-", 1)[1]
    return hit.provenance.get("entry_id") == entry_id or hit.id in (entry_id, golden.chunk_id(int(idx)))


def _check_golden_queries(b: SubprocessBackend) -> list[str]:
    missing = []
    for text, expected in golden.QUERIES:
        hits = _golden_hits(b, text)
        if not any(_matches(hh, expected) for hh in hits):
            missing.append(f"{text!r} did not find {expected} in the top 5 ({[x.id for x in hits]})")
    return missing


def check_index_query(h: Harness) -> str:
    if not _retrieval(h):
        raise Skip("adapter declares no retrieval (features.retrieval=false or no query)")
    b = h.backend()
    b.index(golden.write_golden(h.root / "golden"))
    with h.reader(b.store) as r:
        missing = _check_golden_queries(r)
    if missing:
        raise Fail("; ".join(missing))
    return f"{len(golden.QUERIES)} golden queries found their entries"


def check_reindex_idempotent(h: Harness) -> str:
    if not _caps(h).supports("index"):
        raise Skip("adapter does not list index")
    bundle = golden.write_golden(h.root / "golden-reindex")
    b = h.backend()
    b.call("index", {"bundle": str(bundle)}, use_pool=False)
    if not _retrieval(h):
        b.call("index", {"bundle": str(bundle)}, use_pool=False)
        return "indexed twice without error (no retrieval to compare)"
    with h.reader(b.store) as r:
        before = {t: [x.id for x in _golden_hits(r, t, 20)] for t, _ in golden.QUERIES}
    b.call("index", {"bundle": str(bundle)}, use_pool=False)
    with h.reader(b.store) as r:
        after = {t: [x.id for x in _golden_hits(r, t, 20)] for t, _ in golden.QUERIES}
    dupes = {t: ids for t, ids in after.items() if len(ids) != len(set(ids))}
    if dupes:
        raise Fail(f"duplicate hits after re-indexing: {dupes}")
    if {t: sorted(v) for t, v in before.items()} != {t: sorted(v) for t, v in after.items()}:
        raise Fail(f"results changed after re-indexing the same bundle: before {before}, after {after}")
    return "same bundle indexed twice: same hits, no duplicates"


class _KitKill(Exception):
    pass


def check_resume_after_kill(h: Harness) -> str:
    caps = _caps(h)
    if not caps.has("incremental"):
        raise Skip("adapter does not declare incremental")
    extra = max(2, h.options.resume_filler)
    bundle = golden.write_golden(h.root / "golden-resume", extra=extra)
    b = h.backend()
    seen: list[int] = []

    def kill(ids: list[str]) -> None:
        seen.append(len(ids))
        raise _KitKill("conformance kit: killing the index run after its first checkpoint")

    killed: MemdockError | None = None
    try:
        b.index(bundle, after_checkpoint=kill)
    except MemdockError as exc:
        killed = exc
    if not seen:
        raise Skip("the adapter finished without a checkpoint before the end; nothing to resume")
    if killed is None:
        raise Fail("the index run went on to succeed after its after_checkpoint callback stopped it")
    ledger = Ledger(b.store.ledger_path)
    committed = ledger.count()
    ledger.close()
    result = b.index(bundle)
    sent = sum(result.details.get("sent", {}).values())
    total = sent + result.skipped
    if result.skipped < committed or sent >= total:
        raise Fail(f"the second run sent {sent} of {total} records; {committed} were committed before the kill")
    if _retrieval(h):
        with h.reader(b.store) as r:
            missing = _check_golden_queries(r)
            last = extra - 1
            hits = _golden_hits(r, f"Filler note {last} routine item {last * 7 % 101}", 10)
        if not any(x.provenance.get("entry_id") == f"entry:kit-{len(golden.ENTRIES) + last}" for x in hits):
            missing.append("the last filler entry (indexed after the resume) was not found")
        if missing:
            raise Fail("; ".join(missing))
    path = "streamed" if "input_stream" in killed.details else "from its files"
    return f"killed after a checkpoint of {seen[0]} records ({path}); resumed sending {sent} of {total}"


def check_delete_cascade(h: Harness) -> str:
    caps = _caps(h)
    if not (caps.has("delete") and caps.supports("delete")):
        raise Skip("adapter does not declare delete")
    b = h.backend()
    b.index(golden.write_golden(h.root / "golden-delete"))
    victim_chunk = golden.chunk_id(int(golden.DELETE_ENTRY.rsplit("-", 1)[1]))
    if _retrieval(h):
        with h.reader(b.store) as r:
            found = any(_matches(x, golden.DELETE_ENTRY) for x in _golden_hits(r, golden.DELETE_QUERY))
        if not found:
            raise Fail(f"before the delete, {golden.DELETE_QUERY!r} did not find {golden.DELETE_ENTRY}")
    result = b.delete([golden.DELETE_ENTRY])
    if golden.DELETE_ENTRY not in result.deleted:
        raise Fail(f"delete did not report {golden.DELETE_ENTRY} as deleted: {result}")
    if victim_chunk not in result.deleted:
        raise Fail(f"deleting {golden.DELETE_ENTRY} did not cascade to its chunk {victim_chunk}: {result.deleted}")
    with h.reader(b.store) as r:
        if _retrieval(h):
            left = [x.id for x in _golden_hits(r, golden.DELETE_QUERY, 20) if _matches(x, golden.DELETE_ENTRY)]
            if left:
                raise Fail(f"after the delete, queries still return {left}")
        if caps.supports("get_node") and r.get_node(golden.DELETE_ENTRY).item is not None:
            raise Fail(f"after the delete, get_node({golden.DELETE_ENTRY}) still answers")
    return f"deleted {len(result.deleted)} ids ({result.cascaded} by cascade)"


def check_metadata_filter(h: Harness) -> str:
    """An adapter declaring features.metadata_filter must apply params.where: only matching entries, and none
    for a key no entry holds (an adapter that cannot must not declare it: the service then answers degraded)."""
    if not _caps(h).features.get("metadata_filter"):
        raise Skip("adapter does not declare features.metadata_filter")
    if not _retrieval(h):
        raise Skip("adapter declares no retrieval")
    b = h.backend()
    b.index(golden.write_tagged(h.root / "golden-tagged"))
    hits = b.query(golden.TAGGED_QUERY, limit=10, where={"shelf": ["b"]}).hits
    wrong = [x.id for x in hits if x.provenance.get("entry_id") != "entry:kit-tag-1"]
    if wrong or not hits:
        raise Fail(f"where shelf=b ignored the where filter: {[x.id for x in hits]} (wanted only entry:kit-tag-1)")
    stray = b.query(golden.TAGGED_QUERY, limit=10, where={"colour": ["red"]}).hits
    if stray:
        raise Fail(f"where on a key no entry holds ignored the where filter: {[x.id for x in stray]}")
    return "where kept only the matching entry, and nothing for an unknown key"


def check_unsupported_ops(h: Harness) -> str:
    caps = _caps(h)
    b = h.backend()
    missing = [op for op in OPERATIONS if op not in caps.operations] + ["frobnicate"]
    for op in missing:
        probe = BY_NAME[op].probe if op in BY_NAME else {}
        _expect_error(partial(b.call, op, probe), "unsupported", f"operation {op}")
    return f"{len(missing)} unsupported operation(s) answered unsupported: {', '.join(missing)}"


def _snapshot(*roots: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple[int, int]]:
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            d = Path(dirpath)
            dirnames[:] = [n for n in dirnames if (d / n) not in skip and n != "__pycache__"]
            for n in filenames + dirnames:
                p = d / n
                try:
                    st = p.lstat()
                except OSError:
                    continue
                out[str(p)] = (st.st_size, st.st_mtime_ns if stat.S_ISREG(st.st_mode) else 0)
    return out


def check_writes_confined(h: Harness) -> str:
    caps = _caps(h)
    b = h.backend(sandbox=False)
    watched_skip = tuple(h.store_dirs()) + (h.root / "golden-confined",)
    bundle = golden.write_golden(h.root / "golden-confined")
    before = _snapshot(h.home, h.descriptor.path, h.root, skip=watched_skip + (b.store.root,))
    for op, call in (
        ("prepare", b.prepare),
        ("index", lambda: b.index(bundle)),
        ("query", lambda: b.query("heaters")),
        ("healthcheck", b.healthcheck),
        ("delete", lambda: b.delete([golden.DELETE_ENTRY])),
    ):
        if caps.supports(op):
            call()
    after = _snapshot(h.home, h.descriptor.path, h.root, skip=watched_skip + (b.store.root,))
    changed = sorted(set(after) - set(before)) + sorted(k for k in before if k in after and after[k] != before[k])
    if changed:
        raise Fail(f"the adapter wrote outside its data and work dirs: {', '.join(changed[:5])}")
    from ..runner import landlock

    return (
        "no writes outside the data and work dirs; Landlock "
        f"{'enforced' if landlock.abi_version() else 'not available'} here"
    )


@dataclass
class Exercise:
    """Every operation the adapter lists, run one-shot, then its read operations in worker mode (if it has one),
    each with an unsupported operation as an error path."""

    records: list[CallRecord] = field(default_factory=list)
    unattributed_redactions: int = 0  # secrets the runner redacted outside any call (a worker's stderr between calls)
    stores: list[Path] = field(default_factory=list)


def _exercise(h: Harness) -> Exercise:
    caps = _caps(h)
    bundle = golden.write_golden(h.root / "golden-exercise")
    one_shot = h.backend()
    backends = [one_shot] + ([h.backend(workers=1, store=one_shot.store)] if h.descriptor.supports_worker else [])
    out = Exercise(stores=[one_shot.store.root])
    for b in backends:
        for op, call in _every_operation(b, bundle):
            if b.pool is not None and op in WRITE_OPERATIONS:
                continue  # writes never go through a worker
            if op in ("capabilities", "frobnicate") or caps.supports(op):
                try:
                    call()
                except MemdockError:
                    pass  # other checks judge the answers; this one is about what went where
        b.close()
        out.records += b.calls
        out.unattributed_redactions += b.launch.redactor.hits - sum(r.redactions for r in b.calls)
    return out


def _every_operation(b: SubprocessBackend, bundle: Path) -> list[tuple[str, Callable[[], Any]]]:
    """Each operation as a call on B (and one the protocol does not have)."""
    return [
        ("capabilities", lambda: b.get_capabilities(refresh=True)),
        ("healthcheck", b.healthcheck),
        ("prepare", b.prepare),
        ("index", lambda: b.index(bundle)),
        ("query", lambda: b.query("kerosene heaters falcon")),
        ("search_nodes", lambda: b.search_nodes("heaters")),
        ("search_facts", lambda: b.search_facts("heaters")),
        ("search_episodes", lambda: b.search_episodes("heaters")),
        ("get_node", lambda: b.get_node("entry:kit-0")),
        ("get_edge", lambda: b.get_edge("edge:kit-contains-0")),
        ("delete", lambda: b.delete([golden.DELETE_ENTRY])),
        ("frobnicate", lambda: b.call("frobnicate", {})),
    ]


def check_stdout_clean(h: Harness) -> str:
    ex = h.shared("exercise", _exercise)
    bad = [r for r in ex.records if r.quarantined]
    if bad:
        raise Fail(
            f"{sum(r.quarantined for r in bad)} stray stdout line(s), first during {bad[0].operation} ({bad[0].mode}): "
            f"{bad[0].quarantine_samples[:2]}"
        )
    workers = sum(1 for r in ex.records if r.mode == "worker")
    return f"{len(ex.records)} calls ({len(ex.records) - workers} one-shot, {workers} worker), no stray stdout line"


SCAN_CAP = 256 * 1024 * 1024


@dataclass
class StoreScan:
    found: list[str] = field(default_factory=list)  # files holding a planted secret
    skipped: list[str] = field(default_factory=list)  # "NAME is a FIFO", ...: not read
    partly: list[str] = field(default_factory=list)  # files over SCAN_CAP: only their first SCAN_CAP bytes read

    def note(self) -> str:
        parts = []
        if self.skipped:
            parts.append(f"{len(self.skipped)} file(s) not read ({'; '.join(self.skipped[:3])})")
        if self.partly:
            parts.append(f"only the first {SCAN_CAP} bytes read of {', '.join(self.partly[:3])}")
        return "; " + "; ".join(parts) if parts else ""


def _scan_stores(roots: list[Path], planted: list[bytes]) -> StoreScan:
    """Look for PLANTED in every file under ROOTS, which the adapter could write: links, FIFOs and devices are
    not read (memdock.untrusted), a file is read in pieces and no further than SCAN_CAP."""
    out, overlap = StoreScan(), max(map(len, planted), default=1) - 1
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            for n in files:
                p = Path(dirpath) / n
                try:
                    with open_regular(p) as (fd, st):
                        tail = b""
                        for piece in read_upto(fd, SCAN_CAP):
                            window = tail + piece
                            if any(x in window for x in planted):
                                out.found.append(str(p))
                                break
                            tail = window[-overlap:] if overlap else b""
                        else:
                            if st.st_size > SCAN_CAP:
                                out.partly.append(str(p))
                except NotRegularFile as exc:
                    out.skipped.append(f"{n} is {exc.kind}")
                except OSError:
                    continue
    return out


def check_secrets_never_leak(h: Harness) -> str:
    ex = h.shared("exercise", _exercise)
    planted = list(h.secrets.values()) + [h.undeclared_secret]
    leaks = [f"{r.operation} ({r.mode})" for r in ex.records if r.redactions]
    if ex.unattributed_redactions:
        leaks.append("a worker's stderr between calls")
    scan = _scan_stores(ex.stores, [x.encode() for x in planted])
    found_in_files = scan.found
    if leaks or found_in_files:
        parts = []
        if leaks:
            parts.append(f"secret value written to output (redacted by the runner) in {', '.join(leaks[:5])}")
        if found_in_files:
            parts.append(f"secret found in {', '.join(found_in_files[:3])}")
        raise Fail("; ".join(parts))
    declared = ", ".join(h.secrets) or "none declared"
    return (
        f"planted secrets ({declared}, plus one undeclared) appeared nowhere in {len(ex.records)} calls" + scan.note()
    )


def _own_calls(h: Harness, b: SubprocessBackend) -> None:
    """A few calls of the kit's own, so a check run alone (--only) still has something to look at."""
    b.get_capabilities()
    caps = _caps(h)
    if caps.supports("healthcheck"):
        b.healthcheck()
    if _retrieval(h):
        b.query("heaters")


def check_no_survivors(h: Harness) -> str:
    b = h.backend()
    _own_calls(h, b)
    left = [(r.operation, r.survivors) for r in h.call_records() if r.survivors]
    workers = 0
    if h.descriptor.supports_worker:
        pooled = type(b)(
            h.descriptor, b.store, config=h.options.config, env=h.env(), workers=1, retries=0, retry_crashed=False
        )
        try:
            _own_calls(h, pooled)
        finally:
            pooled.close()
        workers = pooled.pool.survivors  # type: ignore[union-attr]
    if left or workers:
        where = [f"{n} after {op}" for op, n in left[:5]] + ([f"{workers} after a worker closed"] if workers else [])
        raise Fail(f"the adapter left processes running after it exited, which memdock had to kill: {', '.join(where)}")
    return (
        f"{sum(1 for _ in h.call_records())} calls{' and a worker' if h.descriptor.supports_worker else ''}: no "
        "process outlived its adapter"
    )


def check_result_file_hygiene(h: Harness) -> str:
    from ..runner.oneshot import run_once

    b = h.backend()
    launch, cap, sizes = b.launch, b.launch.max_result_bytes(), []
    ops: list[tuple[str, dict[str, Any]]] = [("capabilities", {})] + [
        (op, p) for op, p in (("healthcheck", {}), ("query", {"text": "heaters"})) if _caps(h).supports(op)
    ]
    for op, params in ops:
        try:
            _result, record = run_once(launch, op, params, keep_work_dir=True)
        except MemdockError as exc:
            raise Fail(f"{op}: {exc.message}") from None
        path = Path(record.work_dir or "") / "result.json"
        st = path.lstat()
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise Fail(f"{op}: {path} is not a regular file with one link")
        sizes.append(st.st_size)
        b.store.discard(path.parent)
    return f"{len(sizes)} result files: regular, not links, largest {max(sizes)} bytes (cap {cap})"


CHECKS = [
    ("handshake", check_handshake),
    ("version_negotiation", check_version_negotiation),
    ("invalid_config", check_invalid_config),
    ("healthcheck", check_healthcheck),
    ("bad_payload", check_bad_payload),
    ("index_query", check_index_query),
    ("reindex_idempotent", check_reindex_idempotent),
    ("input_stream", check_input_stream),
    ("resume_after_kill", check_resume_after_kill),
    ("delete_cascade", check_delete_cascade),
    ("delete_thread", check_delete_thread),
    ("metadata_filter", check_metadata_filter),
    ("unsupported_ops", check_unsupported_ops),
    ("writes_confined", check_writes_confined),
    ("stdout_clean", check_stdout_clean),
    ("secrets_never_leak", check_secrets_never_leak),
    ("no_survivors", check_no_survivors),
    ("result_file_hygiene", check_result_file_hygiene),
]
