"""graphiti takes one writer: `--parallel` indexes it serially and says why. (Three shard processes on one named
FalkorDB wrote one thread's entities up to twice over, 26 and 31 against 16 serially, a different number each
run; until that is understood graphiti declares no parallel writers.)"""

from pathlib import Path

import pytest
from graphiti_support import backend, gate, model_config

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = [*gate, pytest.mark.timeout(1200)]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


@pytest.fixture
def chunks(tmp_path) -> Path:
    import_corpus([FIXTURES], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    return tmp_path / "chunks"


def test_graphiti_is_indexed_serially_saying_why(tmp_path, llm, chunks):
    result = backend(tmp_path / "store", model_config(llm.base_url)).index(chunks, parallel=3)
    why = result.details["parallel"]
    assert why["mode"] == "serial" and why["shards"] == 1 and "graphiti takes one writer" in why["why"]
