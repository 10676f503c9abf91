"""Payload 1.2.0's implied structural edges: an entry carrying `implied_edges` expands (`sdk/implied.py`) into
exactly the contains / follows / mentions edge records `importers.base.structure` makes today, byte for byte, on
every shared corpus; and the entry schema refuses a malformed `implied_edges` naming the field."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes

from memdock.bundle import BundleReader, BundleWriter
from memdock.importers import base
from memdock.importers.pipeline import ImportSummary, import_records
from memdock.jsonl import PayloadError
from memdock.sdk.implied import KEY, KINDS, expand, explicit, implied_count

_NOW = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


class _Clock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return _NOW


def _records(source: Path, fmt: str, implied: bool) -> list[tuple[str, bytes]]:
    out = []
    for rtype, rec in import_records(ImportSummary(), [source], fmt, implied=implied):
        out.append((rtype, orjson.dumps(rec)))
    return out


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_an_implied_entry_expands_into_the_records_structure_makes(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(base, "datetime", _Clock)
    rel, fmt = CORPORA[name]
    source = write_notes(shared_data / rel, tmp_path / "notes.jsonl") if name == "notes" else shared_data / rel
    today = _records(source, fmt, implied=False)
    rebuilt: list[tuple[str, bytes]] = []
    derived = 0
    for rtype, line in _records(source, fmt, implied=True):
        rec = orjson.loads(line)
        assert rtype != "edge" or rec["type"] not in KINDS, "an implied run still made a structural edge record"
        if rtype == "entry":
            assert KEY in rec
            rebuilt.append((rtype, orjson.dumps(explicit(rec))))
            edges = list(expand(rec))
            assert len(edges) == implied_count(rec)
            derived += len(edges)
            rebuilt += [("edge", orjson.dumps(e)) for e in edges]
        else:
            rebuilt.append((rtype, line))
    # structure makes an entry's mentions edge right after its entity; the expansion makes them after the entry's
    # entities: the same records, the same bytes, each type in the same order
    assert derived > 0
    for rtype in ("thread", "entry", "entity", "edge"):
        assert [b for t, b in rebuilt if t == rtype] == [b for t, b in today if t == rtype], rtype
    assert len(rebuilt) == len(today)


def _entry(eid: str, position: int, **implied: Any) -> dict[str, Any]:
    rec = {"id": eid, "thread_id": "t", "position": position, "body": "hi", "ingestion_time": "2026-01-01T00:00:00Z"}
    return {**rec, KEY: implied} if implied else rec


@pytest.mark.parametrize(
    ("implied", "field"),
    [
        ({"follows": "e1", "child": "e3"}, "'child' was unexpected"),
        ({"follows": 3}, "$.implied_edges.follows"),
        ({"mentions": "entity:person:ab"}, "$.implied_edges.mentions"),
        ({"mentions": ["entry:e1"]}, "$.implied_edges.mentions[0]"),
        ({"mentions": [7]}, "$.implied_edges.mentions[0]"),
    ],
)
def test_a_malformed_implied_edges_is_refused_with_file_line_and_field(
    tmp_path: Path, implied: dict[str, Any], field: str
) -> None:
    with BundleWriter(tmp_path / "b", "corpus", validate=False) as w:
        w.write("thread", {"id": "t", "title": "t", "format": "jsonl", "ingestion_time": "2026-01-01T00:00:00Z"})
        w.write("entry", _entry("e1", 0))
        w.write("entry", _entry("e2", 1, **implied))
    with pytest.raises(PayloadError) as err:
        list(BundleReader(tmp_path / "b").records("entry"))
    assert "entry-00001.jsonl:2: id=e2" in str(err.value)
    assert field in str(err.value)


def test_a_well_formed_implied_edges_is_read_and_expands_in_order(tmp_path: Path) -> None:
    entry = _entry("e2", 1, follows="e1", mentions=["entity:person:ab", "entity:file:cd"])
    with BundleWriter(tmp_path / "b", "corpus") as w:
        w.write("thread", {"id": "t", "title": "t", "format": "jsonl", "ingestion_time": "2026-01-01T00:00:00Z"})
        w.write("entry", entry)
    (read,) = BundleReader(tmp_path / "b").records("entry")
    kinds = [(e["type"], e["source_id"], e["target_id"]) for e in expand(read)]
    assert kinds == [
        ("contains", "t", "e2"),
        ("follows", "e2", "e1"),
        ("mentions", "e2", "entity:person:ab"),
        ("mentions", "e2", "entity:file:cd"),
    ]
    assert list(expand(explicit(read))) == []
