"""The kit's golden corpus: small, deterministic, with queries whose answers are known."""

from __future__ import annotations

from pathlib import Path

from ..bundle import BundleWriter
from ..ids import content_hash

T0 = "2025-06-01T09:00:00Z"

ENTRIES = [
    ("thread:kit-ops", "Kerosene heaters keep the falcon aviary warm through the winter migration."),
    ("thread:kit-ops", "The quarterly budget review approved three new telescope lenses."),
    ("thread:kit-ops", "Volunteers repainted the lighthouse stairwell with marine varnish."),
    ("thread:kit-ops", "Ana replied that the aviary heaters need a carbon monoxide alarm."),
    ("thread:kit-dev", "The tokenizer crashed on emoji input until the unicode normaliser was patched."),
    ("thread:kit-dev", "We migrated the billing service from cron jobs to a durable queue."),
    ("thread:kit-dev", "Latency of the search endpoint dropped after adding a trigram index."),
    ("thread:kit-dev", "Decision: freeze the public schema until the next major version."),
    ("thread:kit-life", "The sourdough starter doubled overnight in the warm pantry."),
    ("thread:kit-life", "Marisol booked the glacier hike for the second weekend of August."),
    ("thread:kit-life", "A heron nested beside the old mill pond again this spring."),
    ("thread:kit-life", "The bicycle chain snapped on the gravel descent near the quarry."),
]

QUERIES = [
    ("kerosene heaters falcon", "entry:kit-0"),
    ("telescope lenses budget", "entry:kit-1"),
    ("tokenizer emoji unicode", "entry:kit-4"),
    ("billing durable queue", "entry:kit-5"),
    ("sourdough starter pantry", "entry:kit-8"),
    ("glacier hike august", "entry:kit-9"),
]

DELETE_ENTRY = "entry:kit-2"
DELETE_QUERY = "lighthouse stairwell varnish"


def chunk_id(i: int) -> str:
    return f"chunk:kit-{i}"


def write_golden(path: Path, *, extra: int = 0) -> Path:
    """The golden chunks bundle; EXTRA adds filler entries (for the resume check)."""
    entries = list(ENTRIES) + [
        ("thread:kit-bulk", f"Filler note {i} about routine item {i * 7 % 101}.") for i in range(extra)
    ]
    threads = sorted({t for t, _ in entries})
    with BundleWriter(path, "chunks", producer=("memdock-conformance", "1")) as w:
        for t in threads:
            w.write("thread", {"id": t, "title": t.split(":")[1], "ingestion_time": T0, "event_time": T0})
        positions: dict[str, int] = {}
        for i, (t, text) in enumerate(entries):
            pos = positions[t] = positions.get(t, -1) + 1
            eid = f"entry:kit-{i}"
            w.write(
                "entry",
                {
                    "id": eid,
                    "thread_id": t,
                    "position": pos,
                    "body": text,
                    "author": "kit",
                    "ingestion_time": T0,
                    "event_time": T0,
                },
            )
            w.write(
                "edge",
                {"id": f"edge:kit-contains-{i}", "type": "contains", "source_id": t, "target_id": eid, "thread_id": t},
            )
            w.write(
                "chunk",
                {
                    "id": chunk_id(i),
                    "entry_id": eid,
                    "thread_id": t,
                    "position": 0,
                    "text": text,
                    "start": 0,
                    "end": len(text),
                    "token_count": len(text.split()),
                    "content_hash": content_hash(text),
                    "author": "kit",
                    "event_time": T0,
                },
            )
    return path


def write_bad_bundle(path: Path) -> tuple[Path, str]:
    """A bundle whose chunk file has a schema violation on line 2 (manifest consistent). Returns (bundle, part name)."""
    with BundleWriter(path, "chunks", validate=False) as w:
        w.write(
            "chunk",
            {
                "id": "chunk:ok",
                "entry_id": "entry:ok",
                "thread_id": "thread:ok",
                "position": 0,
                "text": "fine",
                "start": 0,
                "end": 4,
                "token_count": 1,
                "content_hash": content_hash("fine"),
            },
        )
        w.write(
            "chunk",
            {
                "id": "chunk:bad",
                "entry_id": "entry:ok",
                "thread_id": "thread:ok",
                "position": 1,
                "start": 0,
                "end": 4,
                "token_count": 1,
                "content_hash": content_hash("fine"),
            },
        )
    return path, "chunk-00001.jsonl"


TAGGED = [("a", "The copper kettle sits on shelf a."), ("b", "The copper kettle sits on shelf b."),
          ("c", "The copper kettle sits on shelf c.")]  # fmt: skip
TAGGED_QUERY = "copper kettle shelf"


def write_tagged(path: Path) -> Path:
    """A chunks bundle of TAGGED entries alike in words, each chunk with metadata {"shelf": its letter}."""
    thread = "thread:kit-tags"
    with BundleWriter(path, "chunks", producer=("memdock-conformance", "1")) as w:
        w.write("thread", {"id": thread, "title": "kit-tags", "ingestion_time": T0, "event_time": T0})
        for i, (shelf, text) in enumerate(TAGGED):
            eid, meta = f"entry:kit-tag-{i}", {"shelf": shelf}
            w.write("entry", {"id": eid, "thread_id": thread, "position": i, "body": text, "metadata": meta,
                              "ingestion_time": T0, "event_time": T0})  # fmt: skip
            w.write("chunk", {"id": f"chunk:kit-tag-{i}", "entry_id": eid, "thread_id": thread, "position": 0,
                              "text": text, "start": 0, "end": len(text), "token_count": len(text.split()),
                              "content_hash": content_hash(text), "metadata": meta})  # fmt: skip
    return path


CROSSED_KEEP, CROSSED_GONE = "thread:kit-keep", "thread:kit-gone"
# (entry id, its entry's thread, the thread its chunk is sent with, the text): entries 0 and 3 are crossed
CROSSED = [
    ("entry:kit-x-0", CROSSED_KEEP, CROSSED_GONE, "Otters stacked smooth pebbles along the estuary bank at dusk."),
    ("entry:kit-x-1", CROSSED_GONE, CROSSED_GONE, "The harpsichord tuner replaced two brittle quills for the recital."),
    ("entry:kit-x-2", CROSSED_KEEP, CROSSED_KEEP, "Snow plough drivers salted the mountain pass twice overnight."),
    ("entry:kit-x-3", CROSSED_GONE, CROSSED_KEEP, "A cartographer redrew the archipelago after the volcanic eruption."),
]


def crossed_chunk_id(entry_id: str) -> str:
    return "chunk:" + entry_id.split(":", 1)[1]


def write_crossed(path: Path) -> Path:
    """A chunks bundle of CROSSED: two threads, and a chunk in each sent with the other thread than its entry's."""
    with BundleWriter(path, "chunks", producer=("memdock-conformance", "1")) as w:
        for t in (CROSSED_KEEP, CROSSED_GONE):
            w.write("thread", {"id": t, "title": t.split(":")[1], "ingestion_time": T0, "event_time": T0})
        for pos, (eid, thread, sent_with, text) in enumerate(CROSSED):
            w.write("entry", {"id": eid, "thread_id": thread, "position": pos, "body": text, "author": "kit",
                              "ingestion_time": T0, "event_time": T0})  # fmt: skip
            w.write("chunk", {"id": crossed_chunk_id(eid), "entry_id": eid, "thread_id": sent_with, "position": 0,
                              "text": text, "start": 0, "end": len(text), "token_count": len(text.split()),
                              "content_hash": content_hash(text), "author": "kit", "event_time": T0})  # fmt: skip
    return path
