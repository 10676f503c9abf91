from pathlib import Path

import pytest
from support.sqlite_helpers import can_unshare, sqlite_backend  # noqa: F401  (re-exported for fixtures)

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


def chunks_of(folder: Path, out: Path) -> Path:
    import_corpus(sorted(folder.glob("*.md")), "watercooler", out / "corpus")
    chunk_bundle(out / "corpus", out / "chunks")
    return out / "chunks"


@pytest.fixture(scope="module")
def fixture_chunks(tmp_path_factory) -> Path:
    return chunks_of(FIXTURES, tmp_path_factory.mktemp("fixture-bundle"))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, fixture_chunks):
    """The fixture corpus indexed into a fresh sqlite store, queried through a worker."""
    backend = sqlite_backend(tmp_path_factory.mktemp("sqlite-store"), workers=1)
    backend.index(fixture_chunks)
    yield backend
    backend.close()


@pytest.fixture
def fresh_index(tmp_path, fixture_chunks):
    """A store of its own, for tests that change it."""
    backend = sqlite_backend(tmp_path / "store")
    backend.index(fixture_chunks)
    return backend


CHAT = [
    {"kind": "thread", "id": "chat", "title": "Polyglot chat"},
    {
        "id": "m1",
        "thread": "chat",
        "author": "ana",
        "time": "2025-05-01T10:00:00Z",
        "body": "Shall we move the nightly backup to object storage?",
    },
    {
        "id": "m2",
        "thread": "chat",
        "author": "bo",
        "time": "2025-05-01T10:05:00Z",
        "replies_to": "m1",
        "body": "Yes, and keep thirty days of snapshots.",
    },
    {
        "id": "m3",
        "thread": "chat",
        "author": "vera",
        "time": "2025-05-01T11:00:00Z",
        "body": "Резервное копирование работает каждую ночь без ошибок.",
    },
    {
        "id": "m4",
        "thread": "chat",
        "author": "ken",
        "time": "2025-05-01T12:00:00Z",
        "body": "バックアップ は 毎晩 実行 されます",
    },
]


@pytest.fixture(scope="module")
def chat_index(tmp_path_factory):
    import orjson

    root = tmp_path_factory.mktemp("chat")
    (root / "chat.jsonl").write_bytes(b"\n".join(orjson.dumps(x) for x in CHAT) + b"\n")
    import_corpus([root / "chat.jsonl"], "jsonl", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    backend = sqlite_backend(root / "store", workers=1)
    backend.index(root / "chunks")
    yield backend
    backend.close()
