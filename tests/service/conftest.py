from pathlib import Path

import pytest

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "tests" / "adapters" / "scripted"


@pytest.fixture(scope="module")
def sqlite_store(tmp_path_factory) -> Path:
    """A sqlite store holding the fixture corpus."""
    root = tmp_path_factory.mktemp("service-store")
    import_corpus([ROOT / "fixtures" / "threads"], "watercooler", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    with SubprocessBackend(Registry().get("sqlite"), root / "store") as b:
        b.index(root / "chunks")
    return root / "store"
