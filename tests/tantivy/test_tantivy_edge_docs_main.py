"""Layout 7 (structural edges' stored records in binary, compact_edges) and the implied edges' documents built the
short way (docs.made_edge_doc) answer as main's adapter (layout 6) did: the adapter as of MAIN (taken from git) and
this one each `memdock add` a shared corpus with implied edges; every index file but the graph's doc store is the
same byte for byte (postings, terms, norms: the same documents in the same order; the graph's only up to layout 7); the
two export the same bundle; search_facts (scores included), get_edge, get_node (its edges: the graph walk),
search_nodes and query answer alike; deletes remove the same records and leave the same lookups. Main's layout 6
store is read and written by this adapter in its own layout, and main's adapter still reads it afterwards. Since
layout 8 the new store's search_nodes and graph postings differ by design (entries found through their chunks:
tantivy_support.but_nodes, chunk_files)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes
from sqlite.test_derived_edges import _questions
from sqlite.test_implied_edges import _Clock, _exported, _queries
from support.history import past_step
from tantivy_support import backend, but_nodes, chunk_files, gate, in_adapter
from test_tantivy_layout import doomed, layout, old_adapter

from memdock.chunking import ChunkOptions
from memdock.importers import base
from memdock.importers.onepass import ImportFeed
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

MAIN = "9f02a372d215afe8a897576988c46ded67e3074e"  # layout 6; the edges' documents built the long way
STORE = "index/*.store"
pytestmark = [*gate, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def main_adapter(tmp_path_factory) -> Path:
    return old_adapter(tmp_path_factory.mktemp("main-adapter"), MAIN)


def _add(b: SubprocessBackend, source: Path, fmt: str, mp: pytest.MonkeyPatch) -> SubprocessBackend:
    mp.setattr(base, "datetime", _Clock)  # both stores' records carry the same ingestion_time
    mp.setenv("MEMDOCK_IMPLIED_EDGES", "1")
    assert b.index(ImportFeed([source], fmt, ChunkOptions())).details.get("implied_edges")
    return b


def index_files(store: Path) -> dict[str, list[str]]:
    """Each index's files by kind, as the sorted digests of their bytes (segment names are random; meta.json names
    them)."""
    out: dict[str, list[str]] = {}
    for path in sorted((store / "data").glob("*/*.*")):
        if path.suffix not in (".json", ".lock"):
            key = f"{path.parent.name}/*{path.suffix}"
            out.setdefault(key, []).append(hashlib.sha256(path.read_bytes()).hexdigest())
    return {k: sorted(v) for k, v in out.items()}


def doc_store(store: Path) -> int:
    return sum(p.stat().st_size for p in (store / "data" / "index").glob("*.store"))


FORMS = """
import sys, tantivy
from pathlib import Path
from memdock_tantivy import compact_edges as c, store
graph = store.open_index(Path(sys.argv[1]), write=False).graph
searcher = graph.searcher()
hits = searcher.search(tantivy.Query.term_query(graph.schema, "kind", "edge"), 1000000).hits
raw = [searcher.doc(addr).get_first("rec")[:1] for _, addr in hits]
print(raw.count(c.MARK), raw.count(c.MARK_BINARY), len(raw) - raw.count(c.MARK) - raw.count(c.MARK_BINARY))
"""


def edge_forms(store: Path) -> tuple[int, ...]:
    """How many of the graph index's edges are stored in compact text (layouts 5-6), in binary (7), otherwise (JSON;
    binrec's form from layout 8)."""
    return tuple(int(n) for n in in_adapter(FORMS, str(store / "data")).split())


def _deleted(b: SubprocessBackend, ids: list[str], q: dict[str, Any]) -> tuple[Any, ...]:
    try:
        gone = b.delete(ids)
        lookups = {k: v for k, v in _queries(b, q).items() if k.startswith(("edge ", "node "))}
        return sorted(gone.deleted), sorted(gone.not_found), lookups
    finally:
        b.close()


@pytest.mark.parametrize("name", past_step("irc"))
def test_layout_7_answers_as_main_s_layout_6_did_in_less_space(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main_adapter: Path, name: str
) -> None:
    rel, fmt = CORPORA[name]
    source = write_notes(shared_data / rel, tmp_path / "notes.jsonl") if name == "notes" else shared_data / rel
    was = _add(SubprocessBackend(Registry().get(main_adapter), tmp_path / "old", workers=1), source, fmt, monkeypatch)
    now = _add(backend(tmp_path / "new", workers=1), source, fmt, monkeypatch)
    try:
        exports = [_exported(b, tmp_path / f"out-{label}") for label, b in (("main", was), ("this", now))]
        q = _questions(tmp_path / "out-main")
        before, after = (but_nodes(_queries(b, q)) for b in (was, now))
    finally:
        for b in (was, now):
            b.close()
    assert exports[0] == exports[1]
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert (layout(tmp_path / "old"), layout(tmp_path / "new")) == (6, 8)
    files, main_files = index_files(tmp_path / "new"), index_files(tmp_path / "old")
    assert files.pop(STORE) != main_files.pop(STORE)
    assert chunk_files(files) == chunk_files(main_files)
    assert doc_store(tmp_path / "new") < doc_store(tmp_path / "old")
    text, binary, as_json = edge_forms(tmp_path / "old")
    assert text > 0 == binary and edge_forms(tmp_path / "new") == (0, text, as_json)

    doomed_ids = [*doomed(q), q["edges"][-1]]
    for label in ("old", "new"):
        shutil.copytree(tmp_path / label, tmp_path / f"{label}-deleted")
    gone_main = _deleted(SubprocessBackend(Registry().get(main_adapter), tmp_path / "old-deleted"), doomed_ids, q)
    gone_this = _deleted(backend(tmp_path / "new-deleted"), doomed_ids, q)
    assert gone_main[0] and gone_main == gone_this


@pytest.mark.parametrize("name", ["notes"])
def test_main_s_layout_6_store_is_read_and_written_in_its_own_layout(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main_adapter: Path, name: str
) -> None:
    """Main's store, read by this adapter as it is (layout 6, `memdock health` naming layout 8), then a source
    added to it by this adapter and to a copy by main's: the two copies end the same, file for file (this adapter
    wrote layout 6's edge records there), and answer alike."""
    rel, fmt = CORPORA[name]
    source = write_notes(shared_data / rel, tmp_path / "notes.jsonl")
    more, more_fmt = shared_data / CORPORA["irc"][0], CORPORA["irc"][1]
    main_of = Registry().get(main_adapter)
    _add(SubprocessBackend(main_of, tmp_path / "old", workers=1), source, fmt, monkeypatch).close()
    for label in ("by-main", "by-this"):
        shutil.copytree(tmp_path / "old", tmp_path / label)
    now = backend(tmp_path / "by-this", workers=1)
    was = SubprocessBackend(main_of, tmp_path / "by-main", workers=1)
    try:
        _exported(was, tmp_path / "out")
        q = _questions(tmp_path / "out")
        health = now.healthcheck()
        assert health.checks["layout"] == 6 and "store layout 6" in health.message and "layout 8" in health.message
        assert _queries(now, q) == _queries(was, q)
        for b in (was, now):
            _add(b, more, more_fmt, monkeypatch)
        assert _queries(now, q) == _queries(was, q)
    finally:
        was.close()
        now.close()
    assert layout(tmp_path / "by-this") == 6 and edge_forms(tmp_path / "by-this")[1] == 0
    assert index_files(tmp_path / "by-this") == index_files(tmp_path / "by-main")
