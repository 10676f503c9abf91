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
from pipeline.test_add_equivalence import CORPORA
from sqlite.test_implied_edges import (
    REFUSALS,
    _Clock,
    both_ways,
    deleted,
    refused,
    resend,
)
from tantivy_support import backend, gate

from memdock.chunking import ChunkOptions
from memdock.importers import base
from memdock.importers.onepass import ImportFeed

pytestmark = [*gate, pytest.mark.timeout(1200)]


def _add(store: Path, source: Path, fmt: str, *, implied: bool, mp: pytest.MonkeyPatch) -> Any:
    mp.setattr(base, "datetime", _Clock)  # both stores' records carry the same ingestion_time
    mp.setenv("MEMDOCK_IMPLIED_EDGES", "1" if implied else "0")
    b = backend(store, workers=1)
    result = b.index(ImportFeed([source], fmt, ChunkOptions()))
    assert bool(result.details.get("implied_edges")) is implied
    return b


def _edge_docs(b: Any) -> int:
    return int(b.call("healthcheck", {})["checks"]["edge"])


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_an_implied_store_answers_as_an_explicit_one(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    both_ways(shared_data, tmp_path, monkeypatch, name, _add)
    edges = []
    for label in ("explicit", "implied"):
        b = backend(tmp_path / label)
        try:
            edges.append(_edge_docs(b))
        finally:
            b.close()
    assert edges[0] == edges[1] > 0


def test_an_entry_sent_again_replaces_the_edges_it_implied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held, got, edges = resend(tmp_path, monkeypatch, _add, _edge_docs)
    assert held["implied"] == [False, False, True, True, False, True], held
    assert got["implied"] == got["explicit"]
    assert edges["implied"] == edges["explicit"]


def test_a_deleted_entry_takes_its_implied_edges_and_their_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert deleted(tmp_path, monkeypatch, _add) is None


@pytest.mark.parametrize(("spec", "said"), REFUSALS)
def test_an_implied_edge_naming_what_is_not_stored_is_refused(tmp_path: Path, spec: dict[str, Any], said: str) -> None:
    refused(backend(tmp_path / "s"), tmp_path, spec, said)
