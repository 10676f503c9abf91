"""A full disk under the tantivy adapter is memdock's one `disk_full` error (exit 7, `details.path`), never the
ValueError tantivy raises with its io::Error as text; nothing half-written stays (no segment file cut short, no
temporary file), the store answers as before the run, and the same command succeeds once space is freed.

Each test mounts a small tmpfs in its own mount namespace (`unshare -m`, as tests/sqlite/test_disk_full.py does),
so ENOSPC is real; a filler file takes the space, and removing it is "space frees". The writer's commit, the
writer's indexing thread (a segment flushed when its heap is spent), a delete's commit, the text_once spool and
the zstd dictionary are each driven to it in the adapter's own interpreter; `memdock add` and `memdock forget`
show it end to end."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from support.sqlite_helpers import can_unshare
from support.tmpfs import FILL, in_tmpfs, status
from tantivy_support import descriptor, gate

pytestmark = [
    *gate,
    pytest.mark.skipif(not can_unshare(), reason="needs `unshare -m` (root or user namespaces) to mount a small tmpfs"),
]

ROOT = Path(__file__).resolve().parents[2]
NOTES = 3000

# run by the adapter's interpreter: PART is driven to a full disk at $M, then space frees and it runs again
DIRECT = r"""
import json, os, random, string, subprocess, sys
from pathlib import Path
from memdock.errors import MemdockError
from memdock_tantivy import delete, docs, ingest, packed, store, text_once
from memdock_tantivy.reader import Reader
from memdock_tantivy.settings import Settings

mnt, fill_py, part = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
data = mnt / "data"
data.mkdir()
rng = random.Random(7)  # random words: tantivy's blocks must not shrink them
def text(i):
    return f"note {i} quorum " + " ".join("".join(rng.choices(string.ascii_lowercase, k=7)) for _ in range(80))
def fill(free):
    subprocess.run([sys.executable, fill_py, str(mnt), str(free)], check=True)
def left():
    "Every file of the data dir but tantivy's locks and its list of managed files."
    return sorted(str(p.relative_to(mnt)) for p in data.rglob("*") if p.is_file() and not p.name.startswith(".")
                  or p.name.endswith(".tmp"))
def count(index):
    index.reload()
    return [i.searcher().num_docs for i in index.all]
def add(writers, index, first, n):
    for i in range(first, first + n):
        writers.of("chunk").add_document(docs.chunk_doc(
            {"id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": "thread:0", "position": 0, "text": text(i)},
            None, index.keys))
def attempt(fn):
    try:
        fn()
    except MemdockError as exc:
        return {"category": exc.category, "reason": exc.details.get("reason"), "path": exc.details.get("path"),
                "message": exc.message}
    return None

class FullAtCommit:
    "The chunks' writer, whose next commit once ARMED finds the disk full, filled then and not before: the chunks'"
    "indexing thread writes their stored texts as it goes, so a disk filled up front could fail the graph's commit."
    def __init__(self, writer):
        self.writer, self.armed = writer, False
    def __getattr__(self, name):
        return getattr(self.writer, name)
    def commit(self):
        if self.armed:
            self.armed = False
            fill(0)
        return self.writer.commit()
def full_at_the_chunks_commit(writers):
    writers.chunks = writers.all[-1] = FullAtCommit(writers.chunks)
    return writers

report = {}
settings = Settings(writer_heap_mb=int(os.environ.get("HEAP_MB", "64")))
if part == "half":  # an index empty at the run's start: the ids of its commit are new
    index = store.open_index(data, write=True)
    run = ingest.Ingest(full_at_the_chunks_commit(store.Writers(index, settings)), Reader(index),
                        on_commit=lambda ids: None)
    run.writer.chunks.armed = True
    threads = [("thread", f"thread:{i}", docs.thread_doc({"id": f"thread:{i}", "title": f"t{i}"}, index.keys))
               for i in range(50)]
    chunks = [("chunk", f"chunk:{i}", docs.chunk_doc({"id": f"chunk:{i}", "entry_id": f"entry:{i}",
               "thread_id": "thread:0", "position": 0, "text": text(i)}, None, index.keys)) for i in range(4000)]
    report["error"] = attempt(lambda: run.commit(threads + chunks))
    report["after"] = count(index)
    os.remove(mnt / "filler")
    run.commit(threads + chunks)
    report["again"] = count(index)
    print(json.dumps(report))
    sys.exit()
