"""A full disk is one clear error wherever it happens, and the store works again once space is freed.

Each test runs in its own mount namespace (`unshare -m`) on a small tmpfs, so ENOSPC is real; a filler
file takes the space, and removing it is "space frees". The layers: the core's bundle writer
(`memdock chunk`), the ledger and the delta bundle and the adapter (`memdock index`), the sqlite adapter
called directly, and the graphiti adapter's catalog.
"""

import json
import random
import string
from pathlib import Path

import pytest
from support.records_factory import T0, chunk, entry, thread
from support.sqlite_helpers import can_unshare
from support.tmpfs import in_tmpfs, status

from memdock.bundle import BundleWriter

ROOT = Path(__file__).resolve().parents[2]
N = 3000
pytestmark = pytest.mark.skipif(
    not can_unshare(), reason="needs `unshare -m` (root or user namespaces) to mount a small tmpfs"
)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    """A corpus and its chunks, a few MB of text, outside any tmpfs."""
    root = tmp_path_factory.mktemp("disk-full-bundles")
    words = "storage latency cache replica shard quorum migration rollback snapshot index "
    rng = random.Random(7)  # words of random letters: the adapter stores text compressed, and this must not shrink
    texts = [
        f"{i} {words}" + " ".join("".join(rng.choices(string.ascii_lowercase, k=7)) for _ in range(80))
        for i in range(N)
    ]
    with BundleWriter(root / "corpus", "corpus") as w:
        w.write("thread", thread())
        for i in range(N):
            w.write("entry", entry(i, body=texts[i], event_time=T0))
    with BundleWriter(root / "chunks", "chunks") as w:
        for i in range(N):
            w.write("chunk", chunk(i, text=texts[i]))
    return {"corpus": root / "corpus", "chunks": root / "chunks"}


def test_the_bundle_writer_says_disk_full_and_leaves_no_partial_bundle(tmp_path, bundles):
    script = f"""
fill 65536
$PY -m memdock chunk {bundles["corpus"]} -o $M/chunks 2> err.txt; echo "chunk=$?"
test -e $M/chunks; echo "left=$?"
rm $M/filler
$PY -m memdock chunk {bundles["corpus"]} -o $M/chunks > /dev/null 2> err2.txt; echo "again=$?"
$PY -m memdock validate $M/chunks > /dev/null; echo "valid=$?"
"""
    out = in_tmpfs(tmp_path, "16m", script)
    err = (tmp_path / "err.txt").read_text()
    assert status(out) == {"chunk": "7", "left": "1", "again": "0", "valid": "0"}, out.stdout + err
    assert f"disk full: no space left on the device holding {tmp_path / 'mnt' / 'chunks'}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("free", [0, 16 * 1024, 256 * 1024, 1024 * 1024, 2 * 1024 * 1024])
def test_index_on_a_full_disk_says_so_and_the_store_recovers(tmp_path, bundles, free):
    """However much room is left, the ledger, the delta bundle, the work dir or the adapter runs out first;
    each says disk full (exit 7), none hides the cause, and after space frees a re-run indexes everything."""
    chunks = bundles["chunks"]
    script = f"""
mkdir -p $M/store
fill {free}
$PY -m memdock index {chunks} --data-dir $M/store -c batch_size=200 > /dev/null 2> err.txt; echo "index=$?"
rm $M/filler
$PY -m memdock index {chunks} --data-dir $M/store -c batch_size=200 --json > again.json 2> err2.txt; echo "again=$?"
$PY -m memdock index {chunks} --data-dir $M/store --json > third.json 2> err3.txt; echo "third=$?"
$PY -m memdock health --data-dir $M/store --json > health.json; echo "health=$?"
$PY -m memdock query "quorum" --data-dir $M/store -n 1 --json > query.json; echo "query=$?"
"""
    out = in_tmpfs(tmp_path, "32m", script)
    err = (tmp_path / "err.txt").read_text()
    got = status(out)
    assert got == {"index": "7", "again": "0", "third": "0", "health": "0", "query": "0"}, (
        out.stdout + err + (tmp_path / "err2.txt").read_text()
    )
    assert "disk full: no space left on the device holding " + str(tmp_path / "mnt" / "store") in err
    for hidden in ("Traceback", "cannot rollback", "no error envelope"):
        assert hidden not in err
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["indexed"].get("chunk", 0) + again["skipped"] == N
    third = json.loads((tmp_path / "third.json").read_text())
    assert third["skipped"] == N and not third["indexed"]
    health = json.loads((tmp_path / "health.json").read_text())
    assert health["ok"] and health["checks"]["integrity"] == "ok" and health["checks"]["chunks"] == N
    assert json.loads((tmp_path / "query.json").read_text())["hits"]


