"""`memdock index CORPUS` chunks the corpus in the index run's own pass (chunking/feed.py): the store, the ledger
and the answers are those of `memdock chunk` then `memdock index` of the chunks, whether the adapter derives the
edges entries imply or is sent them as records; a run killed midway leaves nothing in the system's temp dir (it used
to leave a chunks bundle there, text and all); an edge record that an entry of the corpus also implies is refused,
naming both."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from engine.test_implied_mode import _bundle
from support.records_factory import entry, thread
from test_onepass_kill import notes

from memdock import Memory
from memdock.bundle import BundleWriter
from memdock.cli.main import main
from memdock.engine.ledger import Ledger
from memdock.ids import content_hash
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

QUERIES = ("Paris", "Rome", "note 17", "note 2999 on Rome")


def corpus(tmp_path: Path, n: int) -> Path:
    out = tmp_path / "corpus"
    assert main(["import", str(notes(tmp_path / "notes.jsonl", n)), "-f", "jsonl", "-o", str(out), "-q"]) == 0
    return out


def held(store: Path) -> set[tuple]:
    ledger = Ledger(store / "ledger.sqlite")
    try:
        return set(ledger.records())
    finally:
        ledger.close()


def answers(store: Path) -> list[list[tuple[str, str]]]:
    with Memory("sqlite", data_dir=store) as m:
        return [[(h.id, h.text) for h in m.recall(q, limit=10).hits] for q in QUERIES]


@pytest.mark.parametrize("implied", ["1", "0"])
def test_a_corpus_indexes_as_its_chunks_bundle_does(tmp_path, monkeypatch, implied):
    monkeypatch.setenv("MEMDOCK_IMPLIED_EDGES", implied)
    source = corpus(tmp_path, 300)
    one, two, chunks = tmp_path / "one", tmp_path / "two", tmp_path / "chunks"
    assert main(["index", str(source), "--data-dir", str(one), "-q"]) == 0
    assert main(["chunk", str(source), "-o", str(chunks), "-q"]) == 0
    assert main(["index", str(chunks), "--data-dir", str(two), "-q"]) == 0
    assert held(one) == held(two) and len(held(one)) > 600
    with SubprocessBackend(Registry().get("sqlite"), one) as a, SubprocessBackend(Registry().get("sqlite"), two) as b:
        assert a.counts() == b.counts()
        assert a.counts()["edge"] > 0 and a.counts()["chunk"] == 300
    assert answers(one) == answers(two)
    assert all(answers(one))


RUN = """
import os, signal, sys
from memdock.cli.main import main
from memdock.engine import ledger as L

add, batches = L.Ledger.add_pending, []
def counted(self, items):
    add(self, items)
    batches.append(1)
    if len(batches) == 3:
        os.killpg(0, signal.SIGKILL)
L.Ledger.add_pending = counted
main(sys.argv[1:])
"""


def test_a_killed_index_of_a_corpus_leaves_nothing_in_the_temp_dir_and_a_rerun_completes(tmp_path):
    source, store, temp = corpus(tmp_path, 3000), tmp_path / "store", tmp_path / "temp"
    temp.mkdir()
    args = ["index", str(source), "--data-dir", str(store), "-q"]
    env = {**os.environ, "TMPDIR": str(temp)}
    killed = subprocess.run([sys.executable, "-c", RUN, *args], start_new_session=True, env=env, timeout=600)
    assert killed.returncode == -signal.SIGKILL
    assert not list(temp.iterdir()), "a killed index leaves nothing in the temp dir"
    assert main(args) == 0
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        counts = b.counts()
    assert counts["entry"] == 3000 and counts["chunk"] == 3000


@pytest.mark.parametrize("implied", ["1", "0"])
def test_an_edge_record_an_entry_also_implies_is_refused(tmp_path, monkeypatch, capsys, implied):
    monkeypatch.setenv("MEMDOCK_IMPLIED_EDGES", implied)
    store, bundle = tmp_path / "store", _bundle(tmp_path / "corpus", with_record=True)
    assert main(["index", str(bundle), "--data-dir", str(store), "-q"]) != 0
    said = capsys.readouterr().err
    assert f"{bundle}: edge edge:follows:" in said and "implied by entry e2" in said, said
    assert not held(store)


def test_a_corpus_s_own_chunk_records_go_as_memdock_chunk_drops_them(tmp_path):
    """A corpus may hold chunk records (nothing refuses them); `memdock chunk` passes threads, entries, edges and
    entities through and drops them, so `memdock index CORPUS` does too. Sent through the feed's chunker path, one
    whose content_hash is not its text's left a journal segment that no longer matched its manifest."""
    source = tmp_path / "corpus"
    body = "the ferry leaves at noon from the north pier"
    with BundleWriter(source, "corpus") as w:
        w.write("thread", thread(0))
        w.write("entry", entry(0, body=body))
        text = body[:16]
        own = {"entry_id": "entry:0", "thread_id": "thread:0", "position": 0, "text": text, "start": 0, "end": 16}
        w.write("chunk", {"id": "chunk:own", **own, "token_count": 3, "content_hash": content_hash("other")})
    one, two, chunks = tmp_path / "one", tmp_path / "two", tmp_path / "chunks"
    assert main(["index", str(source), "--data-dir", str(one), "-q"]) == 0
    assert main(["chunk", str(source), "-o", str(chunks), "-q"]) == 0
    assert main(["index", str(chunks), "--data-dir", str(two), "-q"]) == 0
    assert held(one) == held(two)
    assert "chunk:own" not in {r[0] for r in held(one)}
    assert main(["export", "--data-dir", str(one), "-o", str(tmp_path / "out")]) == 0
