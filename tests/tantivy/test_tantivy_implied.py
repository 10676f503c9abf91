"""The tantivy adapter derives the structural edges an entry implies (memdock_tantivy/implied.py): a store built by
`memdock add` with implied edges answers search_facts, get_edge, get_node (its edges: the graph walk),
search_nodes and query exactly as a store built from the same source with edge records (MEMDOCK_IMPLIED_EDGES=0),
on the shared corpora, and the two export the same bundle. An entry sent again replaces the edges it implied; a
deleted entry takes its implied edges and their facts with it; an implied edge naming what is not stored is
refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes
from sqlite.test_derived_edges import _questions
from sqlite.test_implied_edges import (
    CANARY,
    _Clock,
    _edge_answers,
    _exported,
    _ids,
    _implied_bundle,
    _notes,
    _queries,
    _structural_rows,
)
from tantivy_support import backend, gate

from memdock.chunking import ChunkOptions
from memdock.errors import MemdockError
from memdock.importers import base
from memdock.importers.onepass import ImportFeed
from memdock.sdk.implied import edge_id

pytestmark = [*gate, pytest.mark.timeout(1200)]


def _add(store: Path, source: Path, fmt: str, *, implied: bool, mp: pytest.MonkeyPatch) -> Any:
    mp.setattr(base, "datetime", _Clock)  # both stores' records carry the same ingestion_time
    mp.setenv("MEMDOCK_IMPLIED_EDGES", "1" if implied else "0")
    b = backend(store)
    result = b.index(ImportFeed([source], fmt, ChunkOptions()))
    assert bool(result.details.get("implied_edges")) is implied
    return b


def _edge_docs(b: Any) -> int:
    return int(b.call("healthcheck", {})["checks"]["edge"])


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
        q = _questions(tmp_path / "out-explicit")
        before, after = _queries(explicit, q), _queries(implied, q)
        edges = (_edge_docs(explicit), _edge_docs(implied))
    finally:
        explicit.close()
        implied.close()
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert _structural_rows(tmp_path / "implied") == 0 < _structural_rows(tmp_path / "explicit")
    assert edges[0] == edges[1] > 0


def test_an_entry_sent_again_replaces_the_edges_it_implied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bodies = {"a": "the crane schedule", "b": "ask @bob about the crane", "c": "the harbour opens at nine"}
    first = _notes(tmp_path / "v1.jsonl", ["a", "b", "c"], bodies)
    stores = {}
    for label, implied in (("implied", True), ("explicit", False)):
        stores[label] = _add(tmp_path / label, first, "jsonl", implied=implied, mp=monkeypatch)
    before = {k: _ids(b, "follows", "entry:b", "entry:a") for k, b in stores.items()}
    assert before == {k: {edge_id("follows", "entry:b", "entry:a"): True} for k in stores}
    again = {"a": bodies["a"], "b": "ask @cyd about the crane", "c": bodies["c"]}
    second = _notes(tmp_path / "v1.jsonl", ["a", "c", "b"], again)  # b now follows c, and names cyd, not bob
    ent = {name: f"entity:person:{base.digest('person', name)}" for name in ("bob", "cyd")}
    pairs = [
        ("follows", "entry:b", "entry:a"),
        ("follows", "entry:c", "entry:b"),
        ("follows", "entry:c", "entry:a"),
        ("follows", "entry:b", "entry:c"),
        ("mentions", "entry:b", ent["bob"]),
        ("mentions", "entry:b", ent["cyd"]),
    ]
    try:
        for label, b in stores.items():
            monkeypatch.setenv("MEMDOCK_IMPLIED_EDGES", "1" if label == "implied" else "0")
            b.index(ImportFeed([second], "jsonl", ChunkOptions()))
        got = {k: _edge_answers(b, pairs, ["follows", "bob", "cyd", "crane"]) for k, b in stores.items()}
        held = {k: [bool(got[k][edge_id(*p)].get("item")) for p in pairs] for k in stores}
        edges = {k: _edge_docs(b) for k, b in stores.items()}
    finally:
        for b in stores.values():
            b.close()
    assert held["implied"] == [False, False, True, True, False, True], held
    assert got["implied"] == got["explicit"]
    assert edges["implied"] == edges["explicit"]


def test_a_deleted_entry_takes_its_implied_edges_and_their_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bodies = {"a": "the crane schedule", "b": f"ask @bob about {CANARY}", "c": "the harbour opens at nine"}
    source = _notes(tmp_path / "n.jsonl", ["a", "b", "c"], bodies)
    b = _add(tmp_path / "s", source, "jsonl", implied=True, mp=monkeypatch)
    try:
        assert b.call("search_facts", {"text": CANARY, "limit": 10})["hits"]
        gone = b.delete(["entry:b"])
        after = _edge_answers(b, [("follows", "entry:b", "entry:a"), ("follows", "entry:c", "entry:b")], [CANARY])
        node = b.call("get_node", {"id": "entry:b"}).get("item")
    finally:
        b.close()
    assert "entry:b" in gone.deleted
    assert edge_id("follows", "entry:b", "entry:a") in gone.deleted  # the cascade names the derived edges too
    assert not after[CANARY]["hits"]
    assert after[edge_id("follows", "entry:b", "entry:a")].get("item") is None
    assert node is None


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ({"follows": "e9"}, "implied_edges.follows names e9, which is not in the store"),
        ({"follows": "e0"}, "implied_edges.follows names e0, which is not an entry of thread t"),
        ({"follows": "entity:person:ann"}, "is not an entry of thread t"),
        ({"follows": "e1", "mentions": ["entity:person:zed"]}, "implied_edges.mentions[0] names entity:person:zed"),
        ({"mentions": ["entity:person:ann", "entity:x:e1"]}, "implied_edges.mentions[1]"),
    ],
)
def test_an_implied_edge_naming_what_is_not_stored_is_refused(tmp_path: Path, spec: dict[str, Any], said: str) -> None:
    b = backend(tmp_path / "s")
    try:
        with pytest.raises(MemdockError) as err:
            b.index(_implied_bundle(tmp_path / "b", spec))
        counts = b.counts()
    finally:
        b.close()
    assert said in str(err.value) and "entry e2" in str(err.value)
    assert not counts.get("entry")  # nothing of the refused run is held committed
