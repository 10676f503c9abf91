"""Reading a store's records back through its adapter: the `records` operation (protocol 1.1).

A backend that keeps every record losslessly (every field of what it was sent, values equal after a round trip)
says so with `features.lossless` and lists `records`; its records can then be read back without the journal's
copy. `records` answers one page at a time, `{"records": [{"type", "record"}], "next"}`, from `params.after` (the
previous page's `next`, an opaque cursor), at most `params.limit` records; `next` is null on the last page.

What an adapter answers is untrusted: each record is checked against its record schema, and a page that names a
record twice, or a cursor that does not move, is refused naming the page and the record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import BackendError
from ..results import Capabilities
from ..validation import SchemaValidator
from .ledger import Ledger, record_hash, short

SINCE = (1, 1)
"""The protocol minor that brought `records`."""
PAGE = 2000
RECORD_TYPES = ("thread", "entry", "edge", "entity", "chunk")
Call = Callable[[str, dict[str, Any]], dict[str, Any]]


def _minor_ok(version: str) -> bool:
    major, _, minor = str(version).partition(".")
    return major.isdigit() and minor.isdigit() and (int(major), int(minor)) >= SINCE and int(major) == SINCE[0]


def lossless(caps: Capabilities) -> bool:
    """Whether an adapter's capabilities promise every record back as it was sent: it speaks protocol 1.1 or later
    (same major), lists `records` and declares `features.lossless`."""
    return (
        caps.supports("records")
        and caps.features.get("lossless") is True
        and any(_minor_ok(v) for v in caps.protocol_versions)
    )


def read_back(call: Call, *, source: str, page: int = PAGE) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every record the store behind CALL holds, (type, record), page by page, each checked against its schema.
    SOURCE names the adapter in errors."""
    validator = SchemaValidator(lenient=True)  # a newer minor's fields are kept, as bundles keep them
    seen: set[tuple[str, str]] = set()
    after: str | None = None
    number = 0
    while True:
        number += 1
        params: dict[str, Any] = {"limit": page}
        if after is not None:
            params["after"] = after
        result = call("records", params)
        rows = result.get("records", [])
        if len(rows) > page:
            raise BackendError(f"{source}: records page {number} holds {len(rows)} records; {page} were asked for")
        for k, row in enumerate(rows):
            rtype, rec = row["type"], row["record"]
            issues = validator.issues(rtype, rec)
            if issues:
                raise BackendError(
                    f"{source}: records page {number}, record {k} ({rtype} {rec.get('id')!r}): "
                    f"{issues[0].path}: {issues[0].message}"
                )
            key = (rtype, rec["id"])
            if key in seen:
                raise BackendError(f"{source}: records page {number}, record {k}: {rtype} {rec['id']!r} came twice")
            seen.add(key)
            yield rtype, rec
        nxt = result.get("next")
        if nxt is None:
            return
        if nxt == after or not rows:
            raise BackendError(f"{source}: records page {number} gave the cursor {nxt!r} without moving on")
        after = nxt


def live(
    records: Iterable[tuple[str, dict[str, Any]]], ledger: Ledger, *, batch: int = PAGE
) -> Iterator[tuple[str, dict[str, Any]]]:
    """RECORDS (read back) that are live: the version the ledger committed, as `Journal.live` judges a journal's.
    A record the backend wrote in a run killed before its checkpoint, or an old version, is left out."""
    held: list[tuple[str, dict[str, Any]]] = []
    for row in records:
        held.append(row)
        if len(held) >= batch:
            yield from _committed(held, ledger)
            held = []
    yield from _committed(held, ledger)


def _committed(rows: list[tuple[str, dict[str, Any]]], ledger: Ledger) -> Iterator[tuple[str, dict[str, Any]]]:
    if not rows:
        return
    committed = ledger.hashes([rec["id"] for _, rec in rows])
    yield from (row for row in rows if committed.get(row[1]["id"]) == short(record_hash(row[1])))
