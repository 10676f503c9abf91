"""The same corpus in sqlite (the reference) and in Postgres: the same chunks pass each filter, the same facts are
rendered for every edge, the same neighbours come with a node, and a question in a conversation brings the turn
after it."""

import json
from pathlib import Path

import pytest
from postgres_support import SQLITE_ONLY_STEPS_OFF, backend, gate

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

pytestmark = gate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"
WORDS = "cache release staging approval checklist migration deploy"


@pytest.fixture(scope="module")
def both(tmp_path_factory, pg):
    out = tmp_path_factory.mktemp("answers")
    import_corpus(sorted(FIXTURES.glob("*.md")), "watercooler", out / "corpus")
    chunk_bundle(out / "corpus", out / "chunks")
    sqlite = SubprocessBackend(
        Registry(use_entry_points=False).get("sqlite"), out / "sqlite", workers=1, config=SQLITE_ONLY_STEPS_OFF
    )
    postgres = backend(pg.dsn(pg.new_database()), out / "pg", workers=1)
    for b in (sqlite, postgres):
        b.index(out / "chunks")
    yield sqlite, postgres, pg
    sqlite.close()
    postgres.close()


def _ids(b, filters) -> set[str]:
    return {h.id for h in b.query(WORDS, limit=200, filters=filters, mode="bm25").hits}


def test_each_filter_passes_the_chunks_sqlite_passes(both):
    sqlite, postgres, _ = both
    everything = sqlite.query(WORDS, limit=200).hits
    thread = next(h.provenance["thread_id"] for h in everything if "onboarding" in h.provenance["thread_id"])
    cases = [
        None,
        {"thread_ids": [thread]},
        {"time_from": "2026-02-11T00:00:00Z", "time_to": "2026-02-12T23:59:59Z"},
        {"time_from": "2026-01-21T00:00:00Z"},
        {"authors": ["sam"]},
        {"authors": ["claude"]},
        {"authors": ["Codex (lee)"]},
        {"roles": ["CRITIC"]},
        {"entry_types": ["Decision"]},
    ]
    for filters in cases:
        expected = _ids(sqlite, filters)
        assert expected, filters
        assert _ids(postgres, filters) == expected, filters
    none = {"authors": ["sam"], "entry_types": ["Plan", "Decision"]}  # sam wrote neither
    assert _ids(sqlite, none) == _ids(postgres, none) == set()


def test_facts_and_neighbours_are_sqlites(both):
    sqlite, postgres, pg = both
    db = postgres.launch.config["postgres_dsn"].split("@/", 1)[1].split("?", 1)[0]
    edges = [r[0] for r in pg.psql("SELECT id FROM memdock.edges ORDER BY id", db)]
    assert len(edges) > 20
    for edge in edges:
        mine, theirs = postgres.get_edge(edge).item, sqlite.get_edge(edge).item
        assert mine is not None and theirs is not None and mine.text == theirs.text, edge
    for node in [r[0] for r in pg.psql("SELECT id FROM memdock.entries ORDER BY id LIMIT 15", db)]:
        mine, theirs = postgres.get_node(node).item, sqlite.get_node(node).item
        key = lambda e: (e["edge_id"], e["direction"])
        assert sorted(map(key, mine.extra["edges"])) == sorted(map(key, theirs.extra["edges"])), node
    facts = postgres.search_facts("mentions", limit=50).hits
    assert facts and all(h.kind == "fact" and "mentions" in h.text for h in facts)


def test_a_question_in_a_conversation_brings_the_turn_after_it(tmp_path, pg):
    turns = ["How was your weekend?", "What did you do on Sunday afternoon?", "We went hiking up the ridge.", "Lovely."]
    conversation: dict = {"speaker_a": "Ana", "speaker_b": "Bo", "session_1_date_time": "1:56 pm on 1 May, 2023"}
    conversation["session_1"] = [
        {"speaker": ("Ana", "Bo")[j % 2], "dia_id": f"D1:{j + 1}", "text": text} for j, text in enumerate(turns)
    ]
    (tmp_path / "chat.json").write_text(json.dumps({"sample_id": "s", "conversation": conversation}))
    import_corpus([tmp_path / "chat.json"], "chat", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    answers = {}
    for name, b in (
        (
            "sqlite",
            SubprocessBackend(
                Registry(use_entry_points=False).get("sqlite"), tmp_path / "s", workers=1, config=SQLITE_ONLY_STEPS_OFF
            ),
        ),
        ("postgres", backend(pg.dsn(pg.new_database()), tmp_path / "p", workers=1)),
    ):
        b.index(tmp_path / "chunks")
        hits = b.query("Sunday afternoon", limit=3).hits
        answers[name] = [(h.id, round(h.score, 6), h.extra.get("neighbour_of")) for h in hits]
        b.close()
    assert answers["postgres"] == answers["sqlite"]
    assert len(answers["postgres"]) == 2 and answers["postgres"][1][2] == answers["postgres"][0][0]


def test_metadata_where_matches_as_sqlite_and_refuses_a_bad_where(tmp_path, pg):
    from memdock.conformance import golden
    from memdock.errors import InvalidInputError

    bundle = golden.write_tagged(tmp_path / "tagged")
    found = {}
    for name, b in (
        (
            "sqlite",
            SubprocessBackend(
                Registry(use_entry_points=False).get("sqlite"), tmp_path / "s", workers=1, config=SQLITE_ONLY_STEPS_OFF
            ),
        ),
        ("postgres", backend(pg.dsn(pg.new_database()), tmp_path / "p", workers=1)),
    ):
        b.index(bundle)
        for where in ({"shelf": ["a", "c"]}, {"shelf": ["b"]}, {"shelf": [1]}, {"colour": ["red"]}):
            found[name, json.dumps(where)] = sorted(h.id for h in b.query(golden.TAGGED_QUERY, where=where).hits)
        for bad in ({"shelf": "a"}, {"shelf": []}, ["shelf"]):
            with pytest.raises(InvalidInputError, match="params.where"):
                b.query(golden.TAGGED_QUERY, where=bad)
        b.close()
    assert found["postgres", '{"shelf": ["a", "c"]}'] == ["chunk:kit-tag-0", "chunk:kit-tag-2"]
    assert found["postgres", '{"shelf": [1]}'] == found["postgres", '{"colour": ["red"]}'] == []
    assert {k[1]: v for k, v in found.items() if k[0] == "postgres"} == {
        k[1]: v for k, v in found.items() if k[0] == "sqlite"
    }
