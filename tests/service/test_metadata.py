"""Metadata of one's own on an entry, `where` filters over it at every door, and update in place; each bad input
refused with an error naming it, and a backend that cannot filter answers degraded rather than unfiltered."""

import asyncio
import json
import subprocess
import sys

import pytest
from support.service_helpers import core

from memdock import AsyncMemory, Memory
from memdock.errors import InvalidInputError, UnsupportedOperationError

NOTES = [
    {"content": "the kettle is in the attic", "metadata": {"room": "attic", "floor": 2, "tags": ["old"]}},
    {"content": "the kettle is in the kitchen", "metadata": {"room": "kitchen", "floor": 0}},
    {"content": "the kettle is in the shed"},
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("metadata") / "store"
    with Memory(data_dir=folder) as memory:
        ids = [r.id for r in memory.remember_many(NOTES)]
    return folder, ids


def texts(result):
    assert not result.degraded, result.reason
    return sorted(h.text for h in result.hits)


def test_where_matches_a_value_or_any_of_several(store):
    folder, _ = store
    with Memory(data_dir=folder) as memory:
        assert texts(memory.recall("kettle", where={"room": "attic"})) == ["the kettle is in the attic"]
        both = ["the kettle is in the attic", "the kettle is in the kitchen"]
        assert texts(memory.recall("kettle", where={"room": ["attic", "kitchen"]})) == both
        assert texts(memory.recall("kettle", where={"floor": {"$in": [0]}})) == ["the kettle is in the kitchen"]
        assert texts(memory.recall("kettle", where={"floor": {"$eq": 2}, "room": "attic"})) == [both[0]]
        assert texts(memory.recall("kettle", where={"floor": "2"})) == [], "the string '2' is not the number 2"
        assert texts(memory.recall("kettle", where={"colour": "red"})) == [], "a key no entry holds matches nothing"
        assert len(memory.recall("kettle").hits) == 3
        listed = {e.text: e.metadata for e in memory.list()}
        assert listed["the kettle is in the kitchen"] == {"room": "kitchen", "floor": 0}


@pytest.mark.parametrize(
    "metadata,said",
    [
        (["room", "attic"], "metadata must be a JSON object"),
        ("room=attic", "metadata must be a JSON object"),
        ({"a": {"b": {"c": {"d": {"e": 1}}}}}, "nested too deep at metadata.a.b.c.d"),
        ({"blob": "x" * 20_000}, "the limit is 16,384"),
        ({"author": "ana"}, "key 'author' is a built-in field"),
        ({"when": object()}, "metadata is not JSON"),
    ],
)
def test_bad_metadata_is_refused_naming_it(tmp_path, metadata, said):
    c = core("sqlite", tmp_path / "store")
    with pytest.raises(InvalidInputError, match=said):
        c.remember("a note", metadata=metadata)
    assert c.backend.calls == [], "refused before any adapter process"
    c.close()


@pytest.mark.parametrize(
    "where,error,said",
    [
        ({"room": {"$gt": 1}}, UnsupportedOperationError, "operator '\\$gt' is not supported"),
        ({"room": {"$in": [1], "$eq": 1}}, UnsupportedOperationError, "not supported"),
        ({"room": []}, InvalidInputError, "give 1 to 1000 values"),
        ({"room": {"x": 1}}, UnsupportedOperationError, "operator 'x'"),
        ({"thread": "x"}, InvalidInputError, "built-in field"),
        ({"room": [{"a": 1}]}, InvalidInputError, "match a string, number"),
        ("room=attic", InvalidInputError, "where must be an object"),
    ],
)
def test_bad_where_filters_are_typed_errors(store, where, error, said):
    folder, _ = store
    with Memory(data_dir=folder) as memory, pytest.raises(error, match=said):
        memory.recall("kettle", where=where)


def test_a_backend_that_cannot_filter_on_metadata_answers_degraded(store):
    folder, _ = store
    c = core("sqlite", folder)
    c.capabilities().features["metadata_filter"] = False  # as an adapter that does not declare it
    result = c.query("kettle", where={"room": "attic"})
    assert result.degraded and result.hits == [] and "cannot filter on metadata" in result.reason
    c.close()


def test_update_in_place_and_an_unknown_id(tmp_path):
    with Memory(data_dir=tmp_path / "store") as memory:
        kept = memory.remember("the ladder is in the shed", thread="house", author="ana", metadata={"room": "shed"})
        moved = memory.update(kept.id, text="the ladder is in the garage", metadata={"room": "garage"})
        assert (moved.id, moved.thread_id, moved.degraded) == (kept.id, kept.thread_id, False)
        assert texts(memory.recall("ladder", where={"room": "garage"})) == ["the ladder is in the garage"]
        assert memory.recall("ladder", where={"room": "shed"}).hits == []
        assert memory.count() == 1
        [entry] = memory.list(thread="house")
        assert (entry.author, entry.text) == ("ana", "the ladder is in the garage")
        retagged = memory.update(kept.id, metadata={"room": "loft"})
        assert retagged.id == kept.id
        assert texts(memory.recall("ladder", where={"room": "loft"})) == ["the ladder is in the garage"]
        with pytest.raises(InvalidInputError, match="no entry entry:nope"):
            memory.update("entry:nope", text="x")
        with pytest.raises(InvalidInputError, match="needs text or metadata"):
            memory.update(kept.id)


def test_async_memory_takes_metadata_where_and_update(tmp_path):
    async def run():
        async with AsyncMemory(data_dir=tmp_path / "store") as memory:
            note = await memory.remember("the drill is in the van", metadata={"room": "van"})
            await memory.update(note.id, metadata={"room": "depot"})
            return await memory.recall("drill", where={"room": "depot"})

    assert texts(asyncio.run(run())) == ["the drill is in the van"]


def test_the_cli_takes_meta_and_where(tmp_path):
    def memdock(*args):
        return subprocess.run(
            [sys.executable, "-m", "memdock", *args, "--data-dir", str(tmp_path / "store")],
            capture_output=True,
            text=True,
            timeout=300,
        )

    assert memdock("remember", "the saw is in the barn", "--meta", "room=barn", "--meta", "floor=1").returncode == 0
    assert memdock("remember", "the saw blade is in the box", "--meta", "room=box").returncode == 0
    found = json.loads(memdock("recall", "saw", "--where", "room=barn", "--json").stdout)["hits"]
    assert [h["text"] for h in found] == ["the saw is in the barn"]
    either = json.loads(memdock("recall", "saw", "--where", "room=barn", "--where", "room=box", "--json").stdout)
    assert len(either["hits"]) == 2
    assert len(json.loads(memdock("recall", "saw", "--where", "floor=1", "--json").stdout)["hits"]) == 1
    bad = memdock("recall", "saw", "--where", "room", "--json")
    assert bad.returncode == 4 and json.loads(bad.stdout)["error"]["message"].startswith("--where expects KEY=VALUE")


def test_jsonl_fields_are_kept_as_metadata(tmp_path):
    lines = [
        {"thread": "t", "text": "deploy the api on monday", "project": "apollo"},
        {"thread": "t", "text": "deploy the web on tuesday", "project": "gemini"},
    ]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    added = subprocess.run(
        [sys.executable, "-m", "memdock", "add", str(tmp_path / "log.jsonl"), "--data-dir", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert added.returncode == 0, added.stderr
    with Memory(data_dir=tmp_path / "s") as memory:
        assert texts(memory.recall("deploy", where={"project": "gemini"})) == ["deploy the web on tuesday"]


def test_the_integrations_pass_where_through(store):
    pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
    pytest.importorskip("llama_index.core", reason="the llama-index extra is not installed")
    from memdock.integrations.langchain import MemdockRetriever as LangChainRetriever
    from memdock.integrations.llama_index import MemdockRetriever as LlamaRetriever

    folder, _ = store
    with Memory(data_dir=folder) as memory:
        docs = LangChainRetriever(memory=memory, where={"room": "kitchen"}).invoke("kettle")
        nodes = LlamaRetriever(memory, where={"room": "attic"}).retrieve("kettle")
    assert [d.page_content for d in docs] == ["the kettle is in the kitchen"]
    assert [n.node.get_content() for n in nodes] == ["the kettle is in the attic"]
