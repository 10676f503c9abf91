"""`text_once.Held` lets an entry go as soon as its chunks seen hold its text: a streamed `memdock add` of more
text than `held_mb` still stores every entry its chunks hold without its body (it held them all until the end of
the run before, and stored those past the bound with their body), and answers as a store that held them all. A
chunk that comes for an entry already let go (a bundle's chunks in another order) takes it back, so the entry is
stored as all of the run's chunks of it say."""

from __future__ import annotations

import json
from pathlib import Path

from support.answers import answers
from tantivy_support import REAL_HOME, backend, gate, in_adapter
from test_tantivy_text_once import BODY, HALF, STORED, bundle, chunk, flags, send, text_of

from memdock.chunking import ChunkOptions
from memdock.importers.onepass import ImportFeed

pytestmark = gate

QUERIES = ("Paris harbour", "Rome", "note 11999", "ana")
NOTES = 12_000  # 1.5 MB of text, past a 1 MB bound; a stream holds at most a group (5,000 entries) at once


def stored_entries(store: Path) -> dict[str, tuple[bool, bool]]:
    """Entry id -> (its body is stored, it is flagged as held by its chunks), for every entry of STORE."""
    out = in_adapter(STORED.replace(", 1000)", f", {2 * NOTES})"), str(store / "data")).split("\n")
    return {i: (body == "True", flag == "True") for i, body, flag, _ in (line.split() for line in out if line)}


def notes(path: Path) -> Path:
    with open(path, "w") as f:
        for i in range(NOTES):
            text = f"note {i} on Paris and Rome, by @ana: the harbour log of the day, the tides and the ships {i % 97}"
            f.write(json.dumps({"id": f"n{i:05d}", "thread": f"t{i // 25}", "text": text}) + "\n")
    return path


def test_a_stream_past_the_bound_stores_every_entry_its_chunks_hold_without_its_body(tmp_path, monkeypatch):
    if REAL_HOME:
        monkeypatch.setenv("MEMDOCK_HOME", REAL_HOME)
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", "1")
    source = notes(tmp_path / "notes.jsonl")
    assert source.stat().st_size > 1_300_000
    got = {}
    for name, config in (("bound", {"held_mb": 1}), ("unbound", {})):
        with backend(tmp_path / name, config) as b:
            assert "input_stream" in b.index(ImportFeed([source], "jsonl", ChunkOptions())).details
            got[name] = answers(b, QUERIES)
            got[name]["nodes"] = [b.call("get_node", {"id": f"entry:n{i:05d}"}) for i in (0, 5000, 11999)]
        stored = stored_entries(tmp_path / name)
        assert len(stored) == NOTES
        assert not [i for i, (body, flag) in stored.items() if body or not flag], "every entry without its body"
    assert got["bound"] == got["unbound"] and got["bound"]["counts"]["entry"] == NOTES


def test_a_chunk_after_its_entry_left_takes_it_back(tmp_path):
    """Batches of 2 records: e:late's first chunk holds its whole body, and it leaves; a chunk of it with another
    text comes two batches later, so it is stored with its body (as when it was held to the end). e:split's halves
    come in two batches, out of order: stored without its body."""
    halves = [chunk("chunk:s1", "e:split", 1, HALF, len(BODY)), chunk("chunk:s0", "e:split", 0, 0, HALF)]
    chunks = [
        chunk("chunk:l0", "e:late", 0, 0, len(BODY)),
        halves[0],
        chunk("chunk:o0", "e:other", 0, 0, len(BODY)),
        halves[1],
        chunk("chunk:l1", "e:late", 1, HALF, len(BODY), body="x" * len(BODY)),  # not its text
    ]
    path = bundle(tmp_path / "b", ["e:late", "e:split", "e:other"], chunks)
    with backend(tmp_path / "s", {"batch_size": 2}) as b:
        send(b, path)
        assert [text_of(b, e) for e in ("e:late", "e:split", "e:other")] == [BODY] * 3
    assert flags(tmp_path / "s") == {"e:late": "0", "e:split": "True", "e:other": "True"}
