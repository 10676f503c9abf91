"""The user's whole path beside the tools a user would pick instead, in one run.

    pip install -e '.[bench]' && memdock adapters install tantivy
    python bench/peers.py [--notes 20000] [--reps 3] [--queries 300] [--markdown-mb 100] [--chunks 100000]
        [--systems ...]

Part 1, short notes: 20,000 notes of real text (consecutive LoCoMo turns and Ubuntu IRC lines from ../shared/data,
joined to ~450 bytes; the corpora hold ~3 MB, so each text recurs about three times, cut at other places) written
as one JSONL file, each with a hashed id (`memdock.ids.digest`, as memdock makes them). Every system starts from
that file: memdock is timed as the user runs it, `memdock add notes.jsonl -f jsonl` in a fresh process (CLI start,
import, chunk, index); each peer parses the JSONL in this process and indexes the texts: raw tantivy-py, raw
tantivy-py at the memdock tantivy adapter's own settings (`tantivy-py-stem`: its analyzer, index options, field norms,
writer heap and threads; `tantivy-py-nostem`, not run unless named in --systems, is that without the stemmer), bm25s
with PyStemmer, LanceDB's native FTS, LlamaIndex's BM25Retriever. Systems run interleaved, in a rotated order each
repetition; the ingest ratio is raw tantivy-py's seconds over the system's, within each repetition.

Part 2, markdown: a ~100 MB folder of watercooler markdown made from the 24 real threads in ../shared/data (each
copy a real thread file under a new name, its Entry-ID comments left out so the copies do not claim one id).
`memdock add -f watercooler` on it beside raw tantivy-py indexing its entries (files split at the `---` lines).

For each: ingest seconds and ratio to tantivy-py (min-max over the repetitions), store bytes over text bytes,
query p50/p99 (ms; memdock through `memdock.Memory`, in-process worker), and top-10 overlap with tantivy-py
(shared hits over the longer list, by id); for memdock, the seconds of a second `memdock add` of the unchanged
source over the first's (re-add×1st, last repetition). Then where each memdock store's bytes are: per file, and
per table and index of each SQLite file (SQLite's dbstat).

Part 3, chunks only: --chunks synthetic chunks (bench/synthetic.py) in one chunks bundle, `memdock index` on it
beside raw tantivy-py on the same texts. In every part `fts5-floor` is SQLite FTS5 alone at its best known loading
settings (one transaction, no journal, no fsync, external content), so `× fts5-floor` is how far memdock's sqlite
store is from its engine's floor, printed beside `× tantivy-py`; `tantivy-py-stem`'s `× tantivy-py` is the tantivy
store's floor the same way (memdock-tantivy's ratio over its ratio).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import on_path

on_path("src", "adapters/common", "adapters/tantivy", "bench")

from lexical import HEAP, bm25s_search, overlap, pct, size_of, timed  # noqa: E402
from synthetic import DATA, Vocabulary, write_bundle  # noqa: E402

from memdock import Memory  # noqa: E402
from memdock.ids import digest  # noqa: E402
from memdock.registry import Registry  # noqa: E402

NOTE_BYTES = 457
Docs = list[tuple[str, str]]
Search = Callable[[str], list[str]]
OPEN: list[Memory] = []  # closed once their queries are done
BASELINE: list[Path] = []  # --baseline: another checkout, run as base-sqlite and base-tantivy
BASELINE_HOME: list[Path] = []  # --baseline-home: the MEMDOCK_HOME its `memdock add` runs with (its adapter venvs)


@dataclass
class Result:
    seconds: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    store: int = 0
    lat: list[float] = field(default_factory=list)
    tops: list[list[str]] = field(default_factory=list)
    readd: float | None = None  # a second `memdock add` of the unchanged source, over the first
    floor: list[float] = field(default_factory=list)  # fts5-floor's seconds over the system's, per repetition


def share_seal_key(homes: list[Path]) -> None:
    """The baseline's home gets this home's seal key (`bundle/seal.py`) when it has none: a bundle this run
    writes is then trusted by both checkouts' `memdock index`, as each trusts its own, instead of validated record
    by record by the baseline alone (another home's seal is not trusted)."""
    from memdock.bundle.seal import KEY_NAME, _key
    from memdock.config import memdock_home

    if homes and _key(create=True) is not None and not (homes[0] / KEY_NAME).exists():
        homes[0].mkdir(parents=True, exist_ok=True)
        shutil.copy2(memdock_home() / KEY_NAME, homes[0] / KEY_NAME)


# -- corpora -------------------------------------------------------------------------------------------------------


def utterances() -> list[str]:
    """Every real utterance of the LoCoMo conversations and the IRC dev logs, in their order."""
    out: list[str] = []
    for conv in json.loads((DATA / "locomo" / "locomo_dev.json").read_text()):
        c = conv["conversation"]
        sessions = sorted((k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
        out += [f"{t['speaker']}: {t['text']}" for s in sessions for t in c[s]]
    for log in sorted((DATA / "irc" / "dev").glob("*.ascii.txt")):
        out += [line.strip() for line in log.read_text(errors="replace").splitlines() if len(line.strip()) > 20]
    return out


def notes(n: int) -> Iterator[tuple[str, str]]:
    """N notes of ~NOTE_BYTES joined from consecutive utterances; each pass over the corpora starts at another
    offset, so a recurring text is cut elsewhere."""
    said = utterances()
    i, made, shift = 0, 0, 0
    while made < n:
        parts, size = [], 0
        while size < NOTE_BYTES:
            parts.append(said[i])
            size += len(said[i]) + 1
            i += 1
            if i == len(said):
                shift += 1
                i = shift % len(said)
        text = " ".join(parts)[: NOTE_BYTES * 2]
        yield f"entry:{digest(str(made), text, length=16)}", text
        made += 1


def write_notes(path: Path, n: int) -> Docs:
    docs = list(notes(n))
    with open(path, "w") as f:
        for k, (eid, text) in enumerate(docs):
            line = {"id": eid.removeprefix("entry:"), "thread": f"notes-{k // 50:04d}", "author": "user", "text": text}
            f.write(json.dumps(line) + "\n")
    return docs


def read_notes(path: Path) -> Docs:
    out = []
    with open(path) as f:
        for line in f:
            obj = json.loads(line)
            out.append((f"entry:{obj['id']}", obj["text"]))
    return out


def write_markdown(folder: Path, mb: float) -> int:
    """Copies of the real watercooler threads up to MB megabytes; returns the bytes written."""
    sources = sorted(p for p in (DATA / "watercooler_threads").rglob("*.md"))
    texts = [re.sub(r"<!-- Entry-ID: [^>]*-->\n?", "", p.read_text()) for p in sources]
    folder.mkdir(parents=True)
    written, k = 0, 0
    while written < mb * 1e6:
        text = texts[k % len(texts)]
        (folder / f"copy{k // len(texts):04d}-{sources[k % len(texts)].name}").write_text(text)
        written += len(text.encode())
        k += 1
    return written


def read_markdown(folder: Path) -> Docs:
    docs = []
    for p in sorted(folder.glob("*.md")):
        for j, part in enumerate(p.read_text().split("\n---\n")):
            if part.strip():
                docs.append((digest(p.name, str(j), length=16), part))
    return docs


# -- systems -------------------------------------------------------------------------------------------------------


def memdock_add(name: str, source: Path, fmt: str, store: Path, tree: Path | None = None) -> tuple[float, Search]:
    """`memdock add` as the user runs it (`memdock index` for a chunks bundle, FMT "chunks"); from another
    checkout's src (a baseline) when TREE is given."""
    how = ["index", str(source)] if fmt == "chunks" else ["add", str(source), "-f", fmt]
    cmd = [sys.executable, "-m", "memdock", *how, "-b", name, "--data-dir", str(store), "-q"]
    env = dict(os.environ, PYTHONPATH=str(tree / "src")) if tree else None
    if env is not None and BASELINE_HOME:
        env["MEMDOCK_HOME"] = str(BASELINE_HOME[0])
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    seconds = time.perf_counter() - t
    memory = Memory(name, data_dir=store)
    OPEN.append(memory)

    def search(q: str) -> list[str]:
        hits = memory.recall(q, limit=10).hits
        return [(h.provenance or {}).get("entry_id") or h.id for h in hits]

    return seconds, search


def _indexed(index: Any, writer: Any, docs: Docs, started: float) -> tuple[float, Search]:
    """DOCS added to INDEX by WRITER and committed: the seconds since STARTED, and a search of the result."""
    import tantivy

    for did, text in docs:
        writer.add_document(tantivy.Document(id=did, text=text))
    writer.commit()
    writer.wait_merging_threads()
    seconds = time.perf_counter() - started
    index.reload()
    searcher = index.searcher()

    def search(q: str) -> list[str]:
        hits = searcher.search(index.parse_query(re.sub(r"[^\w\s]", " ", q), ["text"]), 10).hits
        return [searcher.doc(addr)["id"][0] for _, addr in hits]

    return seconds, search


def tantivy_py(docs_of: Callable[[], Docs], folder: Path) -> tuple[float, Search]:
    import tantivy

    t = time.perf_counter()
    docs = docs_of()
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("text", stored=True, tokenizer_name="en_stem")
    folder.mkdir()
    index = tantivy.Index(sb.build(), path=str(folder))
    writer = index.writer(HEAP, 0)
    return _indexed(index, writer, docs, t)


def tantivy_adapter_settings(docs_of: Callable[[], Docs], folder: Path, *, stem: bool = True) -> tuple[float, Search]:
    """Raw tantivy-py at the memdock tantivy adapter's own settings (`tantivy-py-stem`): its analyzer (simple
    tokenizer, long words dropped, lower-cased, accents folded, English stemmer), its searched fields' index option
    (term frequencies, no positions), field norms for the searched field only, its writer heap and threads; the
    text stored as it is, under its id. STEM False (`tantivy-py-nostem`): the same without the stemmer."""
    import tantivy
    from memdock_tantivy import store, store_layout
    from memdock_tantivy.settings import Settings

    settings = Settings()
    t = time.perf_counter()
    docs = docs_of()
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("text", stored=True, tokenizer_name=store.ANALYZER, index_option="freq")
    folder.mkdir()
    tantivy.Index(sb.build(), path=str(folder))
    store_layout.settle(folder, ("text",))
    index = tantivy.Index.open(str(folder))
    index.register_tokenizer(store.ANALYZER, store.analyzer(stem=stem))
    writer = index.writer(settings.writer_heap_mb * 1_000_000, settings.writer_threads)
    return _indexed(index, writer, docs, t)


def bm25s_peer(docs_of: Callable[[], Docs], folder: Path) -> tuple[float, Search]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    t = time.perf_counter()
    docs = docs_of()
    retriever = bm25s.BM25()
    tokens = bm25s.tokenize([text for _, text in docs], stopwords="en", stemmer=stemmer, show_progress=False)
    retriever.index(tokens, show_progress=False)
    retriever.save(str(folder), corpus=[{"id": d, "text": x} for d, x in docs])
    seconds = time.perf_counter() - t
    return seconds, bm25s_search(retriever, stemmer, [d for d, _ in docs])


def lancedb_peer(docs_of: Callable[[], Docs], folder: Path) -> tuple[float, Search]:
    import lancedb
    from lancedb.index import FTS

    t = time.perf_counter()
    docs = docs_of()
    table = lancedb.connect(str(folder)).create_table("notes", data=[{"id": d, "text": x} for d, x in docs])
    table.create_index("text", config=FTS(stem=True, language="English", remove_stop_words=True))
    seconds = time.perf_counter() - t

    def search(q: str) -> list[str]:
        rows = table.search(q, query_type="fts").select(["id", "_score"]).limit(10).to_list()
        return [r["id"] for r in rows]

    return seconds, search


def llamaindex_peer(docs_of: Callable[[], Docs], folder: Path) -> tuple[float, Search]:
    import Stemmer
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    t = time.perf_counter()
    nodes = [TextNode(text=x, id_=d) for d, x in docs_of()]
    retriever = BM25Retriever.from_defaults(
        nodes=nodes, similarity_top_k=10, stemmer=Stemmer.Stemmer("english"), language="english"
    )
    retriever.persist(str(folder))
    seconds = time.perf_counter() - t

    def search(q: str) -> list[str]:
        return [n.node.node_id for n in retriever.retrieve(q)]

    return seconds, search


def fts5_floor(docs_of: Callable[[], Docs], folder: Path) -> tuple[float, Search]:
    """SQLite FTS5 alone at its best known loading settings, the floor under memdock's sqlite store: one
    transaction, no journal, no fsync, external content (the text stored once, in its table), the terms held in
    memory until the end (`hashsize` as the sqlite adapter sets it), the tokenizer memdock's sqlite adapter uses."""
    t = time.perf_counter()
    docs = docs_of()
    folder.mkdir()
    db = sqlite3.connect(folder / "floor.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -65536")
    db.execute("BEGIN")
    db.execute("CREATE TABLE docs(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, text TEXT NOT NULL)")
    db.execute(
        "CREATE VIRTUAL TABLE docs_fts USING fts5(text, content='docs', content_rowid='rowid', "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute("INSERT INTO docs_fts(docs_fts, rank) VALUES ('hashsize', ?)", (64 << 20,))
    db.executemany("INSERT INTO docs(id, text) VALUES (?, ?)", docs)
    db.execute("INSERT INTO docs_fts(rowid, text) SELECT rowid, text FROM docs")
    db.execute("COMMIT")
    seconds = time.perf_counter() - t

    def search(q: str) -> list[str]:
        words = re.findall(r"\w+", q.lower())
        if not words:
            return []
        expr = " OR ".join(f'"{w}"' for w in words)
        rows = db.execute(
            "SELECT d.id FROM docs_fts f JOIN docs d ON d.rowid = f.rowid WHERE docs_fts MATCH ? "
            "ORDER BY bm25(docs_fts) LIMIT 10",
            (expr,),
        )
        return [r[0] for r in rows]

    return seconds, search


PEERS: dict[str, Callable[[Callable[[], Docs], Path], tuple[float, Search]]] = {
    "tantivy-py-stem": tantivy_adapter_settings,
    "tantivy-py-nostem": lambda docs_of, folder: tantivy_adapter_settings(docs_of, folder, stem=False),
    "bm25s": bm25s_peer,
    "lancedb": lancedb_peer,
    "llamaindex": llamaindex_peer,
    "fts5-floor": fts5_floor,
}


# -- running -------------------------------------------------------------------------------------------------------


def run_one(system: str, source: Path, fmt: str, docs_of: Callable[[], Docs], folder: Path) -> tuple[float, Search]:
    if system.startswith("memdock-"):
        return memdock_add(system.removeprefix("memdock-"), source, fmt, folder)
    if system.startswith("base-"):
        return memdock_add(system.removeprefix("base-"), source, fmt, folder, BASELINE[0])
    if system == "tantivy-py":
        return tantivy_py(docs_of, folder)
    return PEERS[system](docs_of, folder)


def compare(
    label: str, systems: list[str], source: Path, fmt: str, docs_of: Callable[[], Docs], text_bytes: int, args: Any
) -> dict[str, Path]:
    """Every system on SOURCE, interleaved, ARGS.reps times; prints the table and returns the last stores."""
    tmp = Path(tempfile.mkdtemp(prefix=f"{fmt}-", dir=args.work))
    queries = Vocabulary(tmp).queries(args.queries, __import__("random").Random(7))
    results = {s: Result() for s in systems}
    stores: dict[str, Path] = {}
    for rep in range(args.reps):
        order = systems[rep % len(systems) :] + systems[: rep % len(systems)]
        times: dict[str, float] = {}
        for system in order:
            folder = tmp / f"{system}-{rep}"
            seconds, search = run_one(system, source, fmt, docs_of, folder)
            times[system] = seconds
            res = results[system]
            res.seconds.append(seconds)
            res.store = size_of(folder)
            if rep == args.reps - 1:
                res.lat, res.tops = timed(search, queries)
                stores[system] = folder
                if system.split("-")[0] in ("memdock", "base"):
                    again, _ = run_one(system, source, fmt, docs_of, folder)
                    res.readd = again / seconds
            else:
                shutil.rmtree(folder, ignore_errors=True)
            while OPEN:
                OPEN.pop().close()
            print(f"  rep {rep + 1} {system}: {seconds:.2f} s", file=sys.stderr, flush=True)
        for system in systems:
            results[system].ratios.append(times["tantivy-py"] / times[system])
            if "fts5-floor" in times:
                results[system].floor.append(times["fts5-floor"] / times[system])
    report(label, results, text_bytes, same_ids=fmt == "jsonl")
    return stores


def report(label: str, results: dict[str, Result], text_bytes: int, *, same_ids: bool) -> None:
    """SAME_IDS: every system names a hit by the note's id, so top 10s compare (the markdown run's do not: memdock
    names its entries, the peers a file's parts)."""
    ref = results["tantivy-py"].tops
    print(f"\n{label} ({text_bytes / 1e6:.2f} MB of text)")
    heads = ("ingest s", "× tantivy-py", "× fts5-floor", "store×text", "p50 ms", "p99 ms", "∩tv@10", "re-add×1st")
    print(f"{'system':<18} " + " ".join(f"{h:>{w}}" for h, w in zip(heads, (14, 14, 14, 10, 8, 8, 7, 10))))
    for name, r in results.items():
        secs = f"{min(r.seconds):.2f}-{max(r.seconds):.2f}"
        ratio = f"{min(r.ratios):.3f}-{max(r.ratios):.3f}"
        floor = f"{min(r.floor):.3f}-{max(r.floor):.3f}" if r.floor else "-"
        ov = overlap(r.tops, ref) if same_ids and r.tops and any(ref) else float("nan")
        p50, p99 = (statistics.median(r.lat), pct(r.lat, 99)) if r.lat else (float("nan"),) * 2
        readd = f"{r.readd:.3f}" if r.readd is not None else "-"
        print(
            f"{name:<18} {secs:>14} {ratio:>14} {floor:>14} {r.store / text_bytes:>10.2f} {p50:>8.2f} {p99:>8.2f} "
            f"{ov:>7.2f} {readd:>10}"
        )


def breakdown(store: Path, text_bytes: int) -> None:
    """Each file of STORE, and each table and index of its SQLite files, in MB and × the text."""
    print(f"\n  {store.name}: {size_of(store) / 1e6:.1f} MB, {size_of(store) / text_bytes:.2f}× the text")
    groups: dict[str, int] = {}
    for f in store.rglob("*"):
        if f.is_file():
            rel = f.relative_to(store)
            key = "journal/*" if rel.parts[0] == "journal" else re.sub(r"[0-9a-f]{32}(?=\.)", "*", str(rel))
            groups[key] = groups.get(key, 0) + f.stat().st_size
    for key, n in sorted(groups.items(), key=lambda kv: -kv[1]):
        if n >= text_bytes * 0.005:
            print(f"    {key:<50} {n / 1e6:>8.2f} MB {n / text_bytes:>6.2f}×")
        if key.endswith((".sqlite", ".db")) and n >= text_bytes * 0.05 and "*" not in key:
            tables(store / key, text_bytes)


def tables(path: Path, text_bytes: int) -> None:
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        rows = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
        db.close()
    except sqlite3.Error as exc:
        print(f"      (no per-table sizes: {exc})")
        return
    for name, n in rows:
        if n >= text_bytes * 0.01:
            print(f"      {name:<48} {n / 1e6:>8.2f} MB {n / text_bytes:>6.2f}×")


def available(systems: list[str]) -> list[str]:
    out = []
    for s in systems:
        if s.startswith("base-"):
            out += [s] if BASELINE else []
            continue
        desc = Registry().get(s.removeprefix("memdock-")) if s.startswith("memdock-") else None
        if desc is not None and desc.runtime.get("requirements") and not desc.venv.exists():
            print(f"{s}: adapter not installed (memdock adapters install ...); left out", file=sys.stderr)
            continue
        mod = {
            "tantivy-py": "tantivy",
            "tantivy-py-stem": "tantivy",
            "tantivy-py-nostem": "tantivy",
            "llamaindex": "llama_index.retrievers.bm25",
            "fts5-floor": "sqlite3",
        }.get(s, s)
        if not s.startswith("memdock-"):
            try:
                __import__(mod)
            except ImportError:
                print(f"{s}: not installed (pip install -e '.[bench]'); left out", file=sys.stderr)
                continue
        out.append(s)
    return out


def part(
    label: str, systems: str, source: Path, fmt: str, docs_of: Callable[[], Docs], text_bytes: int, args: Any
) -> None:
    """One part of the run: the systems side by side, then where each memdock store's bytes are."""
    chosen = ["tantivy-py"] + [s for s in available(systems.split(",")) if s != "tantivy-py"]
    stores = compare(label, chosen, source, fmt, docs_of, text_bytes, args)
    print(f"\nwhere the bytes are ({label.split(' (')[0]})")
    for name, store in stores.items():
        if name.startswith(("memdock-", "base-")):
            breakdown(store, text_bytes)
    sys.stdout.flush()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=20000, help="0 to leave part 1 out")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--markdown-mb", type=float, default=100.0, help="0 to leave part 2 out")
    ap.add_argument(
        "--systems",
        default="tantivy-py,memdock-sqlite,memdock-tantivy,tantivy-py-stem,bm25s,lancedb,llamaindex,fts5-floor",
    )
    ap.add_argument("--markdown-systems", default="tantivy-py,memdock-sqlite,memdock-tantivy,tantivy-py-stem")
    ap.add_argument("--chunks", type=int, default=100000, help="synthetic chunks for the chunks-only part; 0: none")
    ap.add_argument("--chunk-systems", default="tantivy-py,memdock-sqlite,memdock-tantivy,tantivy-py-stem,fts5-floor")
    ap.add_argument(
        "--baseline",
        type=Path,
        help="another checkout of memdock (say, main's): adds base-sqlite and base-tantivy (beside memdock-sqlite and "
        "memdock-tantivy when chosen), its `memdock add`, to every part, so before and after are measured in one run",
    )
    ap.add_argument(
        "--baseline-home",
        type=Path,
        help="MEMDOCK_HOME for the baseline's `memdock add` (its adapters installed there by its own memdock: an "
        "adapter venv holding another build of the core is refused); its stores are queried by this checkout",
    )
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("LANCE_LOG", "error")
    if args.baseline:  # base-X beside each memdock-X chosen
        BASELINE.append(args.baseline.resolve())
        BASELINE_HOME.extend([args.baseline_home.resolve()] if args.baseline_home else [])
        share_seal_key(BASELINE_HOME)
        for key in ("systems", "markdown_systems", "chunk_systems"):
            chosen = getattr(args, key).split(",")
            base = [f"base-{s.removeprefix('memdock-')}" for s in chosen if s.startswith("memdock-")]
            setattr(args, key, ",".join(chosen + base))
    work = args.work = Path(tempfile.mkdtemp(prefix="peers-", dir=args.tmp))
    try:
        if args.notes > 0:
            source = work / "notes.jsonl"
            docs = write_notes(source, args.notes)
            text_bytes = sum(len(x.encode()) for _, x in docs)
            label = f"{args.notes:,} short notes from one JSONL file, {args.reps} repetitions interleaved"
            part(label, args.systems, source, "jsonl", lambda: read_notes(source), text_bytes, args)
        if args.chunks > 0:
            bundle, rng = work / "chunks", __import__("random").Random(11)
            pairs = write_bundle(bundle, Vocabulary(work), args.chunks, rng)
            chunk_bytes = sum(len(x.encode()) for _, x in pairs)
            label = f"{args.chunks:,} synthetic chunks, chunks only (`memdock index` of a chunks bundle)"
            part(label, args.chunk_systems, bundle, "chunks", lambda: list(pairs), chunk_bytes, args)
        if args.markdown_mb > 0:
            folder = work / "markdown"
            md_bytes = write_markdown(folder, args.markdown_mb)
            label = f"{md_bytes / 1e6:.0f} MB of watercooler markdown ({len(list(folder.iterdir()))} files)"
            part(label, args.markdown_systems, folder, "watercooler", lambda: read_markdown(folder), md_bytes, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
