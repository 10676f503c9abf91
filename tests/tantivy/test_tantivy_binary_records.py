"""Layout 8 (threads', entries', entities' and chunks' stored records in binary, memdock_tantivy.binrec) answers as
main's adapter (layout 7) did: the adapter as of MAIN (taken from git) and this one each `memdock add` a shared
corpus with implied edges; every index file but the two doc stores is the same byte for byte (postings, terms,
norms: the same documents in the same order) and both doc stores are smaller; the two export the same bundle;
search_facts (scores included), get_edge, get_node, search_nodes and query answer alike; deletes remove the same
records and leave the same lookups. Main's layout 7 store is read and written by this adapter in its own layout
(file for file what main's adapter writes), and answers alike. binrec gives back exactly the record it took. Layout
8 also finds an entry its chunks hold through them, so the graph's postings and search_nodes' answers are left out
of the comparison with main's (test_tantivy_chunked_entries.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes
from sqlite.test_derived_edges import _questions
from sqlite.test_implied_edges import _exported, _queries
from tantivy_support import backend, but_nodes, chunk_files, gate, in_adapter
from test_tantivy_edge_docs_main import _add, _deleted, index_files
from test_tantivy_layout import doomed, layout, old_adapter

from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

MAIN = "701153e2a5cac44e752fc6a05f920b98476b850a"  # layout 7: records other than structural edges' as JSON
STORE = "index/*.store"
pytestmark = [*gate, pytest.mark.timeout(1200)]

FORMS = """
import sys, tantivy
from pathlib import Path
from memdock_tantivy import binrec, store
indexes = store.open_index(Path(sys.argv[1]), write=False)
for index, kinds in ((indexes.graph, ("thread", "entry", "entity")), (indexes.chunks, ("chunk",))):
    searcher = index.searcher()
    for kind in kinds:
        hits = searcher.search(tantivy.Query.term_query(index.schema, "kind", kind), 1000000).hits
        stored = [searcher.doc(addr).get_first("rec") for _, addr in hits]
        raw = [indexes.packer.unpack(r) for r in stored]
        framed = sum(r[:4] == b"\\x28\\xb5\\x2f\\xfd" for r in stored)
        print(kind, sum(r[:1] == binrec.MARK for r in raw), sum(r[:1] == b"{" for r in raw), framed)
"""


def forms(store: Path) -> dict[str, tuple[int, ...]]:
    """Per kind, how many records are stored in binrec's form and how many as JSON (chunks once unpacked), and how
    many are packed in zstd frames."""
    out = in_adapter(FORMS, str(store / "data")).split("\n")
    return {kind: tuple(int(n) for n in counts) for kind, *counts in (line.split() for line in out if line)}


def doc_stores(store: Path) -> tuple[int, ...]:
    return tuple(sum(p.stat().st_size for p in (store / "data" / d).glob("*.store")) for d in ("index", "chunks"))


@pytest.fixture(scope="module")
def main_adapter(tmp_path_factory) -> Path:
    return old_adapter(tmp_path_factory.mktemp("main-adapter"), MAIN)


@pytest.mark.parametrize("name", ("watercooler", "notes", "irc"))
def test_layout_8_answers_as_main_s_layout_7_did_in_less_space(
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
    assert (layout(tmp_path / "old"), layout(tmp_path / "new")) == (7, 8)
    files, main_files = index_files(tmp_path / "new"), index_files(tmp_path / "old")
    assert files.pop(STORE) != main_files.pop(STORE)
    assert chunk_files(files) == chunk_files(main_files)  # chunks' records JSON, packed alike
    new, old = doc_stores(tmp_path / "new"), doc_stores(tmp_path / "old")
    assert new[0] < old[0] and new[1] == old[1], (new, old)
    now_forms, main_forms = forms(tmp_path / "new"), forms(tmp_path / "old")
    assert now_forms.pop("chunk") == main_forms.pop("chunk")  # JSON, packed alike
    assert all(v[1] == 0 for v in now_forms.values()) and all(v[0] == 0 for v in main_forms.values())
    assert {k: v[0] for k, v in now_forms.items()} == {k: v[1] for k, v in main_forms.items()}

    doomed_ids = [*doomed(q), q["edges"][-1]]
    for label in ("old", "new"):
        shutil.copytree(tmp_path / label, tmp_path / f"{label}-deleted")
    gone_main = _deleted(SubprocessBackend(Registry().get(main_adapter), tmp_path / "old-deleted"), doomed_ids, q)
    gone_this = _deleted(backend(tmp_path / "new-deleted"), doomed_ids, q)
    assert gone_main[0] and gone_main == gone_this


def test_main_s_layout_7_store_is_read_and_written_in_its_own_layout(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main_adapter: Path
) -> None:
    """Main's store, read by this adapter as it is (layout 7, `memdock health` naming layout 8), then a source
    added to it by this adapter and to a copy by main's: the two copies end the same, file for file (this adapter
    wrote layout 7's JSON records there), and answer alike."""
    rel, fmt = CORPORA["notes"]
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
        assert health.checks["layout"] == 7 and "store layout 7" in health.message and "layout 8" in health.message
        assert _queries(now, q) == _queries(was, q)
        for b in (was, now):
            _add(b, more, more_fmt, monkeypatch)
        assert _queries(now, q) == _queries(was, q)
    finally:
        was.close()
        now.close()
    assert layout(tmp_path / "by-this") == 7 and all(v[0] == 0 for v in forms(tmp_path / "by-this").values())
    assert index_files(tmp_path / "by-this") == index_files(tmp_path / "by-main")


