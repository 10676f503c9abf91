"""`memdock shard`: a bundle split by thread into N valid, self-contained, balanced bundles, the same every time,
whose indexing one by one leaves the store the whole bundle would."""

import filecmp
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.entry_bundles import chat_bundle

from memdock.bundle import BundleReader
from memdock.errors import InvalidInputError
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend
from memdock.shard import shard_bundle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


def records(bundle: Path) -> dict[str, dict[str, dict]]:
    reader = BundleReader(bundle)
    return {t: {r["id"]: r for r in reader.records(t)} for t in reader.record_types() if t != "embedding"}


def test_shards_partition_the_threads_and_carry_what_they_touch(tmp_path):
    bundle = chat_bundle(tmp_path)
    done = shard_bundle(bundle, 4, tmp_path / "shards")
    whole = records(bundle)
    parts = [records(p) for p in done.paths]
    for p in done.paths:
        assert BundleReader(p).verify() == []
    for rtype in ("thread", "entry", "chunk", "edge"):
        ids = [i for part in parts for i in part.get(rtype, {})]
        assert sorted(ids) == sorted(whole[rtype]), f"every {rtype} in exactly one shard"
    for part in parts:
        threads = set(part["thread"])
        assert all(r["thread_id"] in threads for t in ("entry", "chunk", "edge") for r in part.get(t, {}).values())
        touched = {r[k] for r in part.get("edge", {}).values() for k in ("source_id", "target_id")}
        assert {e for e in whole.get("entity", {}) if e in touched} <= set(part.get("entity", {}))
    assert max(done.sizes) <= 1.5 * min(done.sizes), done.sizes


def test_the_same_input_gives_the_same_shards(tmp_path):
    bundle = chat_bundle(tmp_path)
    a, b = shard_bundle(bundle, 3, tmp_path / "a"), shard_bundle(bundle, 3, tmp_path / "b")
    for pa, pb in zip(a.paths, b.paths):
        for f in sorted(p.name for p in pa.iterdir() if p.suffix == ".jsonl"):
            assert filecmp.cmp(pa / f, pb / f, shallow=False), f


def test_indexing_the_shards_leaves_the_store_the_whole_bundle_would(tmp_path):
    bundle = chat_bundle(tmp_path)
    done = shard_bundle(bundle, 3, tmp_path / "shards")
    sqlite = Registry().get("sqlite")

    def state(b: SubprocessBackend) -> tuple:
        # exact ids only for a query without ties: among equal BM25 scores the order is the insertion order
        return b.counts(), b.threads(), [h.id for h in b.query("room 7 message 12", limit=1).hits]

    with SubprocessBackend(sqlite, tmp_path / "whole") as b:
        b.index(bundle)
        whole = state(b)
    with SubprocessBackend(sqlite, tmp_path / "sharded") as b:
        for p in reversed(done.paths):
            b.index(p)
        again = b.index(done.paths[0])
        sharded = state(b)
    assert sharded == whole and again.deleted == 0 and sum(again.details["sent"].values()) == 0


@pytest.mark.parametrize("n", [0, -1, 5000, True, 2.5])
def test_a_bad_count_is_refused(tmp_path, n):
    with pytest.raises(InvalidInputError, match="number of shards"):
        shard_bundle(chat_bundle(tmp_path), n, tmp_path / "out")


def test_bad_places_are_refused_and_nothing_is_written(tmp_path):
    bundle = chat_bundle(tmp_path)
    with pytest.raises(InvalidInputError, match="inside the bundle"):
        shard_bundle(bundle, 2, bundle / "shards")
    assert not (bundle / "shards").exists()
    with pytest.raises(InvalidInputError, match="not a memdock bundle|manifest"):
        shard_bundle(FIXTURES, 2, tmp_path / "out")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "thesis.docx").write_text("precious")
    with pytest.raises(InvalidInputError, match="not empty"):
        shard_bundle(bundle, 2, tmp_path / "full")
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["thesis.docx"]


def test_the_cli(tmp_path):
    bundle = chat_bundle(tmp_path)
    env = {"MEMDOCK_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-m", "memdock", "shard", str(bundle), "-n", "2", "-o", str(tmp_path / "s"), "--json"]
    out = subprocess.run(run, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert [Path(s["path"]).name for s in json.loads(out.stdout)] == ["shard-0000", "shard-0001"]
    bad = subprocess.run([*run[:5], "-n", "0", "-o", str(tmp_path / "t")], capture_output=True, text=True, env=env)
    assert bad.returncode == 4 and "-n/--shards must be an integer from 1" in bad.stderr
