"""Staging is per adapter process, in both catalogs that stage a run (graphiti's, and memdock_entries' under
openmemory and mem0): two processes staging shards into one store's catalog (parallel writers on a shared server)
each see only their own records, and a catalog from before opens without its old staging tables.

When staging lived in shared tables, the second process cleared the first's and each wrote the other's records:
graphiti extracted a thread's entities twice over, and an OpenMemory server held an entry twice (seen in CI on a
loaded box). Staging needs neither graphiti_core, mem0 nor a server, so this runs in memdock's own environment,
ungated."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "graphiti"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "common"))
import memdock_entries.catalog
import memdock_entries.staging
import memdock_graphiti.catalog
import memdock_graphiti.settings
import memdock_graphiti.staging

from memdock.bundle import BundleReader
from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.shard import shard_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


@dataclass(frozen=True)
class Staging:
    catalog: Callable[[Path], Any]
    stage: Callable[[BundleReader, Any], object]
    entry_key: str
    """The field of a staged record that holds the id of its entry."""
    old_table: str
    old_row: str


KINDS = {
    "graphiti": Staging(
        memdock_graphiti.catalog.Catalog,
        lambda reader, catalog: memdock_graphiti.staging.stage(reader, catalog, memdock_graphiti.settings.Settings()),
        "source_id",
        "CREATE TABLE staged (seq INTEGER PRIMARY KEY, uuid TEXT, event_time TEXT, episode TEXT)",
        "INSERT INTO staged (uuid, episode) VALUES ('left-over', '{}')",
    ),
    "entries": Staging(
        memdock_entries.catalog.Catalog,
        lambda reader, catalog: memdock_entries.staging.stage(reader, catalog, 100_000),
        "id",
        "CREATE TABLE staged (seq INTEGER PRIMARY KEY, event_time TEXT, entry TEXT NOT NULL)",
        'INSERT INTO staged (entry) VALUES (\'{"id": "left-over"}\')',
    ),
}


@pytest.fixture(params=list(KINDS))
def kind(request) -> Staging:
    return KINDS[request.param]


@pytest.fixture
def shards(tmp_path) -> list[Path]:
    import_corpus([FIXTURES], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    return shard_bundle(tmp_path / "chunks", 2, tmp_path / "shards").paths


def entry_ids(bundle: Path) -> set[str]:
    return {rec["id"] for rec in BundleReader(bundle).records("entry")}


def staged_ids(kind: Staging, catalog: Any) -> set[str]:
    return {record[kind.entry_key] for record in catalog.staged()}


def test_each_process_writes_only_the_records_it_staged(tmp_path, shards, kind):
    first, second = kind.catalog(tmp_path / "data"), kind.catalog(tmp_path / "data")
    try:
        kind.stage(BundleReader(shards[0]), first)
        kind.stage(BundleReader(shards[1]), second)
        mine, theirs = staged_ids(kind, first), staged_ids(kind, second)
        assert mine == entry_ids(shards[0]) and theirs == entry_ids(shards[1])
        assert first.staged_count() == len(mine) and second.staged_count() == len(theirs)
        second.clear_staged()
        assert staged_ids(kind, first) == mine
    finally:
        first.close()
        second.close()


def test_a_catalog_from_before_per_process_staging_opens_without_its_old_staging_tables(tmp_path, shards, kind):
    (tmp_path / "data").mkdir()
    old = sqlite3.connect(tmp_path / "data" / "catalog.sqlite")
    old.execute(kind.old_table)
    old.execute(kind.old_row)
    old.commit()
    old.close()
    catalog = kind.catalog(tmp_path / "data")
    try:
        assert catalog.staged_count() == 0
        kind.stage(BundleReader(shards[0]), catalog)
        assert staged_ids(kind, catalog) == entry_ids(shards[0])
    finally:
        catalog.close()
    tables = sqlite3.connect(tmp_path / "data" / "catalog.sqlite").execute("SELECT name FROM sqlite_master").fetchall()
    assert ("staged",) not in tables
