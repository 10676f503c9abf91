"""MemU through the adapter: what an entry becomes, filters, persistence across processes, kill and resume,
change and delete, and a store folder removed between calls."""

import shutil

import pytest
from memu_support import backend, chat_calls, gate, model_config, write_bundle
from support.entry_bundles import GREENHOUSE as TEXTS
from support.entry_bundles import index_killed_after_three

from memdock.errors import BackendError

pytestmark = gate


def stored(b) -> list[str]:
    """Every memory item text MemU holds, through the adapter (one query matching all)."""
    return [h["text"] for h in b.call("search_nodes", {"text": "the sensors", "limit": 100})["hits"]]


def test_an_entry_becomes_items_an_episode_and_category_links(tmp_path, store, llm, stand_in):
    b = backend(store, model_config(llm.base_url))
    result = b.index(write_bundle(tmp_path / "b", TEXTS[:2]))
    assert result.details["entries_added"] == 2 and result.details["memories_added"] == 2
    assert stand_in.extractions == 4, "one extraction call per memory type (profile, event) per entry"
    assert stand_in.summaries == 2, "one summary call per category touched per entry"
    hit = b.call("search_nodes", {"text": "Vaisala reference calibrated", "limit": 1})["hits"][0]
    assert hit["text"] == "ops: Bo calibrated the Quartz sensors against the Vaisala reference."
    assert hit["provenance"] == {"thread_id": "thread:greenhouse", "entry_id": "entry:gh-1"}
    assert hit["extra"]["memory_type"] == "event" and hit["event_time"] == "2025-03-02T10:00:00Z"
    episode = b.get_node("entry:gh-1").item
    assert episode.kind == "episode" and episode.extra["memories"] == [hit["text"]]
    health = b.healthcheck().checks
    assert health["items"] == 2 and health["resources"] == 2 and health["categories"] == 10


def test_filters_by_thread_author_and_time(tmp_path, store, llm):
    b = backend(store, model_config(llm.base_url))
    b.index(write_bundle(tmp_path / "a", TEXTS[:3], thread="thread:a", author="ana", prefix="a"))
    b.index(write_bundle(tmp_path / "b", TEXTS[3:], thread="thread:b", author="bo", prefix="b"))

    def entries(**filters):
        hits = b.call("search_nodes", {"text": "the sensors Danfoss Vaisala", "limit": 50, "filters": filters})["hits"]
        return sorted({h["provenance"]["entry_id"] for h in hits})

    assert len(entries()) == 6
    assert entries(thread_ids=["thread:b"]) == ["entry:b-0", "entry:b-1", "entry:b-2"]
    assert entries(authors=["ana"]) == ["entry:a-0", "entry:a-1", "entry:a-2"]
    assert entries(authors=["bo"], time_from="2025-03-02T00:00:00Z", time_to="2025-03-02T23:00:00Z") == ["entry:b-1"]


def test_the_store_persists_across_processes_and_survives_a_kill(tmp_path, store, llm):
    bundle = write_bundle(tmp_path / "b1", TEXTS)
    b = backend(store, model_config(llm.base_url))
    assert index_killed_after_three(b, bundle) == ["entry:gh-0", "entry:gh-1", "entry:gh-2"]

    again = backend(store, model_config(llm.base_url))  # a new adapter process, the same data dir
    resumed = again.index(bundle)
    assert resumed.details["entries_added"] + resumed.details["entries_replaced"] == 3
    texts = stored(again)
    assert len(texts) == len(TEXTS) == len(set(texts)), f"nothing doubled: {texts}"

    before = chat_calls(llm)
    unchanged = again.call("index", {"bundle": str(bundle)})
    assert unchanged["details"]["entries_unchanged"] == len(TEXTS) and chat_calls(llm) == before

    changed = write_bundle(
        tmp_path / "b2", TEXTS[:5] + ["Zephyrine donated the Marigold seeds to the Ostrava library."]
    )
    assert again.index(changed).details["entries_replaced"] == 1
    texts = stored(again)
    assert len(texts) == len(TEXTS) and not any("archived" in t for t in texts)

    gone = again.delete(["entry:gh-3"])
    assert set(gone.deleted) == {"entry:gh-3", "chunk:gh-3"}
    assert again.get_node("entry:gh-3").item is None and not any("Chen" in t for t in stored(again))
    assert again.healthcheck().checks["resources"] == len(TEXTS) - 1
    thread = again.delete(["thread:greenhouse"])
    assert "entry:gh-0" in thread.deleted and stored(again) == []
    assert again.healthcheck().checks["items"] == 0 and again.healthcheck().checks["resources"] == 0


def test_the_store_folder_removed_between_calls(tmp_path, store, llm):
    b = backend(store, model_config(llm.base_url), workers=1)
    b.index(write_bundle(tmp_path / "b", TEXTS[:2]))
    assert len(stored(b)) == 2
    shutil.rmtree(store)
    with pytest.raises(BackendError) as err:
        stored(b)
    assert f"the data dir {store / 'data'} was removed while this adapter process had it open" in err.value.message
    b.close()

    fresh = backend(store, model_config(llm.base_url))  # a new process: an empty store, nothing stale
    assert stored(fresh) == []
    assert fresh.index(write_bundle(tmp_path / "b2", TEXTS[2:4])).details["entries_added"] == 2
    assert sorted(stored(fresh)) == sorted(f"ops: {t}" for t in TEXTS[2:4])
