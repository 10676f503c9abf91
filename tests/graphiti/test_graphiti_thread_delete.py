"""What a thread's delete takes in the catalog (memdock_graphiti/catalog.py, forget.py), without graphiti or a
model: with episodes made of chunks, the episodes of the chunks sent with the thread and those of its entries'
chunks sent with another thread (the kit's crossed bundle, conformance/golden.py), and an entry's its chunks'. Not
gated."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memdock.bundle import BundleReader
from memdock.conformance import golden

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "graphiti"))
from memdock_graphiti.catalog import Catalog, episode_uuid
from memdock_graphiti.settings import Settings
from memdock_graphiti.staging import stage


@pytest.mark.parametrize("source", ["chunks", "entries"])
def test_a_threads_episodes_include_its_entries_chunks_sent_with_another_thread(tmp_path, source):
    cat = Catalog(tmp_path / "data")
    stage(BundleReader(golden.write_crossed(tmp_path / "b")), cat, Settings(episode_source=source))
    with cat.transaction():
        for ep in list(cat.staged()):
            cat.mark(ep, "committed")
    got = {u for u, _ in cat.resolve(golden.CROSSED_GONE)}
    if source == "chunks":  # an episode a chunk, in the thread it was sent with
        want = {episode_uuid(golden.crossed_chunk_id(f"entry:kit-x-{i}")) for i in (0, 1, 3)}
    else:  # an episode an entry, in its thread, its chunks members wherever they were sent
        want = {episode_uuid(f"entry:kit-x-{i}") for i in (1, 3)}
    assert got == want
    members = {m for u in got for m in cat.members(u)}
    assert "chunk:kit-x-3" in members and "chunk:kit-x-2" not in members


def test_an_entrys_episodes_include_those_of_its_chunks_when_episodes_are_chunks(tmp_path):
    cat = Catalog(tmp_path / "data")
    stage(BundleReader(golden.write_crossed(tmp_path / "b")), cat, Settings(episode_source="chunks"))
    with cat.transaction():
        for ep in list(cat.staged()):
            cat.mark(ep, "committed")
    assert [u for u, _ in cat.resolve("entry:kit-x-0")] == [episode_uuid("chunk:kit-x-0")]
