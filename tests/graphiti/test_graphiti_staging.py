"""Staging is per adapter process: two processes staging shards into one store's catalog (parallel writers on a
shared FalkorDB) each see only their own episodes. When staging lived in shared tables, the second process
cleared the first's and each wrote the other's episodes, so a thread's entities were extracted twice over.

Staging needs no graphiti_core, so this runs in memdock's own environment, ungated."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "graphiti"))
from memdock_graphiti.catalog import Catalog
from memdock_graphiti.settings import Settings
from memdock_graphiti.staging import stage

from memdock.bundle import BundleReader
from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.shard import shard_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


@pytest.fixture
def shards(tmp_path) -> list[Path]:
    import_corpus([FIXTURES], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    return shard_bundle(tmp_path / "chunks", 2, tmp_path / "shards").paths


def entry_ids(bundle: Path) -> set[str]:
    return {rec["id"] for rec in BundleReader(bundle).records("entry")}


def test_each_process_writes_only_the_episodes_it_staged(tmp_path, shards):
    first, second = Catalog(tmp_path / "data"), Catalog(tmp_path / "data")
    try:
        stage(BundleReader(shards[0]), first, Settings())
        stage(BundleReader(shards[1]), second, Settings())
        mine = {ep["source_id"] for ep in first.staged()}
        theirs = {ep["source_id"] for ep in second.staged()}
        assert mine == entry_ids(shards[0]) and theirs == entry_ids(shards[1])
        assert first.staged_count() == len(mine) and second.staged_count() == len(theirs)
        second.clear_staged()
        assert {ep["source_id"] for ep in first.staged()} == mine
    finally:
        first.close()
        second.close()


def test_a_catalog_from_before_per_process_staging_opens_without_its_old_staging_tables(tmp_path, shards):
    import sqlite3

    (tmp_path / "data").mkdir()
    old = sqlite3.connect(tmp_path / "data" / "catalog.sqlite")
    old.execute("CREATE TABLE staged (seq INTEGER PRIMARY KEY, uuid TEXT, event_time TEXT, episode TEXT)")
    old.execute("INSERT INTO staged (uuid, episode) VALUES ('left-over', '{}')")
    old.commit()
    old.close()
    catalog = Catalog(tmp_path / "data")
    try:
        assert catalog.staged_count() == 0
        stage(BundleReader(shards[0]), catalog, Settings())
        assert {ep["source_id"] for ep in catalog.staged()} == entry_ids(shards[0])
    finally:
        catalog.close()
    tables = sqlite3.connect(tmp_path / "data" / "catalog.sqlite").execute("SELECT name FROM sqlite_master").fetchall()
    assert ("staged",) not in tables
