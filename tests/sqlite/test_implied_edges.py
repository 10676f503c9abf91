"""The sqlite adapter derives the structural edges an entry implies (memdock_sqlite/implied.py): a store built by
`memdock add` with implied edges answers search_facts, get_edge, get_node (its edges: the graph walk),
search_nodes and query exactly as a store built from the same source with edge records (MEMDOCK_IMPLIED_EDGES=0),
on the shared corpora; the two export the same bundle. An entry sent again replaces the edges it implied; a
deleted entry takes its implied edges and their facts with it; an implied edge naming what is not stored is
refused; a run killed midway and run again ends with the same store."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes
from sqlite.test_derived_edges import _clean, _questions, answers
from support.sqlite_helpers import sqlite_backend

from memdock.bundle import BundleReader
from memdock.chunking import ChunkOptions
from memdock.engine.ledger import Ledger
from memdock.importers import base
from memdock.importers.onepass import ImportFeed
from memdock.sdk.implied import KINDS

pytestmark = pytest.mark.timeout(1200)
_NOW = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


class _Clock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return _NOW


def _add(store: Path, source: Path, fmt: str, *, implied: bool, mp: pytest.MonkeyPatch) -> Any:
    mp.setattr(base, "datetime", _Clock)  # both stores' records carry the same ingestion_time
    mp.setenv("MEMDOCK_IMPLIED_EDGES", "1" if implied else "0")
    b = sqlite_backend(store, workers=1)
    b.index(ImportFeed([source], fmt, ChunkOptions()))
    return b


def _exported(b: Any, out: Path) -> dict[str, list[bytes]]:
    b.export(out)
    reader = BundleReader(out)
    return {
        t: sorted(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in reader.records(t))
        for t in ("thread", "entry", "entity", "edge", "chunk")
    }


def _queries(b: Any, q: dict[str, Any]) -> dict[str, Any]:
    out = answers(b, q)
    for text in q["queries"]:
        out[f"query {text}"] = _clean(b.call("query", {"text": text, "limit": 10}))
    return out


def _structural_rows(store: Path) -> int:
    ledger = Ledger.reader(store / "ledger.sqlite")
    try:
        return sum(1 for rid, _, _, rtype in ledger.records() if rtype == "edge" and rid.split(":")[1] in KINDS)
    finally:
        ledger.close()


def _links(store: Path) -> int:
    conn = sqlite3.connect(store / "data" / "memory.sqlite")
    try:
        return int(conn.execute("SELECT count(*) FROM links").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_an_implied_store_answers_as_an_explicit_one(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    rel, fmt = CORPORA[name]
    source = write_notes(shared_data / rel, tmp_path / "notes.jsonl") if name == "notes" else shared_data / rel
    explicit = _add(tmp_path / "explicit", source, fmt, implied=False, mp=monkeypatch)
    implied = _add(tmp_path / "implied", source, fmt, implied=True, mp=monkeypatch)
    try:
        want = _exported(explicit, tmp_path / "out-explicit")
        assert _exported(implied, tmp_path / "out-implied") == want
        (tmp_path / "q").mkdir()
        q = _questions(tmp_path / "out-explicit")
        before, after = _queries(explicit, q), _queries(implied, q)
    finally:
        explicit.close()
        implied.close()
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert _structural_rows(tmp_path / "implied") == 0 < _structural_rows(tmp_path / "explicit")
    assert _links(tmp_path / "implied") == _links(tmp_path / "explicit") > 0