ROUND_TRIP = r"""
import json
from memdock_tantivy import binrec as b

entry, text = "entry:0123456789abcdef", "Ann: the cache was slow.\nBo: fixed."
chunk = {"kind": "chunk", "id": "chunk:fedcba9876543210", "entry_id": entry, "thread_id": "thread:lab:0a1b2c3d",
         "position": 2, "text": text, "start": 7, "end": 60, "author": "ann"}
records = [
    chunk,
    {**chunk, "id": "chunk:made-otherwise"},
    {**chunk, "id": "chunk:FEDCBA9876543210"},  # upper case: not an id's hex tail, kept as text
    {**chunk, "position": True},  # not an int: the id is kept
    {k: v for k, v in chunk.items() if k != "entry_id"},
    {"kind": "entry", "id": "entry:ABCDEF0123456789", "thread_id": "t", "position": 0, "in_chunks": True,
     "event_time": "2024-01-02T03:04:05Z", "metadata": {"a": [1, 2.5, None]}, "weight": 0.1, "n": -3,
     "big": 2**70, "neg": -(2**70), "zero": 0, "x" * 300: "é" * 300, "ünï": False, "none": None, "": ""},
    {"kind": "entity", "id": "entity:person:0123456789abcdeg", "name": "x:0123456789abcdef", "aliases": ["a", "b"]},
    {"kind": "thread", "id": ":0123456789abcdef", "title": "y" * 5000, "thread_id": ":0123456789abcdef"},
]
raw = [b.encode(r) for r in records]
back = [b.decode(x) for x in raw]
out = {"same": [x == r and list(x) == list(r) for x, r in zip(back, records)],
       "marked": [x[:1] == b.MARK for x in raw],
       "hex": [bytes.fromhex(records[i]["id"][-16:]) in raw[i] for i in (0, 2)],
       "shorter": [len(x) < len(json.dumps(r)) for x, r in zip(raw, records)]}
errors = []
for bad in (raw[0][:-3], raw[5][:-1], b.MARK + b"\x01\x63", b.MARK + b"\xf0\x00"):
    try:
        b.decode(bad)
        errors.append(None)
    except ValueError as exc:
        errors.append(str(exc)[:40])
out["errors"] = errors
print(json.dumps(out))
"""


def test_binary_records_give_back_exactly_what_they_took() -> None:
    """Any record, key for key in its order (odd values, unknown keys, long strings); an id's lower-case hex tail is
    stored as its 8 bytes, an upper-case one as text; a cut record is an error."""
    got = json.loads(in_adapter(ROUND_TRIP))
    assert got["same"] == [True] * 8 and got["marked"] == [True] * 8
    assert got["hex"] == [True, False]
    assert got["shorter"] == [True] * 8
    assert all(e is not None and "binary record" in e for e in got["errors"]), got["errors"]
