"""The same chunks and the same model answers give the same hierarchy: two builds into two stores compared layer
by layer (the communities LeanRAG wrote, with their members, and the relations it generated between them)."""

import json

import pytest
from leanrag_support import SHARED_DATA, backend, gate, model_config

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = [*gate, pytest.mark.timeout(3600)]

THREAD = "project/dotwatercooler__codex-validation.md"


def hierarchy(store):
    graph = store / "data" / "graph"
    out = {}
    for name in ("community.json", "generate_relations.json"):
        rows = [json.loads(line) for line in (graph / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        out[name] = sorted(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows)
    return out


def test_two_builds_of_the_same_input_give_the_same_hierarchy(tmp_path):
    from leanrag_fake_llm import FakeLLM
    from support.openai_loopback import OpenAILoopback

    folder = SHARED_DATA / "watercooler_threads"
    if not folder.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA} (set MEMDOCK_SHARED_DATA)")
    import_corpus([folder / THREAD], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    built = []
    for run in ("a", "b"):
        with OpenAILoopback(chat=FakeLLM()) as server:
            b = backend(tmp_path / f"store-{run}", model_config(server.base_url))
            result = b.index(tmp_path / "chunks")
        built.append((result.details["graph"], hierarchy(tmp_path / f"store-{run}")))
    (stats_a, tree_a), (stats_b, tree_b) = built
    assert tree_a["community.json"], "the build made communities: there is a hierarchy to compare"
    for name in tree_a:
        diff = [(a, b) for a, b in zip(tree_a[name], tree_b[name]) if a != b]
        assert tree_a[name] == tree_b[name], f"{name}: {len(diff)} records differ, first: {diff[:1]}"
    assert stats_a["layers"] == stats_b["layers"] and stats_a["communities"] == stats_b["communities"]
