"""A backend several writers share: each index call upserts its bundle's records into one SQLite file in the
data dir (by id, so a record sent twice is stored once) and logs every record it was sent, with its pid, and in a
file per process whether the runner said it verified the bundle."""

import os
import sqlite3
import time
from pathlib import Path

from memdock.sdk import Adapter, Context, serve

SCHEMA = """
CREATE TABLE IF NOT EXISTS records(id TEXT PRIMARY KEY, type TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sends(id TEXT NOT NULL, pid INTEGER NOT NULL);
"""


def open_shared(path: Path) -> sqlite3.Connection:
    """The shared file, in WAL mode, its tables made. Several shards may be the first to open it: switching the
    journal mode reads the file and then needs it alone, and SQLite answers "locked" at once rather than wait
    when another connection is doing the same (either waiting would deadlock), so that step is retried."""
    db = sqlite3.connect(path, timeout=60, isolation_level=None)
    deadline = time.monotonic() + 60
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    db.executescript(SCHEMA)
    return db


class SharedStore(Adapter):
    descriptor_path = Path(__file__).with_name("adapter.json")

    def active_features(self, ctx: Context):
        features = super().active_features(ctx)
        if ctx.config.get("one_writer"):
            features["concurrent_index"] = False
        return features

    def healthcheck(self, ctx: Context):
        return {"ok": True, "backend": self.name}

    def index(self, ctx: Context):
        db = open_shared(ctx.data_dir / "store.sqlite")
        (ctx.data_dir / f"verified-{os.getpid()}").write_text(str(ctx.verified))
        reader = ctx.input_bundle()
        crash_on, indexed = ctx.config.get("crash_on"), {}
        for rtype in reader.record_types():
            if rtype == "embedding":
                continue
            for rec in reader.records(rtype):
                db.execute("INSERT OR REPLACE INTO records(id, type) VALUES (?, ?)", (rec["id"], rtype))
                db.execute("INSERT INTO sends(id, pid) VALUES (?, ?)", (rec["id"], os.getpid()))
                indexed[rtype] = indexed.get(rtype, 0) + 1
                if rec["id"] == crash_on:
                    os._exit(3)
        db.close()
        return {"indexed": indexed}

    def query(self, ctx: Context):
        return {"hits": [], "backend": self.name}


if __name__ == "__main__":
    serve(SharedStore())
