"""A disk that fills once a bulk load's records are in (memdock_sqlite/bulk.py): the swap (the FTS5 merge, VACUUM,
the switch to WAL, the rename) is refused with a disk-full error naming the step, leaving neither a database nor the
loading file, and once space frees the same load puts every record in place. A real ENOSPC on a small tmpfs."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.sqlite_helpers import can_unshare
from support.tmpfs import in_tmpfs, status

ROOT = Path(__file__).resolve().parents[2]
N, BATCH = 20000, 2000  # ten transactions, ten FTS5 segments: their merge needs room beside them

LOAD = """import os, sqlite3, sys
from pathlib import Path
sys.path[:0] = [{paths}]
from memdock.errors import MemdockError
from memdock_sqlite import bulk, ingest

data, filler = Path(sys.argv[1]), Path(sys.argv[2])
data.mkdir(parents=True, exist_ok=True)


def fill() -> None:
    with open(filler, "wb", buffering=0) as f:
        for size in (1 << 16, 1 << 12, 1):
            try:
                while True:
                    f.write(b"x" * size)
            except OSError:
                pass


def chunks():
    for i in range({n}):
        text = f"{{i}} " + " ".join(f"w{{(i * 7919 + k * 104729) % 50021}}" for k in range(60))
        yield {{"id": f"chunk:{{i}}", "entry_id": f"entry:{{i}}", "thread_id": "thread:0", "position": 0,
               "text": text, "start": 0, "end": len(text)}}


def load(full: bool) -> str:
    try:
        with bulk.load(data) as conn:
            run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size={batch})
            run.run("chunk", chunks())
            run.finish()
            if full:
                fill()
    except MemdockError as exc:
        print(exc.message, file=sys.stderr)
        return "refused"
    return "done"


print("first=" + load(True))
print("db=%d loading=%d" % ((data / "memory.sqlite").exists(), (data / bulk.LOADING).exists()))
filler.unlink()
print("again=" + load(False))
conn = sqlite3.connect(data / "memory.sqlite")
print("rows=%d" % conn.execute("SELECT count(*) FROM chunk_rows").fetchone()[0])
print("integrity=" + conn.execute("PRAGMA integrity_check").fetchone()[0])
"""


@pytest.mark.timeout(600)
@pytest.mark.skipif(not can_unshare(), reason="needs `unshare -m` (root or user namespaces) to mount a small tmpfs")
def test_a_disk_full_during_the_swap_leaves_no_database_and_the_load_completes_once_space_frees(tmp_path):
    paths = ", ".join(repr(str(ROOT / p)) for p in ("adapters/sqlite", "adapters/common"))
    (tmp_path / "load.py").write_text(LOAD.format(paths=paths, n=N, batch=BATCH))
    out = in_tmpfs(tmp_path, "48m", "$PY load.py $M/data $M/filler 2> err.txt")
    err = (tmp_path / "err.txt").read_text()
    assert status(out) == {
        "first": "refused",
        "db": "0",
        "loading": "0",
        "again": "done",
        "rows": str(N),
        "integrity": "ok",
    }, out.stdout + out.stderr + err
    assert "disk full: no space left on the device holding" in err and "putting the loaded database in place" in err
    assert "Traceback" not in err