if part == "shared":  # an id of the failed batch names a document its run's first batch committed
    index = store.open_index(data, write=True)
    run = ingest.Ingest(full_at_the_chunks_commit(store.Writers(index, settings)), Reader(index),
                        on_commit=lambda ids: None)
    run.commit([("thread", "x", docs.thread_doc({"id": "x", "title": "the thread x"}, index.keys))])
    entity = ("entity", "x", docs.entity_doc({"id": "x", "name": "entity x", "entity_type": "person"}, index.keys))
    chunks = [("chunk", f"chunk:{i}", docs.chunk_doc({"id": f"chunk:{i}", "entry_id": f"entry:{i}",
               "thread_id": "x", "position": 0, "text": text(i)}, None, index.keys)) for i in range(4000)]
    run.writer.chunks.armed = True
    report["error"] = attempt(lambda: run.commit([entity] + chunks))
    index.reload()
    report["x"] = sorted(r["kind"] for r in Reader(index).where("id", ["x"]))
    print(json.dumps(report))
    sys.exit()
index = store.open_index(data, write=True)
writers = store.Writers(index, settings)
add(writers, index, 0, 50)
writers.commit()
before = left()
report["before"] = count(index)
if part not in ("commit", "thread"):
    writers.wait()  # the writers let go of the index's lock
    del writers
if part in ("commit", "thread"):
    fill(int(os.environ.get("FREE", "0")))
    def run():
        try:
            add(writers, index, 50, 4000)
            writers.commit()
        except BaseException as exc:
            writers.rollback(exc)
            raise
    report["error"] = attempt(run)
    report["left"] = left() == before or left()
    report["after"] = count(index)
    os.remove(mnt / "filler")
    run()
elif part == "delete":
    fill(0)
    ids = [f"chunk:{i}" for i in range(50)]
    report["error"] = attempt(lambda: delete.delete(index, lambda: store.Writers(index, settings), {"ids": ids}))
    report["left"] = left() == before or left()
    report["after"] = count(index)
    os.remove(mnt / "filler")
    delete.delete(index, lambda: store.Writers(index, settings), {"ids": ids})
elif part == "spool":
    held = text_once.Held(True, mnt / "work", limit=10_000_000, spool_above=0)
    (mnt / "work").mkdir()
    fill(0)
    def spool():
        for i in range(3000):
            r = {"id": f"entry:{i}", "thread_id": "t", "body": text(i)}
            held.keep(r)
            held.saw({"id": f"c{i}", "entry_id": r["id"], "position": 0, "text": r["body"]})
            held.ready()
    report["error"] = attempt(spool)
    held.close()
    report["left"] = sorted(os.listdir(mnt / "work"))
    report["closed"] = held._spool is None
    held = text_once.Held(True, mnt / "work", limit=10_000_000, spool_above=0)
    os.remove(mnt / "filler")
    spool()
    held.close()
elif part == "dictionary":
    packer = packed.Packer(mnt / "fresh", True, mnt / "fresh" / store.MARKER)
    (mnt / "fresh").mkdir()
    (mnt / "fresh" / store.MARKER).write_text("{}")
    samples = [text(i).encode() for i in range(1000)]
    fill(0)
    report["error"] = attempt(lambda: packer.train(samples))
    report["left"] = sorted(os.listdir(mnt / "fresh"))
    os.remove(mnt / "filler")
    packer.train(samples)
    report["trained"] = packer.ready and json.loads((mnt / "fresh" / store.MARKER).read_text())
elif part == "create":
    fresh = mnt / "fresh"
    fresh.mkdir()
    fill(0)
    report["error"] = attempt(lambda: store.open_index(fresh, write=True))
    report["left"] = sorted(os.listdir(fresh))
    os.remove(mnt / "filler")
    report["created"] = store.open_index(fresh, write=True).version
report["again"] = count(index)
print(json.dumps(report))
"""


def direct(tmp_path: Path, part: str, size: str = "16m", **env: str) -> dict:
    (tmp_path / "direct.py").write_text(DIRECT)
    (tmp_path / "fill.py").write_text(FILL)
    paths = os.pathsep.join(str(ROOT / p) for p in ("adapters/tantivy", "adapters/common", "src"))
    py = descriptor().venv / "bin" / "python"
    setenv = " ".join(f"{k}={v}" for k, v in env.items())
    script = f"PYTHONPATH={paths} {setenv} {py} {tmp_path / 'direct.py'} $M {tmp_path / 'fill.py'} {part} 2> err.txt\n"
    out = in_tmpfs(tmp_path, size, script)
    assert out.returncode == 0, out.stdout + (tmp_path / "err.txt").read_text()
    return json.loads(out.stdout)


def assert_disk_full(error: dict | None, *paths: Path) -> None:
    """ERROR is memdock's disk_full naming one of PATHS."""
    assert error is not None, "no error: the disk was not full"
    assert error["category"] == "backend" and error["reason"] == "disk_full", error
    assert error["path"] in map(str, paths), error
    assert f"disk full: no space left on the device holding {error['path']}" in error["message"]


