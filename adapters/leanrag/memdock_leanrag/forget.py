"""`delete`: forget threads, entries or chunks, their extractions with them, then rebuild the graph without them.

The catalog change is committed first, and from then on no hit sourced only from the deleted chunks
is returned (hits are mapped to live chunks). The rebuild follows; if it fails (the model is down),
the delete still stands, the graph keeps its old aggregates until the next successful `index`, and
the log says so (a delete result has no room for details).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memdock.errors import InvalidInputError, MemdockError

from .build import rebuild
from .runtime import Runtime


def _ids(params: dict[str, Any]) -> list[str]:
    ids = params.get("ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("params.ids must be a non-empty list of ids")
    return list(dict.fromkeys(ids))


def delete(rt: Runtime, params: dict[str, Any], log: Callable[[str], None]) -> dict[str, Any]:
    deleted: list[str] = []
    not_found: list[str] = []
    cascaded = 0
    with rt.catalog.transaction():
        for record_id in _ids(params):
            kind, chunk_ids = rt.catalog.resolve(record_id)
            if kind is None:
                not_found.append(record_id)
                continue
            gone = [g for g in rt.catalog.forget(kind, record_id, chunk_ids) if g not in deleted]
            cascaded += len(gone)
            deleted.extend([record_id, *gone])
    if deleted and rt.catalog.extraction_digest() != rt.catalog.get_meta("built_from"):
        try:
            log(f"delete: graph rebuilt without them: {rebuild(rt, log)}")
        except MemdockError as exc:
            log(f"delete: graph rebuild deferred to the next index: {exc.message}")
    return {"deleted": deleted, "not_found": not_found, "cascaded": cascaded}
