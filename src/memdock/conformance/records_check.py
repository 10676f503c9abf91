"""The kit's check of `records` (protocol 1.1): what the store gives back is what it was sent.

The records sent are the journal's live records as they were sent (`Journal.live(implied=True)`), so the check
judges the adapter against exactly what the core handed it. Every record given back must have been sent; an adapter
declaring `features.lossless` must give every one back, each field byte for byte (values compared as canonical
JSON, so 1, 1.0 and true differ); and after a `delete` none of the deleted ids may come back.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..engine.journal import Journal
from ..engine.ledger import Ledger
from ..engine.readback import lossless
from ..errors import MemdockError
from ..runner.backend import SubprocessBackend
from . import golden
from .harness import Fail, Harness, Skip

PAGE = 7
"""Small, so the golden bundle's records take several pages and the cursor is exercised."""
Key = tuple[str, str]


def _sent(b: SubprocessBackend) -> dict[Key, dict[str, Any]]:
    ledger = Ledger(b.store.ledger_path)
    try:
        return {(t, rec["id"]): rec for t, rec, _ in Journal(b.store.journal_path).live(ledger, implied=True)}
    finally:
        ledger.close()


def _back(b: SubprocessBackend) -> dict[Key, dict[str, Any]]:
    try:
        return {(t, rec["id"]): rec for t, rec in b.records(page=PAGE)}
    except MemdockError as exc:
        raise Fail(f"records: {exc.message}") from None


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def diff(sent: dict[str, Any], back: dict[str, Any]) -> list[str]:
    """How BACK differs from SENT, field by field: missing, added, or changed (as canonical JSON)."""
    out = [f"{k} missing" for k in sent if k not in back]
    out += [f"{k} added" for k in back if k not in sent]
    out += [f"{k} changed" for k in sent if k in back and _canonical(sent[k]) != _canonical(back[k])]
    return out


def _compare(sent: dict[Key, dict[str, Any]], back: dict[Key, dict[str, Any]], declared: bool) -> None:
    foreign = sorted(set(back) - set(sent))
    if foreign:
        raise Fail(f"records gave back {len(foreign)} record(s) the store was never sent: {foreign[:3]}")
    if not declared:
        return
    missing = sorted(set(sent) - set(back))
    if missing:
        raise Fail(f"declares lossless, but {len(missing)} of {len(sent)} records did not come back: {missing[:3]}")
    for key in sorted(sent):
        changed = diff(sent[key], back[key])
        if changed:
            raise Fail(f"declares lossless, but {key[0]} {key[1]!r} came back changed: {', '.join(changed)}")


def check_records(h: Harness) -> str:
    caps = h.capabilities()
    if not caps.supports("records"):
        raise Skip("adapter does not list records (protocol 1.1)")
    if caps.features.get("lossless") and not lossless(caps):
        raise Fail(f"declares features.lossless but speaks protocol {caps.protocol_versions}; records came in 1.1")
    b = h.backend()
    b.index(golden.write_golden(h.root / "golden-records"))
    sent = _sent(b)
    back = _back(b)
    declared = lossless(caps)
    _compare(sent, back, declared)
    detail = f"{len(back)} of {len(sent)} records came back" + (
        " as they were sent" if declared else " (not declared lossless: fields not compared)"
    )
    if caps.supports("delete") and caps.has("delete"):
        gone = set(b.delete([golden.DELETE_ENTRY]).deleted)
        left = sorted(rid for _, rid in _back(b) if rid in gone)
        if left:
            raise Fail(f"after deleting {golden.DELETE_ENTRY}, records still gives back {left}")
        detail += f"; none of the {len(gone)} deleted ids after a delete"
    return detail