@pytest.mark.parametrize(
    ("part", "env"),
    [("commit", {}), ("thread", {"HEAP_MB": "15", "FREE": str(1 << 20)})],
    ids=["commit", "indexing-thread"],
)
def test_a_full_disk_under_the_writer_is_disk_full_and_leaves_the_index_as_it_was(tmp_path, part, env):
    """At the commit tantivy says "(os error 28)"; an indexing thread's failure only "an index writer was
    killed". Either is disk_full; the segment files written up to it go; the index holds what it held."""
    report = direct(tmp_path, part, **env)
    data = tmp_path / "mnt" / "data"
    assert_disk_full(report["error"], data, data / "index", data / "chunks")
    assert report["left"] is True, report["left"]
    assert report["after"] == report["before"] == [0, 50]
    assert report["again"] == [0, 4050]


def test_a_full_disk_at_the_chunks_commit_takes_back_the_graphs_of_a_new_store(tmp_path):
    """The graph commits first: when the chunks' commit then finds the disk full, the graph's is taken back (its
    ids were new: the index was empty at the run's start), so the store answers as before the run."""
    report = direct(tmp_path, "half")
    data = tmp_path / "mnt" / "data"
    assert_disk_full(report["error"], data / "chunks")
    assert report["after"] == [0, 0]
    assert report["again"] == [50, 4000]


def test_taking_back_the_graphs_half_never_deletes_what_an_earlier_commit_of_the_run_holds(tmp_path):
    """Ids are unique per record type only: a thread `x` committed (and checkpointed) by a run's first batch, an
    entity `x` in its second, whose chunks' commit finds the disk full. Deleting the second batch's ids took the
    thread too, lost for good; now the graph's half stays (the re-run upserts it) and the thread with it."""
    report = direct(tmp_path, "shared")
    assert_disk_full(report["error"], tmp_path / "mnt" / "data" / "chunks")
    assert report["x"] == ["entity", "thread"]


def test_a_full_disk_at_a_deletes_commit_is_disk_full_and_deletes_nothing(tmp_path):
    report = direct(tmp_path, "delete")
    data = tmp_path / "mnt" / "data"
    assert_disk_full(report["error"], data, data / "index", data / "chunks")
    assert report["left"] is True, report["left"]
    assert report["after"] == report["before"] == [0, 50]
    assert report["again"] == [0, 0]


def test_a_full_disk_at_the_text_once_spool_is_disk_full_naming_the_work_dir(tmp_path):
    report = direct(tmp_path, "spool")
    assert_disk_full(report["error"], tmp_path / "mnt" / "work")
    assert report["left"] == [] and report["closed"]


def test_a_full_disk_at_the_dictionary_is_disk_full_and_leaves_no_temporary_file(tmp_path):
    report = direct(tmp_path, "dictionary")
    assert_disk_full(report["error"], tmp_path / "mnt" / "fresh" / "chunks.zdict")
    assert report["left"] == ["memdock-tantivy.json"]
    assert report["trained"] == {"dictionary": "chunks.zdict"}


def test_a_store_whose_creation_hit_a_full_disk_is_created_once_space_frees(tmp_path):
    """Not an index directory without its marker, which the next run would refuse as not the adapter's."""
    report = direct(tmp_path, "create")
    assert_disk_full(report["error"], tmp_path / "mnt" / "fresh")
    assert report["left"] == []
    assert report["created"] == 8


def notes(path: Path, first: int, n: int) -> Path:
    import random
    import string

    rng = random.Random(first)
    with open(path, "w") as f:
        for i in range(first, first + n):
            words = " ".join("".join(rng.choices(string.ascii_lowercase, k=7)) for _ in range(80))
            f.write(json.dumps({"id": f"n{i:05d}", "thread": f"t{i // 25}", "text": f"note {i} quorum {words}"}) + "\n")
    return path


