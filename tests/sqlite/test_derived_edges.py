"""Structural edges stored as links (memdock_sqlite/links.py) answer exactly what the edges table answered.

The adapter as it was before links (OLD, taken from git) and as it is now index the same bundles of the shared
corpora (watercooler threads, LoCoMo, IRC); search_facts, get_edge, get_node (its edges) and search_nodes with
thread scopes must give the same answers, field for field and score for score, and so must a store the old
adapter wrote once this adapter has migrated it. Deletes must remove the same records.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from support.archive import extract_all
from support.history import past_step
from support.sqlite_helpers import sqlite_backend

from memdock.bundle.reader import BundleReader
from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db

OLD = "d7086d83b1c0ff669eb9db340b161a9daba22ee6"  # the last commit before links
SCHEMA_3 = "d1e90669d3c45b192f4d1f2ae92fbd3f8593667f"  # the last commit before the text once (schema 4)
ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = ROOT.parent / "shared" / "data"
pytestmark = pytest.mark.timeout(1200)  # two adapters index three shared corpora: minutes on a loaded 2-core box
SAMPLE = 60  # ids asked of get_edge and get_node per corpus, spread over the bundle


def _old_adapter(dest: Path, commit: str = OLD, also: tuple[str, ...] = ()) -> Path:
    """adapters/sqlite (and the folders ALSO) as of COMMIT, extracted from git (skips where the history is not
    there)."""
    if not shutil.which("git") or not (ROOT / ".git").exists():
        pytest.skip("needs the project's git history to run the adapter as it was before links")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "adapters/sqlite", *also], capture_output=True, check=False
    )
    if archive.returncode != 0:
        pytest.skip(f"commit {commit[:10]} is not in this clone's history: {archive.stderr.decode()[:200]}")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        extract_all(tar, dest)
    descriptor = dest / "adapters" / "sqlite" / "adapter.json"
    raw = json.loads(descriptor.read_text())
    if "../common" in raw.get("python_path", []):  # the only adapters/common a descriptor may name is memdock's
        shutil.copytree(dest / "adapters" / "common", descriptor.parent, dirs_exist_ok=True)
        raw["python_path"] = [p for p in raw["python_path"] if p != "../common"]
        descriptor.write_text(json.dumps(raw))
    return dest / "adapters" / "sqlite"


def _corpus(shared: Path, name: str, out: Path) -> Path:
    sources = {
        "watercooler": (sorted((shared / "watercooler_threads" / "project").glob("*.md")), "watercooler"),
        "locomo": ([shared / "locomo" / "locomo_dev.json"], "chat"),
        "irc": (sorted((shared / "irc" / "dev").glob("*.ascii.txt"))[:4], "irc"),
    }
    files, fmt = sources[name]
    import_corpus(files, fmt, out / "corpus")
    chunk_bundle(out / "corpus", out / "chunks")
    return out / "chunks"


def _spread(items: list[str], n: int) -> list[str]:
    step = max(1, len(items) // n)
    return items[::step][:n]


def _questions(bundle: Path) -> dict[str, Any]:
    """What to ask, taken from the bundle: the words of thread titles, entity names and authors, edge and node ids."""
    reader = BundleReader(bundle)
    threads = [r for r in reader.records("thread")]
    entries = list(reader.records("entry"))
    entities = list(reader.records("entity")) if "entity" in reader.record_types() else []
    words = [t.get("title", "") for t in threads] + [e["name"] for e in entities]
    words += sorted({e.get("author") or "" for e in entries})
    words += ["mentions", "replied", "follows", "contains", "thread"]
    edges = [r["id"] for r in reader.records("edge")]
    nodes = [r["id"] for r in threads] + [r["id"] for r in entries] + [r["id"] for r in entities]
    return {
        "queries": [w for w in _spread(sorted(set(words)), 20) if w.strip()],
        "threads": _spread(sorted(t["id"] for t in threads), 3),
        "edges": _spread(edges, SAMPLE) + ["edge:mentions:0000000000000000", "edge:nope"],
        "nodes": _spread(nodes, SAMPLE),
    }


def _clean(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "took_ms"}


def answers(b: SubprocessBackend, q: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for text in q["queries"]:
        out[f"facts {text}"] = _clean(b.call("search_facts", {"text": text, "limit": 25}))
        for thread in q["threads"]:
            scoped = {"text": text, "limit": 10, "group_ids": [thread]}
            out[f"facts {text} in {thread}"] = _clean(b.call("search_facts", scoped))
            out[f"nodes {text} in {thread}"] = _clean(b.call("search_nodes", scoped))
    for i in q["edges"]:
        out[f"edge {i}"] = _clean(b.call("get_edge", {"id": i}))
    for i in q["nodes"]:
        out[f"node {i}"] = _clean(b.call("get_node", {"id": i}))
    return out


@pytest.fixture(scope="module")
def old_adapter(tmp_path_factory) -> Path:
    return _old_adapter(tmp_path_factory.mktemp("old-adapter"))


@pytest.fixture(scope="module", params=past_step("irc"))
def indexed_both(request, tmp_path_factory, old_adapter):
    yield from index_both(old_adapter, tmp_path_factory.mktemp(f"derived-{request.param}"), request.param)


LATER_STEPS_OFF = {"substance_weight": 0, "context_turn_weight": 0}
"""Ranking steps added after the old adapters compared here (test_recall_context.py)."""


def index_both(old_adapter: Path, base: Path, corpus: str, config: dict[str, Any] | None = None):
    """The shared CORPUS indexed by OLD_ADAPTER into BASE/old and by this adapter into BASE/new (CONFIG: both
    adapters' config; by default the old one's and, for this one, the later ranking steps off)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA}")
    bundle = _corpus(SHARED_DATA, corpus, base)
    old = SubprocessBackend(Registry().get(old_adapter), base / "old", workers=1, config=config)
    new = sqlite_backend(base / "new", workers=1, config=LATER_STEPS_OFF if config is None else config)
    old.index(bundle)
    new.index(bundle)
    yield old, new, bundle, base
    old.close()
    new.close()


