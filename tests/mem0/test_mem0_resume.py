"""Killed midway, resumed, re-indexed, changed and deleted: memories counted in mem0's own store."""

import pytest
from mem0_support import backend, chat_calls, gate, model_config, write_bundle
from support.entry_bundles import GREENHOUSE as TEXTS

from memdock.errors import MemdockError

pytestmark = gate


def stored(b) -> list[str]:
    """Every memory text mem0 holds, found through the adapter (one query matching all)."""
    hits = b.call("search_nodes", {"text": "the", "limit": 100})["hits"]
    return [h["text"] for h in hits]


def test_kill_resume_reindex_change_delete(tmp_path, llm):
    bundle = write_bundle(tmp_path / "b1", TEXTS)
    b = backend(tmp_path / "store", model_config(llm.base_url, min_score=0.0))
    order: list[str] = []

    def kill_after_three(ids):
        order.extend(i for i in ids if i.startswith("entry:"))
        if len(order) >= 3:
            raise RuntimeError("test: killing the index run after three entries")

    with pytest.raises(MemdockError):
        b.index(bundle, after_checkpoint=kill_after_three)
    assert order == ["entry:gh-0", "entry:gh-1", "entry:gh-2"], "entries go in event-time order, not file order"
    health = b.healthcheck()
    in_flight = health.checks["vectors"] - 3  # the kill may land while the fourth entry is being added
    assert in_flight in (0, 1)

    resumed = b.index(bundle)
    assert resumed.skipped >= 3 * 2 + 1, "the committed entries, their chunks and the thread are not sent again"
    assert resumed.details["entries_added"] + resumed.details["entries_replaced"] == 3
    texts = stored(b)
    assert len(texts) == len(TEXTS) == len(set(texts)), f"nothing doubled: {texts}"
    assert b.healthcheck().checks["vectors"] == len(TEXTS)

    before = chat_calls(llm)
    again = b.call("index", {"bundle": str(bundle)})  # straight to the adapter, bypassing the core's ledger
    assert again["details"]["entries_unchanged"] == len(TEXTS) and again["details"]["entries_added"] == 0
    assert chat_calls(llm) == before, "re-indexing unchanged entries makes no LLM call"
    assert sorted(stored(b)) == sorted(texts)

    changed = write_bundle(
        tmp_path / "b2", TEXTS[:5] + ["Zephyrine donated the Marigold seeds to the Ostrava library."]
    )
    result = b.index(changed)
    assert result.details["entries_replaced"] == 1 and chat_calls(llm) == before + 1
    texts = stored(b)
    assert len(texts) == len(TEXTS) and not any("archived" in t for t in texts)
    top = b.call("search_nodes", {"text": "Ostrava library", "limit": 1})["hits"][0]
    assert "Ostrava" in top["text"] and top["provenance"]["entry_id"] == "entry:gh-5"

    gone = b.delete(["entry:gh-3"])
    assert set(gone.deleted) == {"entry:gh-3", "chunk:gh-3"} and gone.cascaded == 1
    assert b.get_node("entry:gh-3").item is None
    assert not any("Chen" in t for t in stored(b)) and len(stored(b)) == len(TEXTS) - 1

    one = b.call("search_nodes", {"text": "Vaisala probe drifting", "limit": 1})["hits"][0]
    assert b.delete([one["id"]]).deleted == [one["id"]]
    assert b.get_node(one["id"]).item is None and len(stored(b)) == len(TEXTS) - 2

    thread = b.delete(["thread:greenhouse"])
    assert "thread:greenhouse" in thread.deleted and "entry:gh-0" in thread.deleted
    assert stored(b) == [] and b.healthcheck().checks["vectors"] == 0
