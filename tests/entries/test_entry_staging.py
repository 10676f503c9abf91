"""Staging in the entry catalog (memdock_entries, under openmemory and mem0) is per adapter process: shard
processes indexing into one store at once (openmemory declares `parallel_writers: shared`) each see only their own
entries. When staging lived in shared tables, the second process's staging cleared the first's and each wrote the
other's entries: an OpenMemory server ended up holding an entry twice (seen in CI on a loaded box).

Staging needs neither mem0 nor a server, so this runs in memdock's own environment, ungated."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "common"))
from memdock_entries.catalog import Catalog
from memdock_entries.staging import stage

from memdock.bundle import BundleReader
from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.shard import shard_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"
MAX_CHARS = 100_000


@pytest.fixture
def shards(tmp_path) -> list[Path]:
    import_corpus([FIXTURES], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    return shard_bundle(tmp_path / "chunks", 2, tmp_path / "shards").paths


def entry_ids(bundle: Path) -> set[str]:
    return {rec["id"] for rec in BundleReader(bundle).records("entry")}


def test_each_process_writes_only_the_entries_it_staged(tmp_path, shards):
    first, second = Catalog(tmp_path / "data"), Catalog(tmp_path / "data")
    try:
        stage(BundleReader(shards[0]), first, MAX_CHARS)
        stage(BundleReader(shards[1]), second, MAX_CHARS)
        mine = {entry["id"] for entry in first.staged()}
        theirs = {entry["id"] for entry in second.staged()}
        assert mine == entry_ids(shards[0]) and theirs == entry_ids(shards[1])
        assert first.staged_count() == len(mine) and second.staged_count() == len(theirs)
        second.clear_staged()
        assert {entry["id"] for entry in first.staged()} == mine
    finally:
        first.close()
        second.close()


def test_a_catalog_from_before_per_process_staging_opens_without_its_old_staging_tables(tmp_path, shards):
    (tmp_path / "data").mkdir()
    old = sqlite3.connect(tmp_path / "data" / "catalog.sqlite")
    old.execute("CREATE TABLE staged (seq INTEGER PRIMARY KEY, event_time TEXT, entry TEXT NOT NULL)")
    old.execute('INSERT INTO staged (entry) VALUES (\'{"id": "left-over"}\')')
    old.commit()
    old.close()
    catalog = Catalog(tmp_path / "data")
    try:
        assert catalog.staged_count() == 0
        stage(BundleReader(shards[0]), catalog, MAX_CHARS)
        assert {entry["id"] for entry in catalog.staged()} == entry_ids(shards[0])
    finally:
        catalog.close()
    tables = sqlite3.connect(tmp_path / "data" / "catalog.sqlite").execute("SELECT name FROM sqlite_master").fetchall()
    assert ("staged",) not in tables
