"""What the tantivy adapter's graph index spends on structural edges, part by part, in one run.

    pip install -e '.[bench]'
    python bench/tantivy_edges.py [--notes 20000]

`memdock add -b tantivy` of bench/peers.py's short notes, then the graph index built again from the records the
store's journal holds, with the adapter's own document builders, one commit each: as layout 7 writes it, as
layout 6 did (edges' records as text), as layout 5 did (ids' terms as they are), as layout 4 did (edges' records
as JSON, ids as they are), and without each part of an edge document (its fact's terms, its id, its ends, its
stored record, the edge documents altogether), so each part's bytes are the difference to the first row. Then
the chunks' index in one commit, in four (a segment per commit, each with its own terms) and in one with its ids'
terms as layout 5 wrote them. Bytes per file kind of each index, in MB and × the text.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import on_path

on_path("src", "adapters/common", "adapters/tantivy", "bench")

import tantivy  # noqa: E402
from memdock_tantivy import docs, facts, keys, packed, store, store_layout  # noqa: E402
from peers import write_notes  # noqa: E402

from memdock.engine.journal import Journal, read  # noqa: E402
from memdock.sdk import implied  # noqa: E402

Edge = Callable[[dict[str, Any], str, bool, str | None], tantivy.Document | None]
KEYS = ("kind", "source_id", "target_id", "thread_id")
SHORT = keys.Keys(store.schema(), compact=True)  # layout 6's terms
AS_IS = keys.Keys(store.schema(), compact=False)  # layout 5's and before


def journal(store_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """The records the store's journal holds, by type (entries as sent: with their `implied_edges`)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for segment in Journal(store_dir / "journal").segments():
        reader = read(segment)
        for rtype in reader.record_types():
            out.setdefault(rtype, []).extend(reader.records(rtype))
    return out


