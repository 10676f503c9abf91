"""A backend several writers share: each index call upserts its bundle's records into one SQLite file in the
data dir (by id, so a record sent twice is stored once) and logs every record it was sent, with its pid."""

import os
import sqlite3
import sys
from pathlib import Path

from memdock.sdk import Adapter, Context, serve

SCHEMA = """
CREATE TABLE IF NOT EXISTS records(id TEXT PRIMARY KEY, type TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sends(id TEXT NOT NULL, pid INTEGER NOT NULL);
"""


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
        db = sqlite3.connect(ctx.data_dir / "store.sqlite", timeout=60, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
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
    sys.exit(serve(SharedStore()))
