"""`memdock add` into tantivy with the adapter reading the pass's records on stdin as they are made
(`engine/stream.py`): the same answers as the adapter reading the sealed journal segment after the pass, and no
entry's text stored again beside its chunks (its edges wait for the stream's end, see `sdk/stream.py`)."""

import json
from pathlib import Path

from support.answers import answers
from tantivy_support import REAL_HOME, backend, gate
from test_tantivy_text_once import stored_entries

from memdock.chunking import ChunkOptions
from memdock.importers.onepass import ImportFeed

pytestmark = gate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"
QUERIES = ("thundering herd after cache expiry", "mentions file migrate_v2", "deploy rollback", "who owns the cache")


def notes(path: Path, n: int) -> Path:
    with open(path, "w") as f:
        for i in range(n):
            note = {"id": f"n{i:05d}", "thread": f"t{i // 25}", "text": f"note {i} on Paris and Rome, by @ana"}
            f.write(json.dumps(note) + "\n")
    return path


def add(store: Path, feed: ImportFeed, streamed: str, monkeypatch) -> dict:
    """FEED added into STORE (MEMDOCK_INDEX_STREAM=STREAMED); its answers and its data's size."""
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", streamed)
    with backend(store) as b:
        result = b.index(feed)
        assert ("input_stream" in result.details) is (streamed == "1")
        return {"answers": answers(b, QUERIES)}


def test_a_streamed_add_answers_as_one_from_the_sealed_segment_and_stores_the_text_once(tmp_path, monkeypatch):
    if REAL_HOME:
        monkeypatch.setenv("MEMDOCK_HOME", REAL_HOME)
    fixtures = sorted(FIXTURES.glob("*.md"))
    threads = [
        add(tmp_path / f"t{s}", ImportFeed(fixtures, "watercooler", ChunkOptions()), s, monkeypatch) for s in "10"
    ]
    assert threads[0]["answers"] == threads[1]["answers"] and threads[0]["answers"]["counts"]["entry"] > 0
    source = notes(tmp_path / "notes.jsonl", 12000)  # past sdk/stream.GROUP: entries and chunks come interleaved
    many = [add(tmp_path / f"notes{s}", ImportFeed([source], "jsonl", ChunkOptions()), s, monkeypatch) for s in "10"]
    assert many[0]["answers"]["counts"] == many[1]["answers"]["counts"]
    for s in "10":
        stored = stored_entries(tmp_path / f"notes{s}")
        assert stored and not [i for i, (body, _) in stored.items() if body], "an entry's text is stored once"
