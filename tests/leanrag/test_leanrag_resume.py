"""Kill an index run mid-extraction, resume it: every chunk extracted, none lost, none doubled (at most the one
in flight when the kill landed is asked again), and the graph built once from all of them."""

import sqlite3

import pytest
from leanrag_support import backend, gate, model_config

from memdock.conformance import golden
from memdock.errors import MemdockError

pytestmark = [*gate, pytest.mark.timeout(3600)]


class Kill(Exception):
    pass


def _asked(llm) -> list[str]:
    """The chunk text of every entity-extraction prompt the stand-in answered."""
    return [
        r["messages"][-1]["content"].rsplit("Text:", 1)[1].split("\n#", 1)[0].strip()
        for r in llm.requests
        if r["path"].endswith("/chat/completions")
        and len(r["messages"]) == 1
        and r["messages"][-1]["content"].rsplit("Text:", 1)[0].rstrip().rsplit("\n", 1)[-1].startswith("Entity_types:")
    ]


def test_killed_mid_extraction_resumes_without_loss_or_doubles(tmp_path, llm, fake):
    bundle = golden.write_golden(tmp_path / "golden")
    b = backend(tmp_path / "store", model_config(llm.base_url), retries=0)
    seen = []

    def kill(ids):
        seen.append(ids)
        if len(seen) >= 3:
            raise Kill("stop after the third checkpoint")

    with pytest.raises((Kill, MemdockError)):
        b.index(bundle, after_checkpoint=kill)
    assert [len(ids) for ids in seen] == [1, 1, 1], "one chunk per checkpoint, before any graph was built"
    catalog = tmp_path / "store"
    db = next(catalog.rglob("catalog.sqlite"))
    with sqlite3.connect(db) as con:
        extracted = con.execute("SELECT count(*) FROM extractions").fetchone()[0]
        assert con.execute("SELECT v FROM meta WHERE k = 'built_from'").fetchone() is None
    assert 3 <= extracted <= 4  # the three checkpointed, and perhaps the one in flight when the kill landed
    first_run = len(_asked(llm))

    result = b.index(bundle)
    assert result.skipped >= 3 and result.details["chunks_extracted"] == len(golden.ENTRIES) - extracted
    asked = _asked(llm)
    texts = [f"kit: {t}" for _, t in golden.ENTRIES]
    assert sorted(set(asked)) == sorted(texts), "every chunk was extracted"
    doubled = [t for t in texts if asked.count(t) > 1]
    assert len(doubled) <= 1 and len(asked) - first_run == len(golden.ENTRIES) - extracted
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM extractions").fetchone()[0] == len(golden.ENTRIES)
        assert con.execute("SELECT v FROM meta WHERE k = 'built_from'").fetchone() is not None
    hits = b.query("glacier hike august", limit=5).hits
    assert any(h.provenance.get("entry_id") == "entry:kit-9" for h in hits)
    ids = [h["id"] for h in b.call("search_nodes", {"text": "kerosene heaters", "limit": 50})["hits"]]
    assert len(ids) == len(set(ids))
