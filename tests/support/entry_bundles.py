"""What the tests of the entry-based framework adapters (mem0, openmemory) share: a small bundle, a closed port,
and where the shared corpora are (beside the project, or MEMDOCK_SHARED_DATA in a worktree); and a bundle of
chat rooms of growing size for the sharding tests."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from memdock.bundle import BundleWriter
from memdock.chunking import chunk_bundle
from memdock.ids import content_hash
from memdock.importers.pipeline import import_corpus

SHARED_DATA = Path(os.environ.get("MEMDOCK_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


GREENHOUSE = [
    "Ana ordered Quartz sensors for the greenhouse.",
    "Bo calibrated the Quartz sensors against the Vaisala reference.",
    "Ana noticed the Vaisala probe drifting after rain.",
    "Chen replaced the greenhouse vents with Danfoss actuators.",
    "Bo logged humidity spikes near the Danfoss actuators.",
    "Zephyrine archived the Marigold seed inventory.",
]

T0 = "2025-03-0{}T10:00:00Z"


def write_bundle(
    path: Path, texts: list[str], thread: str = "thread:greenhouse", author: str = "ops", prefix: str = "gh"
) -> Path:
    """One thread of entries (with a chunk each), in reverse file order."""
    with BundleWriter(path, "chunks") as w:
        w.write("thread", {"id": thread, "title": "Greenhouse log", "ingestion_time": T0.format(1)})
        for i, text in reversed(list(enumerate(texts))):
            eid = f"entry:{prefix}-{i}"
            w.write(
                "entry",
                {
                    "id": eid,
                    "thread_id": thread,
                    "position": i,
                    "body": text,
                    "author": author,
                    "ingestion_time": T0.format(1),
                    "event_time": T0.format(i + 1),
                },
            )
            w.write(
                "chunk",
                {
                    "id": f"chunk:{prefix}-{i}",
                    "entry_id": eid,
                    "thread_id": thread,
                    "position": 0,
                    "text": text[:2000],
                    "start": 0,
                    "end": min(len(text), 2000),
                    "token_count": len(text.split()),
                    "content_hash": content_hash(text[:2000]),
                    "author": author,
                    "event_time": T0.format(i + 1),
                },
            )
    return path


def chat_bundle(tmp_path: Path, threads: int = 12) -> Path:
    """A chunks bundle of THREADS chat rooms of growing size (3, 5, 7... messages), for sharding."""
    rows = []
    for t in range(threads):
        for i in range(3 + 2 * t):
            text = f"room {t} message {i} about @user{i % 3}"
            time = f"2026-01-{1 + i % 28:02d}T10:00:00Z"
            rows.append(
                {"id": f"m{t}-{i}", "thread": f"room-{t}", "author": f"user{i % 3}", "time": time, "text": text}
            )
    src = tmp_path / "chat.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_corpus([src], "jsonl", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    return tmp_path / "chunks"


def index_killed_after_three(b, bundle: Path) -> list[str]:
    """Index BUNDLE, killing the run (an exception in the checkpoint callback) once three entries are committed;
    the entry ids committed, in order."""
    import pytest

    from memdock.errors import MemdockError

    order: list[str] = []

    def kill_after_three(ids: list[str]) -> None:
        order.extend(i for i in ids if i.startswith("entry:"))
        if len(order) >= 3:
            raise RuntimeError("test: killing the index run after three entries")

    with pytest.raises(MemdockError):
        b.index(bundle, after_checkpoint=kill_after_three)
    return order