def test_the_old_adapter_is_the_one_before_links(old_adapter):
    assert not (old_adapter / "memdock_sqlite" / "links.py").exists()


def test_structural_edges_answer_as_before(indexed_both):
    old, new, bundle, base = indexed_both
    q = _questions(bundle)
    before, after = answers(old, q), answers(new, q)
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    store = sqlite3.connect(base / "new" / "data" / "memory.sqlite")
    try:
        counts = store.execute("SELECT (SELECT count(*) FROM links), (SELECT count(*) FROM edges)").fetchone()
    finally:
        store.close()
    assert counts[0] > 0 and counts[0] > 10 * counts[1]  # what the importers write is derived, nearly all of it


def test_a_store_the_old_adapter_wrote_answers_the_same_once_migrated(indexed_both, tmp_path):
    old, _, bundle, base = indexed_both
    q = _questions(bundle)
    before = answers(old, q)
    shutil.copytree(base / "old", tmp_path / "copy")
    b = sqlite_backend(tmp_path / "copy", workers=1)
    try:
        as_read = answers(b, q)  # schema 2 read as it is
        version = b.call("prepare", {}, use_pool=False)["details"]["schema_version"]
        migrated = answers(b, q)
    finally:
        b.close()
    assert version == db.SCHEMA_VERSION  # the schema this adapter writes (memdock_sqlite/db.py)
    assert [k for k in before if before[k] != as_read[k]] == []
    assert [k for k in before if before[k] != migrated[k]] == []


def test_deletes_remove_the_same_records(indexed_both, tmp_path):
    old, _, bundle, base = indexed_both
    q = _questions(bundle)
    doomed = [q["threads"][0], q["nodes"][-1], q["edges"][len(q["edges"]) // 2], "edge:nope"]
    results = []
    for name, make in (
        ("old", lambda p: SubprocessBackend(Registry().get(_adapter_of(old)), p, workers=1)),
        ("new", lambda p: sqlite_backend(p, workers=1)),
    ):
        shutil.copytree(base / name, tmp_path / name)
        b = make(tmp_path / name)
        try:
            gone = b.delete(doomed)
            results.append((sorted(gone.deleted), sorted(gone.not_found), answers(b, q)))
        finally:
            b.close()
    assert results[0][0] and results[0][0] == results[1][0] and results[0][1] == results[1][1]
    assert results[0][2] == results[1][2]


def _adapter_of(b: SubprocessBackend) -> Path:
    return Path(b.descriptor.path)
