"""The adapter's own code, without a LeanRAG checkout or a model: the SQLite stand-ins for LeanRAG's MySQL and
Milvus functions, the commit check, the catalog, staging and the hit mapping. Not gated: these always run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memdock.bundle import BundleWriter
from memdock.errors import ConfigError, InvalidInputError
from memdock.ids import content_hash

ADAPTER = Path(__file__).resolve().parents[2] / "adapters" / "leanrag"
sys.path.insert(0, str(ADAPTER))

from memdock_leanrag import checkout, hits  # noqa: E402
from memdock_leanrag.catalog import Catalog, chunk_key  # noqa: E402
from memdock_leanrag.settings import PINNED_COMMIT, Settings  # noqa: E402
from memdock_leanrag.staging import stage  # noqa: E402


def _jsonl(path: Path, rows: list) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture()
def dbu(tmp_path):
    pytest.importorskip("numpy")
    sys.path.insert(0, str(ADAPTER / "memdock_leanrag" / "shim"))
    import database_utils

    sys.path.remove(str(ADAPTER / "memdock_leanrag" / "shim"))
    return database_utils


def _graph(dbu, wd: Path) -> None:
    """Three layers as LeanRAG writes them: extracted entities, aggregates, and a single top community object."""
    layer0 = [
        {
            "entity_name": "KEROSENE",
            "description": "fuel for heaters",
            "source_id": "c1",
            "degree": 0,
            "parent": "HEAT",
        },
        {
            "entity_name": "AVIARY",
            "description": "where the falcons live",
            "source_id": "c1|c2",
            "degree": 0,
            "parent": "HEAT",
        },
        {
            "entity_name": "SOURDOUGH",
            "description": "a bread starter",
            "source_id": "c3",
            "degree": 0,
            "parent": "FOOD",
        },
    ]
    layer1 = [
        {
            "entity_name": "HEAT",
            "description": "keeping birds warm",
            "source_id": "c1|c2",
            "degree": 1,
            "parent": "ALL",
        },
        {"entity_name": "FOOD", "description": "baking", "source_id": "c3", "degree": 1, "parent": "ALL"},
    ]
    top = {"entity_name": "ALL", "description": "everything", "source_id": "c1|c2|c3", "degree": 1, "parent": "root"}
    wd.mkdir(parents=True, exist_ok=True)
    _jsonl(wd / "all_entities.json", [layer0, layer1, top])
    _jsonl(
        wd / "generate_relations.json",
        [{"src_tgt": "HEAT", "tgt_src": "FOOD", "description": "both in winter", "weight": 1, "level": 1}],
    )
    _jsonl(
        wd / "community.json",
        [
            {
                "entity_name": "HEAT",
                "entity_description": "keeping birds warm",
                "findings": [{"summary": "heaters", "explanation": "kerosene"}],
            }
        ],
    )
    _jsonl(
        wd / "relation.jsonl",
        [
            {"src_tgt": "KEROSENE", "tgt_src": "AVIARY", "description": "heats", "weight": 1, "source_id": "c1"},
            {"src_tgt": "KEROSENE", "tgt_src": "AVIARY", "description": "warms", "weight": 1, "source_id": "c2"},
        ],
    )
    dbu.create_db_table_mysql(str(wd))
    vec = {
        "KEROSENE": [1, 0, 0],
        "AVIARY": [0.9, 0.1, 0],
        "SOURDOUGH": [0, 0, 1],
        "HEAT": [0.7, 0.7, 0],
        "FOOD": [0, 0.2, 1],
        "ALL": [0.5, 0.5, 0.5],
    }
    dbu.build_vector_search(
        [
            [{**e, "vector": vec[e["entity_name"]]} for e in layer0],
            [{**e, "vector": vec[e["entity_name"]]} for e in layer1],
            {**top, "vector": vec["ALL"]},
        ],
        str(wd),
    )
    dbu.insert_data_to_mysql(str(wd))
    dbu.insert_origin_relations(str(wd))


def test_relational_functions_answer_leanrags_row_shapes(dbu, tmp_path):
    wd = tmp_path / "graph"
    _graph(dbu, wd)
    assert dbu.find_tree_root(str(wd), "KEROSENE") == ["KEROSENE", "HEAT", "ALL"]
    assert dbu.search_nodes_link("AVIARY", "KEROSENE", str(wd)) == (
        "KEROSENE",
        "AVIARY",
        "warms",
        1,
        0,
    )  # either direction
    assert dbu.search_nodes_link("SOURDOUGH", "KEROSENE", str(wd)) is None
    row = dbu.search_community("HEAT", str(wd))
    assert row[:2] == ("HEAT", "keeping birds warm") and "kerosene" in row[2]
    assert dbu.search_community("FOOD", str(wd)) == ""


def test_duplicate_relations_keep_every_source_chunk(dbu, tmp_path):
    wd = tmp_path / "graph"
    _graph(dbu, wd)
    import sqlite3

    rows = (
        sqlite3.connect(wd / dbu.DB_NAME)
        .execute("SELECT description, source_id FROM relations WHERE level = 0")
        .fetchall()
    )
    assert rows == [("warms", "c1|c2")]


def test_query_code_naming_the_store_by_its_last_component_reaches_the_active_one(dbu, tmp_path, monkeypatch):
    wd = tmp_path / "deep" / "graph"
    _graph(dbu, wd)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dbu, "ACTIVE", str(wd))
    assert dbu.find_tree_root("graph", "SOURDOUGH") == ["SOURDOUGH", "FOOD", "ALL"]
    monkeypatch.setattr(dbu, "ACTIVE", None)
    with pytest.raises(FileNotFoundError, match="no LeanRAG graph store"):
        dbu.find_tree_root("graph", "SOURDOUGH")


def test_vector_search_ranks_by_cosine_filters_levels_and_records(dbu, tmp_path):
    wd = tmp_path / "graph"
    _graph(dbu, wd)
    with dbu.recording() as rec:
        found = dbu.search_vector_search(str(wd), [[1, 0.05, 0]], topk=3, level_mode=2)
        dbu.search_community("HEAT", str(wd))
    assert [f[0] for f in found] == ["KEROSENE", "AVIARY", "HEAT"]
    assert found[1] == ("AVIARY", "HEAT", "where the falcons live", "c1|c2")
    assert dbu.LAST_SCORES["KEROSENE"] == pytest.approx(1 / (1 + 0.05**2) ** 0.5, rel=1e-5)
    assert [k for k, _ in rec] == ["vector", "community"]
    assert [f[0] for f in dbu.search_vector_search(str(wd), [[0, 0, 1]], topk=5, level_mode=0)] == [
        "SOURDOUGH",
        "KEROSENE",
        "AVIARY",
    ]  # ties: stored order
    assert {f[0] for f in dbu.search_vector_search(str(wd), [[0, 0, 1]], topk=5, level_mode=1)} == {
        "FOOD",
        "HEAT",
        "ALL",
    }
    dbu.build_vector_search(
        [
            [{"entity_name": "A", "vector": [1, 0, 0]}, {"entity_name": "B", "vector": [0, 1, 0]}],
            [{"entity_name": "A", "vector": [1, 0, 0]}],
        ],
        str(wd),
    )
    assert [f[0] for f in dbu.search_vector_search(str(wd), [[1, 0, 0]], topk=2)] == [
        "A",
        "B",
    ]  # A's copy a layer up skipped
    with pytest.raises(ValueError, match="4 dimensions, the store 3"):
        dbu.search_vector_search(str(wd), [[1, 0, 0, 0]])


def test_text_units_prefer_chunks_named_by_several_matches(dbu):
    assert dbu.chunk_keys_ranked(["c1", "c2|c1", "c3|c2|c1", None], 2) == ["c1", "c2"]
    assert dbu.chunk_keys_ranked(["c9", "c8"], 5) == ["c9", "c8"]


def _fake_checkout(root: Path, commit: str, packed: bool = False) -> Path:
    for name in checkout.NEEDED:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    git = root / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    if packed:
        (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{commit} refs/heads/main\n")
    else:
        (git / "refs" / "heads" / "main").write_text(commit + "\n")
    return root


def test_checkout_at_the_pinned_commit_is_accepted_loose_or_packed(tmp_path):
    for packed in (False, True):
        root = _fake_checkout(tmp_path / f"lr{packed}", PINNED_COMMIT, packed)
        assert checkout.locate(Settings(leanrag_path=str(root))) == root.resolve()


def test_checkout_as_a_submodule_is_followed_to_its_git_dir(tmp_path):
    real = _fake_checkout(tmp_path / "modules" / "LeanRAG", PINNED_COMMIT)
    sub = tmp_path / "sub"
    for name in checkout.NEEDED:
        (sub / name).parent.mkdir(parents=True, exist_ok=True)
        (sub / name).write_text("")
    (sub / ".git").write_text(f"gitdir: {real / '.git'}\n")
    assert checkout.head_commit(sub) == PINNED_COMMIT


def test_a_checkout_at_another_commit_is_refused_unless_allowed(tmp_path):
    other = "0" * 40
    root = _fake_checkout(tmp_path / "lr", other)
    with pytest.raises(ConfigError) as err:
        checkout.locate(Settings(leanrag_path=str(root)))
    assert (
        other in err.value.message and PINNED_COMMIT in err.value.message and "allow_other_commit" in err.value.message
    )
    assert checkout.locate(Settings(leanrag_path=str(root), allow_other_commit=True)) == root.resolve()


def test_missing_or_wrong_checkouts_are_config_errors_naming_the_path(tmp_path):
    with pytest.raises(ConfigError, match="no checkout configured"):
        checkout.locate(Settings())
    with pytest.raises(ConfigError, match="no such directory"):
        checkout.locate(Settings(leanrag_path=str(tmp_path / "nowhere")))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="not a LeanRAG checkout"):
        checkout.locate(Settings(leanrag_path=str(tmp_path / "empty")))


def test_settings_take_the_checkout_and_keys_from_the_environment():
    s = Settings.from_config({"llm_model": "m"}, env={"MEMDOCK_LEANRAG_PATH": "/x", "MEMDOCK_LEANRAG_LLM_API_KEY": "k"})
    assert (s.leanrag_path, s.llm_api_key) == ("/x", "k")
    assert "llm_base_url" in s.llm_configured()


def _bundle(path: Path, texts: list[str]) -> Path:
    with BundleWriter(path, "chunks", producer=("test", "1")) as w:
        w.write("thread", {"id": "thread:t", "title": "t", "ingestion_time": "2025-01-01T00:00:00Z"})
        for i, text in enumerate(texts):
            w.write(
                "entry",
                {
                    "id": f"entry:{i}",
                    "thread_id": "thread:t",
                    "position": i,
                    "body": text,
                    "author": "ana",
                    "ingestion_time": "2025-01-01T00:00:00Z",
                    "event_time": f"2025-01-0{i + 1}T00:00:00Z",
                },
            )
            w.write(
                "chunk",
                {
                    "id": f"chunk:{i}",
                    "entry_id": f"entry:{i}",
                    "thread_id": "thread:t",
                    "position": 0,
                    "text": text,
                    "start": 0,
                    "end": len(text),
                    "token_count": 1,
                    "content_hash": content_hash(text),
                },
            )
    return path


def test_staging_then_extraction_state_drive_what_is_pending_and_what_a_delete_takes(tmp_path):
    from memdock.bundle import BundleReader

    cat = Catalog(tmp_path / "data")
    staged = stage(BundleReader(_bundle(tmp_path / "b", ["alpha words", "beta words"])), cat, Settings())
    assert staged.chunk_ids == ["chunk:0", "chunk:1"] and "thread:t" in staged.after_build
    pending = cat.pending_chunks()
    assert [c["text"] for c in pending] == ["ana: alpha words", "ana: beta words"]
    empty = cat.extraction_digest()
    with cat.transaction():
        cat.put_extraction(pending[0]["key"], pending[0]["content_hash"], [{"entity_name": "ALPHA"}], [])
    assert [c["id"] for c in cat.pending_chunks()] == ["chunk:1"]
    assert cat.extraction_digest() != empty
    stage(BundleReader(_bundle(tmp_path / "b2", ["alpha changed", "beta words"])), cat, Settings())
    assert [c["id"] for c in cat.pending_chunks()] == ["chunk:0", "chunk:1"]  # changed text is extracted again
    assert cat.extractions() == []
    kind, chunks = cat.resolve("entry:0")
    with cat.transaction():
        gone = cat.forget(kind, "entry:0", chunks)
    assert (kind, gone) == ("entry", ["chunk:0"]) and cat.entry("entry:0") is None and cat.chunk("chunk:0") is None
    assert cat.chunks_by_key([chunk_key("chunk:1")])[chunk_key("chunk:1")]["author"] == "ana"
    assert cat.resolve("thread:t")[0] == "thread" and cat.resolve("nothing") == (None, [])


def test_a_huge_chunk_fails_staging_naming_file_line_and_field_and_changes_nothing(tmp_path):
    from memdock.bundle import BundleReader

    cat = Catalog(tmp_path / "data")
    reader = BundleReader(_bundle(tmp_path / "b", ["small", "x" * 500]))
    with pytest.raises(InvalidInputError) as err:
        stage(reader, cat, Settings(max_chunk_chars=200))
    assert "chunk-00001.jsonl:2: text of chunk:1" in err.value.message and "max_chunk_chars" in err.value.message
    assert err.value.details["field"] == "text"
    assert cat.counts() == {"threads": 0, "chunks": 0, "chunks_extracted": 0}


def test_hits_carry_our_ids_as_provenance_and_findings_parsed():
    chunks = [
        {"id": "chunk:1", "entry_id": "entry:1", "thread_id": "thread:a", "event_time": "2025-01-02T00:00:00Z"},
        {"id": "chunk:2", "entry_id": "entry:2", "thread_id": "thread:a", "event_time": "2025-01-01T00:00:00Z"},
    ]
    h = hits.hit("node", "leanrag:node:x", 1.3, "text", chunks, {"level": 0, "parent": None}, "NAME")
    assert h["provenance"] == {"thread_id": "thread:a", "entry_id": "entry:1", "chunk_id": "chunk:1"}
    assert h["score"] == 1.0 and h["event_time"] == "2025-01-01T00:00:00Z"
    assert h["extra"]["entry_ids"] == ["entry:1", "entry:2"] and "parent" not in h["extra"]  # None is left out
    assert hits.findings_text(str([{"summary": "s", "explanation": "e"}])) == [{"summary": "s", "explanation": "e"}]
    assert hits.findings_text("free text") == [{"summary": "free text"}]
    assert hits.split_sources("c1||c2") == ["c1", "c2"]


def test_a_threads_delete_takes_its_entries_chunks_sent_with_another_thread_and_the_chunks_sent_with_it(tmp_path):
    from memdock.bundle import BundleReader
    from memdock.conformance import golden

    cat = Catalog(tmp_path / "data")
    stage(BundleReader(golden.write_crossed(tmp_path / "b")), cat, Settings())
    kind, chunks = cat.resolve(golden.CROSSED_GONE)
    assert (kind, chunks) == ("thread", ["chunk:kit-x-0", "chunk:kit-x-1", "chunk:kit-x-3"])
    with cat.transaction():
        gone = cat.forget(kind, golden.CROSSED_GONE, chunks)
    assert set(gone) == {"chunk:kit-x-0", "chunk:kit-x-1", "chunk:kit-x-3", "entry:kit-x-1", "entry:kit-x-3"}
    assert [c["id"] for c in cat.pending_chunks()] == ["chunk:kit-x-2"]
    assert cat.entry("entry:kit-x-0") is not None and cat.resolve(golden.CROSSED_KEEP)[1] == ["chunk:kit-x-2"]
