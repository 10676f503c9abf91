"""graphiti takes parallel writers on a FalkorDB server it is given: shard processes write their threads' groups
at once (locally or as Ray tasks) and leave what a serial run leaves, graph for graph. With its own local
FalkorDB (which lives and dies with one adapter process) `--parallel` indexes serially and says why."""

import os
from pathlib import Path

import pytest
from graphiti_support import REAL_HOME, FalkorDB, backend, gate, model_config
from support.parallel_helpers import ledger_of

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = [*gate, pytest.mark.timeout(1200)]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"
QUESTIONS = ("release planning", "who owns the database migration", "flaky tests in CI")
ALL = 200


@pytest.fixture
def chunks(tmp_path) -> Path:
    import_corpus([FIXTURES], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    return tmp_path / "chunks"


@pytest.fixture
def servers(tmp_path):
    started = [FalkorDB(tmp_path / "falkor-serial"), FalkorDB(tmp_path / "falkor-parallel")]
    yield started
    for s in started:
        s.close()


def graph_shape(server: FalkorDB) -> dict[str, tuple[int, int, int]]:
    """Per graph: episodes, entities, facts."""
    return {
        g: (
            server.count(g, "MATCH (e:Episodic) RETURN count(e)"),
            server.count(g, "MATCH (n:Entity) RETURN count(n)"),
            server.count(g, "MATCH ()-[r:RELATES_TO]->() RETURN count(r)"),
        )
        for g in sorted(server.graphs())
    }


def answers(b) -> list[list[tuple[str, str, str]]]:
    """Everything each question finds, sorted: episodes by id (uuid5 of ours), entities and facts by their text
    (graphiti gives them random uuids, different in every run). Not their order: two equal graphs can rank
    near-equal hits apart (a CI run's serial store put the two migration episodes of one thread in the opposite
    order from another run's), so the limit is above what any question here can find and the sets are compared."""
    found = []
    for q in QUESTIONS:
        hits = b.query(q, limit=ALL).hits
        assert len(hits) < ALL, "the limit must take in all a question finds, or the cut decides"
        found.append(sorted((h.kind, h.id if h.kind == "episode" else "", h.text) for h in hits))
    return found


def on(server: FalkorDB, llm) -> dict:
    return {**model_config(llm.base_url), "falkordb_host": "127.0.0.1", "falkordb_port": server.port}


def test_a_local_falkordb_is_indexed_serially_saying_why(tmp_path, llm, chunks):
    result = backend(tmp_path / "store", model_config(llm.base_url)).index(chunks, parallel=3)
    why = result.details["parallel"]
    assert why["mode"] == "serial" and why["shards"] == 1 and "falkordb_host" in why["why"]


@pytest.fixture
def executor(request):
    if request.param == "local":
        yield "local"
        return
    if not os.environ.get("MEMDOCK_IT_RAY"):
        pytest.skip("set MEMDOCK_IT_RAY=1 (pip install -e '.[ray]')")
    ray = pytest.importorskip("ray", reason="pip install -e '.[ray]'")
    home = {"MEMDOCK_HOME": REAL_HOME} if REAL_HOME else {}  # where the Ray workers find the adapter's venv
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": home})
    yield "ray"
    ray.shutdown()


@pytest.mark.parametrize("executor", ["local", pytest.param("ray", marks=pytest.mark.integration_ray)], indirect=True)
def test_shards_on_a_named_falkordb_leave_what_a_serial_run_leaves(tmp_path, llm, chunks, servers, executor):
    serial_server, parallel_server = servers
    serial = backend(tmp_path / "serial", on(serial_server, llm))
    parallel = backend(tmp_path / "parallel", on(parallel_server, llm))
    serial.index(chunks)
    result = parallel.index(chunks, parallel=3, executor=executor)
    assert result.details["parallel"] == {"mode": "shared", "shards": 3, "failed": 0}
    assert ledger_of(tmp_path / "parallel") == ledger_of(tmp_path / "serial")
    shape = graph_shape(parallel_server)
    assert len(shape) >= 3 and shape == graph_shape(serial_server)
    assert answers(parallel) == answers(serial)