def records(store_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """The journal's records, each implied entry as itself and the edge records it stands for (sdk/implied.py)."""
    out = journal(store_dir)
    for entry in out.get("entry", []):
        out.setdefault("edge", []).extend(implied.expand(entry))
    out["entry"] = [implied.explicit(entry) for entry in out.get("entry", [])]
    return out


def bare(r: dict[str, Any], fact: str, *, id_: bool = True, ends: bool = True, stored: bool = True) -> Any:
    """An edge document with the parts asked for (fact terms whenever FACT is not empty)."""
    doc = tantivy.Document()
    if id_:
        SHORT.add(doc, "id", r["id"])
    for key in KEYS if ends else ("kind", "thread_id"):
        SHORT.add(doc, key, "edge" if key == "kind" else r[key])
    if fact:
        doc.add_text("fact", fact)
    if stored:
        doc.add_bytes("rec", docs.stored_bytes("edge", r, compact=docs.BINARY))
    return doc


VARIANTS: dict[str, tuple[keys.Keys, Edge]] = {
    "layout 7": (
        SHORT,
        lambda r, fact, ok, kind: docs.edge_doc({**r, "source_kind": kind}, fact, ok, SHORT, compact=docs.BINARY),
    ),
    "layout 6 (edges' records as text)": (
        SHORT,
        lambda r, fact, ok, kind: docs.edge_doc({**r, "source_kind": kind}, fact, ok, SHORT, compact=True),
    ),
    "layout 5 (ids as they are)": (
        AS_IS,
        lambda r, fact, ok, kind: docs.edge_doc({**r, "source_kind": kind}, fact, ok, AS_IS, compact=True),
    ),
    "layout 4 (edges as JSON)": (
        AS_IS,
        lambda r, fact, ok, kind: docs.edge_doc({**r, "source_kind": kind}, fact, ok, AS_IS),
    ),
    "without fact terms": (SHORT, lambda r, fact, ok, kind: bare({**r, "source_kind": kind}, "")),
    "without ids": (SHORT, lambda r, fact, ok, kind: bare({**r, "source_kind": kind}, fact, id_=False)),
    "without ends": (SHORT, lambda r, fact, ok, kind: bare({**r, "source_kind": kind}, fact, ends=False)),
    "without stored record": (SHORT, lambda r, fact, ok, kind: bare(r, fact, stored=False)),
    "without edge documents": (SHORT, lambda r, fact, ok, kind: None),
}


def new_index(folder: Path, searched: tuple[str, ...]) -> tantivy.IndexWriter:
    folder.mkdir(parents=True)
    tantivy.Index(store.schema(), path=str(folder))
    store_layout.settle(folder, searched)
    return store._register(tantivy.Index.open(str(folder))).writer(128_000_000, 1)


def sizes(folder: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in folder.iterdir():
        if f.suffix in (".store", ".idx", ".term", ".fieldnorm"):
            out[f.suffix] = out.get(f.suffix, 0) + f.stat().st_size
    return out


def graph(recs: dict[str, list[dict[str, Any]]], folder: Path, ids: keys.Keys, edge: Edge) -> dict[str, int]:
    """The graph index of RECS with their ids' terms as IDS writes them, each edge as EDGE makes it."""
    known = {r["id"]: {"kind": t, **r} for t in ("thread", "entity", "entry") for r in recs.get(t, [])}
    w = new_index(folder, store.GRAPH_TEXTS)
    for r in recs.get("thread", []):
        w.add_document(docs.thread_doc(r, ids))
    for r in recs.get("entity", []):
        w.add_document(docs.entity_doc(r, ids))
    for r in recs.get("entry", []):
        w.add_document(docs.entry_doc(r, ids, in_chunks=True))
    phrases: dict[str, Any] = {}
    for r in recs.get("edge", []):
        fact, ok, kind = facts.render(known.get, r, phrases)
        doc = edge(r, fact, ok, kind)
        if doc is not None:
            w.add_document(doc)
    w.commit()
    w.wait_merging_threads()
    return sizes(folder)


def chunks(recs: dict[str, list[dict[str, Any]]], folder: Path, commits: int, ids: keys.Keys = SHORT) -> dict[str, int]:
    folder.mkdir(parents=True)
    (folder / "marker.json").write_text("{}")
    packer = packed.Packer(folder, True, folder / "marker.json")
    rows = recs.get("chunk", [])
    packer.train([docs.stored_bytes("chunk", r) for r in rows[: packed.SAMPLES]])
    w = new_index(folder / "index", store.CHUNK_TEXTS)
    every = max(1, -(-len(rows) // commits))
    for i, r in enumerate(rows, 1):
        w.add_document(docs.chunk_doc(r, None, ids, packer.pack))
        if i % every == 0 or i == len(rows):
            w.commit()
    w.wait_merging_threads()
    return sizes(folder / "index")


def show(label: str, found: dict[str, int], text_bytes: int, first: int | None) -> int:
    total = sum(found.values())
    parts = "  ".join(f"{k[1:]} {v / 1e6:5.2f}" for k, v in sorted(found.items()))
    delta = f"{(total - first) / 1e6:+6.2f}" if first is not None else "      "
    print(f"{label:<34} {total / 1e6:7.2f} MB {total / text_bytes:5.2f}× {delta}   {parts}")
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tantivy-edges-", dir=args.tmp))
    try:
        text_bytes = sum(len(t.encode()) for _, t in write_notes(work / "notes.jsonl", args.notes))
        add = ["add", str(work / "notes.jsonl"), "-f", "jsonl", "-b", "tantivy", "--data-dir", str(work / "s"), "-q"]
        subprocess.run([sys.executable, "-m", "memdock", *add], check=True, stdout=subprocess.DEVNULL)
        recs = records(work / "s")
        print(f"{args.notes:,} notes ({text_bytes / 1e6:.2f} MB of text), {len(recs.get('edge', [])):,} edges")
        print(f"{'graph index':<34} {'total':>10} {'×text':>6} {'Δ MB':>6}   by file kind (MB)")
        first = None
        for i, (label, (ids, edge)) in enumerate(VARIANTS.items()):
            total = show(label, graph(recs, work / f"g{i}", ids, edge), text_bytes, first)
            first = total if first is None else first
        print(f"\n{'chunks index':<34} {'total':>10} {'×text':>6} {'Δ MB':>6}   by file kind (MB)")
        one = show("one commit", chunks(recs, work / "c1", 1), text_bytes, None)
        show("four commits", chunks(recs, work / "c4", 4), text_bytes, one)
        show("one commit, ids as they are", chunks(recs, work / "c5", 1, AS_IS), text_bytes, one)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
