"""The layout of new stores (4: layout 3's text once, with the chunks' stored records compressed) answers exactly
what layout 2 answered, in less space.

The adapter as it was at LAYOUT_2 (taken from git) and as it is now index the same bundles of the shared corpora
(watercooler threads, LoCoMo, IRC); recall, search_facts, get_edge, get_node (its edges) and search_nodes with
thread scopes must give the same answers, field for field and score for score, and the new store must be
smaller (search_nodes aside where the new store is layout 8 or later, which finds entries through their chunks:
tantivy_support.but_nodes). A store the old adapter wrote is read, and written to, in its own layout, answering
search_nodes too as the old adapter does. Deletes remove the same records.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from support.archive import extract_all
from support.history import past_step
from tantivy_support import backend, but_nodes, descriptor, gate

from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sqlite"))
from test_derived_edges import SHARED_DATA, _clean, _corpus, _questions, answers  # noqa: E402

NEIGHBOURS = 50  # the edges get_node lists at most (memdock_tantivy.search)
LAYOUT_2 = "542c0d49c8635d7926af89bb0bc8a1f3faa3751c"  # the last commit whose new stores were layout 2
pytestmark = [*gate, pytest.mark.timeout(1200)]  # two adapters index three shared corpora on a loaded 2-core box


def old_adapter(dest: Path, commit: str = LAYOUT_2) -> Path:
    """adapters/tantivy and adapters/common as of COMMIT (skips where the history is not there)."""
    if not shutil.which("git") or not (ROOT / ".git").exists():
        pytest.skip("needs the project's git history to run the adapter as it was")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "adapters/tantivy", "adapters/common"], capture_output=True
    )
    if archive.returncode != 0:
        pytest.skip(f"commit {commit[:10]} is not in this clone's history: {archive.stderr.decode()[:200]}")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        extract_all(tar, dest)
    folder = dest / "adapters" / "tantivy"  # its adapters/common copied in: a descriptor may name only memdock's
    shutil.copytree(dest / "adapters" / "common", folder, dirs_exist_ok=True)
    # this adapter's requirements (a superset): both run from the one installed venv, which is held to them
    shutil.copy(ROOT / "adapters" / "tantivy" / "requirements.txt", folder / "requirements.txt")
    raw = json.loads((folder / "adapter.json").read_text())
    raw["python_path"] = [p for p in raw["python_path"] if p != "../common"]
    (folder / "adapter.json").write_text(json.dumps(raw))
    return folder


def recalls(b: SubprocessBackend, q: dict[str, Any]) -> dict[str, Any]:
    """ANSWERS plus recall over the chunks, filtered to a thread and not."""
    out = answers(b, q)
    for text in q["queries"]:
        out[f"query {text}"] = _clean(b.call("query", {"text": text, "limit": 10}))
        scoped = {"text": text, "limit": 5, "filters": {"thread_ids": q["threads"][:1]}}
        out[f"query {text} in {q['threads'][0]}"] = _clean(b.call("query", scoped))
    return out


def settled(answer: dict[str, Any]) -> dict[str, Any]:
    """ANSWER with its hits in an order that does not depend on how tantivy's writer threads split the documents
    into segments (which decides the order of equal scores, run to run, in either layout): hits above the lowest
    score by score then id, without ranks; of those at the lowest score (the limit may cut among them), how many.
    A node's edges (all scored alike) likewise: by id, or how many where the cap cut them."""
    item = answer.get("item")
    if item and "edges" in item.get("extra", {}):
        edges = item["extra"]["edges"]
        kept: Any = len(edges) if len(edges) >= NEIGHBOURS else sorted(edges, key=lambda e: e["edge_id"])
        return {"item": {**item, "extra": {**item["extra"], "edges": kept}}}
    hits = answer.get("hits")
    if not hits:
        return answer
    low = min(h["score"] for h in hits)
    above = sorted(({k: v for k, v in h.items() if k != "rank"} for h in hits if h["score"] > low), key=_order)
    return {**answer, "hits": above, "at_lowest": sum(h["score"] == low for h in hits)}


def _order(hit: dict[str, Any]) -> tuple[float, str]:
    return -hit["score"], hit["id"]


