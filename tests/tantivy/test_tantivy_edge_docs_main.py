"""The implied edges' documents built the short way (docs.made_edge_doc) leave the store main's adapter writes: the
adapter as of MAIN (taken from git) and this one each `memdock add` a shared corpus with implied edges; the graph
and chunk indexes hold the same files, byte for byte (postings, terms, norms, stored records), so search_facts
(scores included), get_edge, get_node (its edges: the graph walk), search_nodes and query answer alike, and deletes
remove the same records and leave the same lookups."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes
from sqlite.test_derived_edges import _questions
from sqlite.test_implied_edges import _Clock, _exported, _queries
from tantivy_support import backend, gate
from test_tantivy_layout import doomed, old_adapter

from memdock.chunking import ChunkOptions
from memdock.importers import base
from memdock.importers.onepass import ImportFeed
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

MAIN = "9f02a372d215afe8a897576988c46ded67e3074e"  # the edges' documents built the long way
CORPUS_NAMES = ("watercooler", "notes", "irc")  # replies_to records among implied edges; 1 thread; many threads
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


def _deleted(b: SubprocessBackend, ids: list[str], q: dict[str, Any]) -> tuple[Any, ...]:
    try:
        gone = b.delete(ids)
        lookups = {k: v for k, v in _queries(b, q).items() if k.startswith(("edge ", "node "))}
        return sorted(gone.deleted), sorted(gone.not_found), lookups
    finally:
        b.close()


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_this_adapter_writes_and_answers_as_main_did(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main_adapter: Path, name: str
) -> None:
    rel, fmt = CORPORA[name]
    source = write_notes(shared_data / rel, tmp_path / "notes.jsonl") if name == "notes" else shared_data / rel
    was = _add(SubprocessBackend(Registry().get(main_adapter), tmp_path / "main", workers=1), source, fmt, monkeypatch)
    now = _add(backend(tmp_path / "this", workers=1), source, fmt, monkeypatch)
    try:
        exports = [_exported(b, tmp_path / f"out-{label}") for label, b in (("main", was), ("this", now))]
        q = _questions(tmp_path / "out-main")
        before, after = (_queries(b, q) for b in (was, now))
    finally:
        for b in (was, now):
            b.close()
    assert exports[0] == exports[1]
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    files = index_files(tmp_path / "this")
    assert files["index/*.store"] and files == index_files(tmp_path / "main")

    doomed_ids = [*doomed(q), q["edges"][-1]]
    for label in ("main", "this"):
        shutil.copytree(tmp_path / label, tmp_path / f"{label}-deleted")
    gone_main = _deleted(SubprocessBackend(Registry().get(main_adapter), tmp_path / "main-deleted"), doomed_ids, q)
    gone_this = _deleted(backend(tmp_path / "this-deleted"), doomed_ids, q)
    assert gone_main[0] and gone_main == gone_this
