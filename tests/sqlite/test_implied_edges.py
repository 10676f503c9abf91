"""The sqlite adapter derives the structural edges an entry implies (memdock_sqlite/implied.py): a store built by
`memdock add` with implied edges answers search_facts, get_edge, get_node (its edges: the graph walk),
search_nodes and query exactly as a store built from the same source with edge records (MEMDOCK_IMPLIED_EDGES=0),
on the shared corpora; the two export the same bundle. An entry sent again replaces the edges it implied; a
deleted entry takes its implied edges and their facts with it; an implied edge naming what is not stored is
refused; a run killed midway and run again ends with the same store."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes
from sqlite.test_derived_edges import _clean, _questions, answers
from support.parallel_helpers import ledger_of
from support.sqlite_helpers import sqlite_backend

from memdock.bundle import BundleReader, BundleWriter
from memdock.chunking import ChunkOptions
from memdock.engine.ledger import Ledger
from memdock.errors import MemdockError
from memdock.importers import base
from memdock.importers.onepass import ImportFeed
from memdock.sdk.implied import KEY, KINDS, edge_id

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


def both_ways(shared_data: Path, tmp_path: Path, mp: pytest.MonkeyPatch, name: str, add: Any) -> None:
    """Stores of corpus NAME built by ADD implied and explicit export the same bundle and give the same full
    answers to the corpus's questions; only the explicit one keeps structural ledger rows."""
    rel, fmt = CORPORA[name]
    source = write_notes(shared_data / rel, tmp_path / "notes.jsonl") if name == "notes" else shared_data / rel
    explicit = add(tmp_path / "explicit", source, fmt, implied=False, mp=mp)
    implied = add(tmp_path / "implied", source, fmt, implied=True, mp=mp)
    try:
        want = _exported(explicit, tmp_path / "out-explicit")
        assert _exported(implied, tmp_path / "out-implied") == want
        q = _questions(tmp_path / "out-explicit")
        before, after = _queries(explicit, q), _queries(implied, q)
    finally:
        explicit.close()
        implied.close()
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert _structural_rows(tmp_path / "implied") == 0 < _structural_rows(tmp_path / "explicit")


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_an_implied_store_answers_as_an_explicit_one(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    both_ways(shared_data, tmp_path, monkeypatch, name, _add)
    assert _links(tmp_path / "implied") == _links(tmp_path / "explicit") > 0


CANARY = "zq-canary-implied-5120-heliotrope"


def _notes(path: Path, order: list[str], bodies: dict[str, str]) -> Path:
    with open(path, "wb") as f:
        for k in order:
            f.write(orjson.dumps({"id": k, "thread": "t", "author": "ann", "text": bodies[k]}) + b"\n")
    return path


def _ids(b: Any, kind: str, source: str, target: str) -> dict[str, bool]:
    eid = edge_id(kind, source, target)
    return {eid: b.call("get_edge", {"id": eid}).get("item") is not None}


def _edge_answers(b: Any, pairs: list[tuple[str, str, str]], words: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind, source, target in pairs:
        eid = edge_id(kind, source, target)
        out[eid] = _clean(b.call("get_edge", {"id": eid}))
    for w in words:
        out[w] = _clean(b.call("search_facts", {"text": w, "limit": 50}))
    for node in ("entry:a", "entry:b", "entry:c"):
        out[node] = _clean(b.call("get_node", {"id": node}))
    return out


def resend(tmp_path: Path, mp: pytest.MonkeyPatch, add: Any, measure: Any = None) -> tuple[Any, Any, Any]:
    """Two stores of three notes (one built implied, one explicit, by ADD), each re-added with b moved after c and
    naming cyd instead of bob; returns, by store, which of the pairs' edges each holds, the edges' and facts' full
    answers, and MEASURE of the store (None when not given)."""
    bodies = {"a": "the crane schedule", "b": "ask @bob about the crane", "c": "the harbour opens at nine"}
    first = _notes(tmp_path / "v1.jsonl", ["a", "b", "c"], bodies)
    stores = {}
    for label, implied in (("implied", True), ("explicit", False)):
        stores[label] = add(tmp_path / label, first, "jsonl", implied=implied, mp=mp)
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
            mp.setenv("MEMDOCK_IMPLIED_EDGES", "1" if label == "implied" else "0")
            b.index(ImportFeed([second], "jsonl", ChunkOptions()))
        got = {k: _edge_answers(b, pairs, ["follows", "bob", "cyd", "crane"]) for k, b in stores.items()}
        held = {k: [bool(got[k][edge_id(*p)].get("item")) for p in pairs] for k in stores}
        measured = {k: measure(b) for k, b in stores.items()} if measure else None
    finally:
        for b in stores.values():
            b.close()
    return held, got, measured


def test_an_entry_sent_again_replaces_the_edges_it_implied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held, got, _ = resend(tmp_path, monkeypatch, _add)
    assert held["implied"] == [False, False, True, True, False, True], held
    assert got["implied"] == got["explicit"]


def _threads(path: Path, bodies: list[str]) -> Path:
    with open(path, "wb") as f:
        for k, text in enumerate(bodies):
            note = {"id": f"n{k}", "thread": f"t{k % 3}", "author": "ann", "text": text}
            f.write(orjson.dumps(note) + b"\n")
    return path


def test_small_batches_split_an_entrys_edges_and_the_store_is_the_explicit_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of 4 records put an entry's links in two batches (its follows and mentions in the next), on a
    store that had no links and on one that has (a second add sending some entries again with other neighbours
    and mentions): the links written straight from the entries are those the records make, rowids and
    facts included."""
    words = ["crane", "harbour", "nine", "schedule", "tide", "pier", "rope", "gull", "anchor", "buoy"]
    first = [f"ask @bob and @cyd about the {w}" if k % 2 else f"the {w} at dawn" for k, w in enumerate(words)]
    seed = tmp_path / "seed"  # a thread, so the adds below write in place, the first into a store with no links
    with BundleWriter(seed, "corpus") as w:
        w.write("thread", {"id": "seed", "title": "seed", "format": "jsonl", "ingestion_time": "2026-01-01T00:00:00Z"})
    second = [f"ask @dan about the {w} again" if k % 3 == 0 else t for k, (w, t) in enumerate(zip(words, first))]
    stores: dict[str, Any] = {}
    got: dict[str, Any] = {}
    try:
        for label, implied in (("implied", True), ("explicit", False)):
            monkeypatch.setattr(base, "datetime", _Clock)
            monkeypatch.setenv("MEMDOCK_IMPLIED_EDGES", "1" if implied else "0")
            b = stores[label] = sqlite_backend(tmp_path / label, workers=1, config={"batch_size": 4})
            b.index(seed)
            b.index(ImportFeed([_threads(tmp_path / "n.jsonl", first)], "jsonl", ChunkOptions()))
            got[label] = [_exported(b, tmp_path / f"{label}-1"), _links_of(tmp_path / label)]
            b.index(ImportFeed([_threads(tmp_path / "n.jsonl", second[:7])], "jsonl", ChunkOptions()))
            got[label] += [_exported(b, tmp_path / f"{label}-2"), _links_of(tmp_path / label)]
            got[label].append(_clean(b.call("search_facts", {"text": "ann mentions", "limit": 100})))
    finally:
        for b in stores.values():
            b.close()
    assert got["implied"] == got["explicit"]
    assert got["implied"][1] != got["implied"][3]  # the second add changed links


def _links_of(store: Path) -> list[tuple[int, ...]]:
    conn = sqlite3.connect(store / "data" / "memory.sqlite")
    try:
        return conn.execute("SELECT rowid, key, code, source, target FROM links ORDER BY rowid").fetchall()
    finally:
        conn.close()


def deleted(tmp_path: Path, mp: pytest.MonkeyPatch, add: Any) -> Any:
    """A store of three notes built implied by ADD, b (whose text holds CANARY) deleted: the delete names b and its
    derived edges, and no fact or edge of b is found after; returns what get_node then says of b."""
    bodies = {"a": "the crane schedule", "b": f"ask @bob about {CANARY}", "c": "the harbour opens at nine"}
    source = _notes(tmp_path / "n.jsonl", ["a", "b", "c"], bodies)
    b = add(tmp_path / "s", source, "jsonl", implied=True, mp=mp)
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
    return node


def test_a_deleted_entry_takes_its_implied_edges_and_their_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert deleted(tmp_path, monkeypatch, _add) is None
    conn = sqlite3.connect(tmp_path / "s" / "data" / "memory.sqlite")
    try:
        node = conn.execute("SELECT count(*) FROM node_rows WHERE id = 'entry:b'").fetchone()[0]
    finally:
        conn.close()
    assert node == 0


def _implied_bundle(path: Path, spec: dict[str, Any]) -> Path:
    now = "2026-01-01T00:00:00Z"
    with BundleWriter(path, "corpus") as w:
        for t in ("t", "u"):
            w.write("thread", {"id": t, "title": t, "format": "jsonl", "ingestion_time": now})
        w.write("entity", {"id": "entity:person:ann", "entity_type": "person", "name": "ann"})
        w.write("entry", {"id": "e0", "thread_id": "u", "position": 0, "body": "elsewhere", "ingestion_time": now})
        entry = {"thread_id": "t", "ingestion_time": now}
        w.write("entry", {**entry, "id": "e1", "position": 0, "body": "one", KEY: {}})
        w.write("entry", {**entry, "id": "e2", "position": 1, "body": "two", KEY: spec})
    return path


REFUSALS = [
    ({"follows": "e9"}, "implied_edges.follows names e9, which is not in the store"),
    ({"follows": "e0"}, "implied_edges.follows names e0, which is not an entry of thread t"),
    ({"follows": "entity:person:ann"}, "is not an entry of thread t"),
    ({"follows": "e1", "mentions": ["entity:person:zed"]}, "implied_edges.mentions[0] names entity:person:zed"),
    ({"mentions": ["entity:person:ann", "entity:x:e1"]}, "implied_edges.mentions[1]"),
]


def refused(b: Any, tmp_path: Path, spec: dict[str, Any], said: str) -> None:
    """Index into B a bundle whose entry e2 implies SPEC: it is refused saying SAID, and nothing of it is held."""
    try:
        with pytest.raises(MemdockError) as err:
            b.index(_implied_bundle(tmp_path / "b", spec))
        counts = b.counts()
    finally:
        b.close()
    assert said in str(err.value) and "entry e2" in str(err.value)
    assert not counts.get("entry")  # nothing of the refused run is held committed


@pytest.mark.parametrize(("spec", "said"), REFUSALS)
def test_an_implied_edge_naming_what_is_not_stored_is_refused(tmp_path: Path, spec: dict[str, Any], said: str) -> None:
    refused(sqlite_backend(tmp_path / "s", workers=1), tmp_path, spec, said)


def _cli(store: Path, source: Path) -> list[str]:
    return [sys.executable, "-m", "memdock", "add", str(source), "-f", "jsonl", "--data-dir", str(store), "-q"]


def _without_clock(export: dict[str, list[bytes]]) -> dict[str, list[bytes]]:
    def drop(line: bytes) -> bytes:
        rec = orjson.loads(line)
        rec.pop("ingestion_time", None)
        return orjson.dumps(rec, option=orjson.OPT_SORT_KEYS)

    return {t: sorted(map(drop, lines)) for t, lines in export.items()}


def test_kill_9_mid_add_in_the_implied_mode_then_a_rerun_ends_as_a_clean_run(shared_data: Path, tmp_path: Path) -> None:
    notes = write_notes(shared_data / "locomo" / "locomo_dev.json", tmp_path / "notes.jsonl")
    seed = _notes(tmp_path / "seed.jsonl", ["s"], {"s": "a first note, so the big add writes in place"})
    env = {**os.environ, "MEMDOCK_INDEX_STREAM": "0"}  # in place, batch by batch: a kill lands between commits
    stores = {"killed": tmp_path / "killed", "clean": tmp_path / "clean", "explicit": tmp_path / "explicit"}
    for label, store in stores.items():
        mode = {**env, "MEMDOCK_IMPLIED_EDGES": "0" if label == "explicit" else "1"}
        subprocess.run(_cli(store, seed), env=mode, check=True, capture_output=True)
        if label != "killed":
            subprocess.run(_cli(store, notes), env=mode, check=True, capture_output=True)
    wal = stores["killed"] / "data" / "memory.sqlite-wal"
    start = wal.stat().st_size if wal.exists() else 0
    proc = subprocess.Popen(_cli(stores["killed"], notes), env=env, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 300
    while not (wal.exists() and wal.stat().st_size > start + 256 * 1024):  # the adapter is writing batches
        assert proc.poll() is None, f"the add ended before it could be killed: {proc.stderr.read()!r}"  # type: ignore[union-attr]
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    subprocess.run(_cli(stores["killed"], notes), env=env, check=True, capture_output=True)
    assert ledger_of(stores["killed"]) == ledger_of(stores["clean"])
    assert _links(stores["killed"]) == _links(stores["clean"]) == _links(stores["explicit"])
    exports = {}
    for label, store in stores.items():
        b = sqlite_backend(store, workers=1)
        try:
            exports[label] = _without_clock(_exported(b, tmp_path / f"out-{label}"))
        finally:
            b.close()
    assert exports["killed"] == exports["clean"] == exports["explicit"]
