"""What the tests of the entry-based framework adapters (mem0, openmemory) share: a small bundle, a closed port,
and where the shared corpora are (beside the project, or MEMDOCK_SHARED_DATA in a worktree)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from memdock.bundle import BundleWriter
from memdock.ids import content_hash

SHARED_DATA = Path(os.environ.get("MEMDOCK_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


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


def write_bundle(path: Path, texts: list[str], thread: str = "thread:greenhouse", author: str = "ops") -> Path:
    """One thread of entries (with a chunk each), in reverse file order."""
    with BundleWriter(path, "chunks") as w:
        w.write("thread", {"id": thread, "title": "Greenhouse log", "ingestion_time": T0.format(1)})
        for i, text in reversed(list(enumerate(texts))):
            eid = f"entry:gh-{i}"
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
                    "id": f"chunk:gh-{i}",
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
