"""The memory outlives its backend: every index run's records are kept in the store's journal, `memdock export`
writes the live ones as a valid bundle, `memdock migrate` moves them to another backend, `forget` removes
them from the journal's files too, and `Memory.list` pages through a thread."""

import gzip
import json
from pathlib import Path

from support.cli import memdock

from memdock import Memory
from memdock.bundle import BundleReader
from memdock.engine.journal import Journal
from memdock.inprocess import InProcessBackend

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "threads"


def records(bundle: Path) -> dict[str, dict[str, dict]]:
    reader = BundleReader(bundle)
    return {t: {r["id"]: r for r in reader.records(t)} for t in reader.record_types() if t != "embedding"}


def test_export_holds_what_was_indexed_and_remembered_and_nothing_forgotten(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    assert memdock("add", str(FIXTURES), "-f", "watercooler", *store, home=tmp_path).returncode == 0
    note = json.loads(
        memdock("remember", "The pager moves to Opsgenie.", "--thread", "ops", "--json", *store, home=tmp_path).stdout
    )
    doomed = json.loads(
        memdock("remember", "The wifi password is hunter2.", "--thread", "ops", "--json", *store, home=tmp_path).stdout
    )
    assert memdock("forget", doomed["id"], *store, home=tmp_path).returncode == 0

    out = memdock("export", "-o", str(tmp_path / "export"), "--json", *store, home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert BundleReader(tmp_path / "export").verify() == []
    exported = records(tmp_path / "export")
    assert note["id"] in exported["entry"] and doomed["id"] not in exported["entry"]
    assert len(exported["entry"]) == 8 + 1 and len(exported["thread"]) == 3 + 1
    status = json.loads(out.stdout)
    assert status["counts"]["entry"] == 9 and status["missing"] == 0
    on_disk = b"".join(
        gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
        for p in (tmp_path / "store" / "journal").rglob("*.jsonl*")
    )
    assert b"hunter2" not in on_disk, "forget removed the note from the journal's files too"

    only = memdock("export", "--thread", "ops", "-o", str(tmp_path / "ops"), *store, home=tmp_path)
    assert only.returncode == 0, only.stderr
    assert set(records(tmp_path / "ops")["entry"]) == {note["id"]}


def test_a_reindex_keeps_one_live_version_of_each_record(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("first version of the note about kites")
    store = ["--data-dir", str(tmp_path / "store")]
    assert memdock("add", str(src), "-f", "text", *store, home=tmp_path).returncode == 0
    (src / "a.txt").write_text("second version of the note about kites")
    assert memdock("add", str(src), "-f", "text", *store, home=tmp_path).returncode == 0
    assert memdock("export", "-o", str(tmp_path / "export"), *store, home=tmp_path).returncode == 0
    bodies = [e["body"] for e in records(tmp_path / "export")["entry"].values()]
    assert bodies == ["second version of the note about kites"]


def test_migrate_moves_the_memory_to_another_backend_with_the_same_ids(tmp_path):
    source = ["--data-dir", str(tmp_path / "sqlite")]
    assert memdock("add", str(FIXTURES), "-f", "watercooler", *source, home=tmp_path).returncode == 0
    assert memdock("remember", "Kites fly on Tuesdays.", "--thread", "kites", *source, home=tmp_path).returncode == 0
    moved = memdock("migrate", "--to", "sqlite", "--to-data-dir", str(tmp_path / "copy"), *source, home=tmp_path)
    assert moved.returncode == 0, moved.stderr

    def top(data_dir: Path, query: str) -> list[str]:
        out = memdock("recall", query, "-n", "5", "--json", "--data-dir", str(data_dir), home=tmp_path)
        return [h["id"] for h in json.loads(out.stdout)["hits"]]

    for query in ("thundering herd cache", "kites tuesday", "staging approval"):
        assert top(tmp_path / "sqlite", query) == top(tmp_path / "copy", query), query


def test_bad_input_for_export_and_migrate(tmp_path):
    empty = memdock("export", "-o", str(tmp_path / "out"), "--data-dir", str(tmp_path / "nothing"), home=tmp_path)
    assert empty.returncode == 4 and "holds nothing to export" in empty.stderr
    assert not (tmp_path / "out").exists()
    unknown = memdock("migrate", "--to", "no-such-backend", "--data-dir", str(tmp_path / "nothing"), home=tmp_path)
    assert unknown.returncode == 3 and "no-such-backend" in unknown.stderr
    same = memdock(
        "migrate",
        "--to",
        "sqlite",
        "--data-dir",
        str(tmp_path / "s"),
        "--to-data-dir",
        str(tmp_path / "s"),
        home=tmp_path,
    )
    assert same.returncode == 4 and "the same store" in same.stderr


def test_memory_list_pages_through_a_thread_in_time_order(tmp_path):
    with Memory(InProcessBackend.bundled("sqlite", tmp_path / "store")) as memory:
        made = memory.remember_many(
            [
                {"content": f"step {i} of the runbook", "thread": "runbook", "time": f"2026-01-0{i}T10:00:00Z"}
                for i in range(1, 6)
            ]
            + [{"content": "elsewhere", "thread": "other"}]
        )
        first = memory.list(thread="runbook", limit=3)
        rest = memory.list(thread="runbook", limit=3, offset=3)
        assert [e.id for e in first + rest] == [r.id for r in made[:5]]
        assert first[0].text == "step 1 of the runbook" and first[0].thread_id == made[0].thread_id
        assert first[0].time == "2026-01-01T10:00:00Z"
        memory.forget(made[1].id)
        assert [e.id for e in memory.list(thread="runbook")] == [made[i].id for i in (0, 2, 3, 4)]
        assert memory.list(thread="nobody") == []


def test_a_forget_killed_between_its_renames_is_finished_on_the_next_read(tmp_path):
    with Memory(InProcessBackend.bundled("sqlite", tmp_path / "store")) as memory:
        memory.remember("a note to keep", thread="t")
    journal = Journal(tmp_path / "store" / "journal")
    (segment,) = journal.segments()
    segment.rename(segment.with_name(segment.name + ".old"))
    assert [s.name for s in journal.segments()] == [segment.name]