def test_memdock_add_on_a_full_disk_says_disk_full_and_the_same_add_succeeds_once_space_frees(tmp_path, monkeypatch):
    """End to end: a first add fits; the second finds the disk full (exit 7, the adapter's own disk_full, not a
    ValueError, nor the core reading "No space left" in its stderr); the store answers as before it; once space
    frees the same add indexes everything."""
    monkeypatch.setenv("MEMDOCK_HOME", str(descriptor().venv.parent.parent))
    first, second = notes(tmp_path / "first.jsonl", 0, 200), notes(tmp_path / "second.jsonl", 200, NOTES)
    add = f"{sys.executable} -m memdock add -f jsonl -b tantivy --data-dir $M/store -q"
    count = f"{sys.executable} -m memdock count -b tantivy --data-dir $M/store --json"
    script = f"""
{add} {first} > /dev/null 2>&1; echo "first=$?"
{count} > count1.json
fill 3145728
{add} {second} --json > out.json 2> err.txt; echo "add=$?"
ls $M/store/data/index $M/store/data/chunks > files.txt
{count} > count2.json
{sys.executable} -m memdock recall "note 201" -b tantivy --data-dir $M/store -n 3 --json > recall.json
rm $M/filler
{add} {second} > /dev/null 2> err2.txt; echo "again=$?"
{count} > count3.json
"""
    out = in_tmpfs(tmp_path, "8m", script)
    err = (tmp_path / "err.txt").read_text()
    assert status(out) == {"first": "0", "add": "7", "again": "0"}, (
        out.stdout + err + (tmp_path / "err2.txt").read_text()
    )
    error = json.loads((tmp_path / "out.json").read_text())["error"]
    assert error["details"]["reason"] == "disk_full", error
    assert error["details"]["path"].startswith(str(tmp_path / "mnt" / "store" / "data")), error
    assert "adapter_error" not in error["details"], "the adapter said it, in its envelope"
    assert "Traceback" not in err and "ValueError" not in err
    assert (tmp_path / "count2.json").read_text() == (tmp_path / "count1.json").read_text()
    assert "n00201" not in (tmp_path / "recall.json").read_text()
    assert json.loads((tmp_path / "count3.json").read_text())["count"] == 200 + NOTES


# an indexing thread's write fails for want of inodes (as for a spent quota, EDQUOT): the device's bytes stay free
NO_INODES = r"""
import json, random, string, sys
from pathlib import Path
from memdock.errors import MemdockError
from memdock_tantivy import docs, store
from memdock_tantivy.settings import Settings

data = Path(sys.argv[1]) / "data"
data.mkdir()
rng = random.Random(7)
index = store.open_index(data, write=True)
writers = store.Writers(index, Settings(writer_heap_mb=15))
report = {"error": None}
try:
    try:
        for i in range(20000):
            words = " ".join("".join(rng.choices(string.ascii_lowercase, k=7)) for _ in range(80))
            writers.of("chunk").add_document(docs.chunk_doc(
                {"id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": "t", "position": 0, "text": words},
                None, index.keys))
        writers.commit()
    except BaseException as exc:
        report["raw"] = str(exc)
        writers.rollback(exc)
        raise
except MemdockError as exc:
    report["error"] = {"reason": exc.details.get("reason"), "path": exc.details.get("path")}
except ValueError as exc:
    report["error"] = {"reason": None, "text": str(exc)}
print(json.dumps(report))
"""


def test_an_indexing_thread_failing_for_want_of_inodes_is_disk_full(tmp_path):
    """ENOSPC with the device's bytes free (its inodes spent; a quota spent is EDQUOT alike): tantivy's writer only
    says "an index writer was killed", and the < 1 MB free test alone took it for some other failure."""
    (tmp_path / "no_inodes.py").write_text(NO_INODES)
    paths = os.pathsep.join(str(ROOT / p) for p in ("adapters/tantivy", "adapters/common", "src"))
    py = descriptor().venv / "bin" / "python"
    script = f"PYTHONPATH={paths} {py} {tmp_path / 'no_inodes.py'} $M 2> err.txt\n"
    out = in_tmpfs(tmp_path, "256m,nr_inodes=30", script)
    assert out.returncode == 0, out.stdout + (tmp_path / "err.txt").read_text()
    report = json.loads(out.stdout)
    assert "index writer was killed" in report.get("raw", ""), report  # the case under test, not a commit's errno
    assert report["error"] == {"reason": "disk_full", "path": str(tmp_path / "mnt" / "data")}, report