DIRECT = """
import json, os, sys
from memdock.errors import MemdockError
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

store, bundle, filler = sys.argv[1:4]
backend = SubprocessBackend(Registry().get("sqlite"), store, config={"batch_size": 200}, retries=0)
report = {}
try:
    backend.call("index", {"bundle": bundle}, use_pool=False)
except MemdockError as exc:
    report["error"] = {"category": exc.category, "message": exc.message, "reason": exc.details.get("reason"),
                       "path": exc.details.get("path")}
os.remove(filler)
report["again"] = backend.call("index", {"bundle": bundle}, use_pool=False)["indexed"]
report["health"] = backend.healthcheck().checks
print(json.dumps(report))
"""


def test_the_sqlite_adapter_itself_says_disk_full(tmp_path, bundles):
    (tmp_path / "direct.py").write_text(DIRECT)
    script = f"""
mkdir -p $M/store/data $M/store/work && echo "memdock store, format 1" > $M/store/.memdock-store
fill 524288
$PY {tmp_path / "direct.py"} $M/store {bundles["chunks"]} $M/filler
"""
    out = in_tmpfs(tmp_path, "32m", script)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    error = report["error"]
    assert error["category"] == "backend" and error["reason"] == "disk_full", error
    assert error["path"].startswith(str(tmp_path / "mnt" / "store" / "data")), error
    assert "cannot rollback" not in error["message"]
    assert report["again"]["chunk"] == N
    assert report["health"]["integrity"] == "ok" and report["health"]["chunks"] == N


CATALOG = """
import json, os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from memdock.errors import MemdockError
from memdock_graphiti.catalog import Catalog

data, filler = Path(sys.argv[1]), sys.argv[2]
catalog = Catalog(data)
with catalog.transaction():
    catalog.put_thread("thread:0", "g0", "kept")
os.system(f"{sys.executable} {sys.argv[4]} {data.parent} 0")
report = {}
try:
    with catalog.transaction() as conn:
        for i in range(20000):
            conn.execute("INSERT INTO members VALUES (?, ?)", ("x" * 2000 + str(i), str(i)))
except MemdockError as exc:
    report["error"] = {"category": exc.category, "reason": exc.details.get("reason"), "path": exc.details.get("path"),
                       "message": exc.message}
os.remove(filler)
with catalog.transaction():
    catalog.put_thread("thread:1", "g1", "after")
report["threads"] = [catalog.thread("thread:0"), catalog.thread("thread:1")]
report["members"] = catalog.conn.execute("SELECT count(*) FROM members").fetchone()[0]
print(json.dumps(report))
"""


def test_the_graphiti_catalog_says_disk_full_and_keeps_working(tmp_path):
    (tmp_path / "catalog.py").write_text(CATALOG)
    script = f"""
mkdir -p $M/data
$PY {tmp_path / "catalog.py"} $M/data $M/filler {ROOT / "adapters" / "graphiti"} {tmp_path / "fill.py"}
"""
    out = in_tmpfs(tmp_path, "4m", script)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["error"]["category"] == "backend" and report["error"]["reason"] == "disk_full", report
    assert report["error"]["path"] == str(tmp_path / "mnt" / "data" / "catalog.sqlite")
    assert "cannot rollback" not in report["error"]["message"]
    assert report["threads"] == [["g0", "kept"], ["g1", "after"]]
    assert report["members"] == 0


def test_export_of_a_store_on_a_full_disk_says_so_and_works_once_space_frees(tmp_path, bundles):
    """The store's own disk is full (export takes its write lock, which writes the owner's pid there)."""
    script = f"""
$PY -m memdock index {bundles["chunks"]} --data-dir $M/store > /dev/null 2>&1; echo "index=$?"
fill 0
$PY -m memdock export --data-dir $M/store -o {tmp_path / "out"} > /dev/null 2> err.txt; echo "export=$?"
rm $M/filler
$PY -m memdock export --data-dir $M/store -o {tmp_path / "out"} --force > /dev/null 2> err2.txt; echo "again=$?"
"""
    out = in_tmpfs(tmp_path, "32m", script)
    err = (tmp_path / "err.txt").read_text()
    assert status(out) == {"index": "0", "export": "7", "again": "0"}, out.stdout + err
    assert f"disk full: no space left on the device holding {tmp_path / 'mnt' / 'store'} while exporting" in err
    assert "Traceback" not in err