def differ(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The questions answered differently, the first with both answers (for the failure message)."""
    before, after = ({k: settled(v) for k, v in d.items()} for d in (before, after))
    keys = [k for k in before if before[k] != after[k]]
    return keys[:1] + [f"{before[keys[0]]} != {after[keys[0]]}"[:3000]] + keys[1:] if keys else []


def data_bytes(store: Path) -> int:
    return sum(p.stat().st_size for p in (store / "data").rglob("*") if p.is_file())


def layout(store: Path) -> int:
    return json.loads((store / "data" / "memdock-tantivy.json").read_text())["schema_version"]


@pytest.fixture(scope="module")
def old(tmp_path_factory) -> Path:
    return old_adapter(tmp_path_factory.mktemp("layout2-adapter"))


def indexed_pair(corpus: str, tmp_path_factory, old: Path, name: str) -> Iterator[tuple[Any, Any, Path, Path]]:
    """The adapter at OLD and this one, each with a store of the shared CORPUS: (old, new, bundle, stores' folder)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA}")
    base = tmp_path_factory.mktemp(f"{name}-{corpus}")
    bundle = _corpus(SHARED_DATA, corpus, base)
    adapters = {"old": Registry().get(old), "new": descriptor()}
    stores = {name: SubprocessBackend(d, base / name, workers=1) for name, d in adapters.items()}
    for b in stores.values():
        b.index(bundle)
    yield stores["old"], stores["new"], bundle, base
    for b in stores.values():
        b.close()


@pytest.fixture(scope="module", params=past_step("watercooler"))
def both(request, tmp_path_factory, old):
    yield from indexed_pair(request.param, tmp_path_factory, old, "layout")


def answered_alike(both) -> Path:
    """BOTH's adapters answer every question alike (and not all with nothing); returns the stores' folder."""
    before_b, after_b, bundle, base = both
    q = _questions(bundle)
    before, after = but_nodes(recalls(before_b, q)), but_nodes(recalls(after_b, q))
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert differ(before, after) == []
    return base


def test_the_new_layout_answers_as_layout_2_did_in_less_space(both):
    base = answered_alike(both)
    assert (layout(base / "old"), layout(base / "new")) == (2, 8)
    sizes = data_bytes(base / "old"), data_bytes(base / "new")
    assert sizes[1] < 0.9 * sizes[0], sizes


def kept_in_its_own_layout(both, tmp_path: Path, version: int) -> Path:
    """A copy of BOTH's old store (layout VERSION), read and written by this adapter in its own layout, answering
    as the old adapter did, and read by the old adapter afterwards; returns the copy."""
    before_b, _, bundle, base = both
    shutil.copytree(base / "old", tmp_path / "copy")
    b = backend(tmp_path / "copy", workers=1)
    q = _questions(bundle)
    expected = recalls(before_b, q)
    try:
        health = b.healthcheck()
        assert health.checks["layout"] == version and f"store layout {version}" in health.message
        assert "layout 8" in health.message and "memdock migrate" in health.message
        assert differ(expected, recalls(b, q)) == []
        b.index(bundle)  # everything again: every record replaced, in the store's own layout
        assert differ(expected, recalls(b, q)) == []
    finally:
        b.close()
    assert layout(tmp_path / "copy") == version
    reread = SubprocessBackend(Registry().get(Path(before_b.descriptor.path)), tmp_path / "copy", workers=1)
    try:  # the old adapter still reads what this one wrote there
        assert differ(expected, recalls(reread, q)) == []
    finally:
        reread.close()
    return tmp_path / "copy"


def test_a_layout_2_store_is_read_and_written_in_its_own_layout(both, tmp_path):
    kept_in_its_own_layout(both, tmp_path, 2)


def deleted(b: SubprocessBackend, doomed: list[str], q: dict[str, Any]) -> tuple[list[str], list[str], dict]:
    """What deleting DOOMED from B's store removes and leaves unfound, and the answers after. Searches after a
    delete are not compared score for score: BM25's counts then depend on which segments tantivy drops or merges,
    which follows how its writer threads split the documents (one run on the IRC logs scored differently, two
    runs of the same code did not)."""
    try:
        gone = b.delete(doomed)
        return sorted(gone.deleted), sorted(gone.not_found), recalls(b, q)
    finally:
        b.close()


def same_deletes(both, tmp_path: Path, doomed_of) -> None:
    """Deleting DOOMED_OF(questions) from copies of BOTH's stores removes the same records, leaves the same ids
    unfound, and lookups after answer the same; nothing deleted is found by a search of either."""
    before_b, _, bundle, base = both
    q = _questions(bundle)
    doomed = doomed_of(q)
    for name in ("old", "new"):
        shutil.copytree(base / name, tmp_path / name)
    old_adapter_of_b = Registry().get(Path(before_b.descriptor.path))
    before = deleted(SubprocessBackend(old_adapter_of_b, tmp_path / "old", workers=1), doomed, q)
    after = deleted(backend(tmp_path / "new", workers=1), doomed, q)
    assert before[0] and before[:2] == after[:2]
    lookups = [k for k in before[2] if k.startswith(("edge ", "node "))]
    assert differ({k: before[2][k] for k in lookups}, {k: after[2][k] for k in lookups}) == []
    gone = set(before[0])
    for answers_ in (before[2], after[2]):  # searched: nothing deleted is found in either
        assert not gone & {h["id"] for a in answers_.values() for h in a.get("hits") or []}


def doomed(q: dict[str, Any]) -> list[str]:
    """A thread, a node, an edge and an id not stored."""
    return [q["threads"][0], q["nodes"][-1], q["edges"][len(q["edges"]) // 2], "edge:nope"]


def test_deletes_remove_the_same_records(both, tmp_path):
    same_deletes(both, tmp_path, doomed)
