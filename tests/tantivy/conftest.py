import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.adapter_home import use_adapter_home
from tantivy_support import ENABLED, REAL_HOME, backend

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


@pytest.fixture(autouse=True)
def _adapter_home(request, monkeypatch):
    use_adapter_home(request, monkeypatch, REAL_HOME, "integration_tantivy")


@pytest.fixture(scope="module")
def fixture_chunks(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fixture-bundle")
    import_corpus(sorted(FIXTURES.glob("*.md")), "watercooler", out / "corpus")
    chunk_bundle(out / "corpus", out / "chunks")
    return out / "chunks"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, fixture_chunks):
    if not ENABLED:
        pytest.skip("tantivy integration tests: set MEMDOCK_IT_TANTIVY=1")
    b = backend(tmp_path_factory.mktemp("tantivy-store"), workers=1)
    b.index(fixture_chunks)
    yield b
    b.close()


@pytest.fixture
def fresh_index(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store")
    b.index(fixture_chunks)
    return b
