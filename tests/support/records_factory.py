"""Small, valid v1 records for tests."""

from __future__ import annotations

from memdock.ids import content_hash

T0 = "2025-12-09T02:35:37Z"


def thread(i: int = 0, **kw):
    return {"id": f"thread:{i}", "title": f"Thread {i}", "ingestion_time": T0, **kw}


def entry(i: int = 0, thread_id: str = "thread:0", **kw):
    return {"id": f"entry:{i}", "thread_id": thread_id, "position": i, "body": f"body {i}", "ingestion_time": T0, **kw}


def chunk(i: int = 0, text: str | None = None, **kw):
    text = text if text is not None else f"chunk text number {i} " * 5
    return {
        "id": f"chunk:{i}",
        "entry_id": f"entry:{i}",
        "thread_id": "thread:0",
        "position": 0,
        "text": text,
        "start": 0,
        "end": len(text),
        "token_count": len(text.split()),
        "content_hash": content_hash(text),
        **kw,
    }


def edge(i: int = 0, **kw):
    return {"id": f"edge:{i}", "type": "follows", "source_id": f"entry:{i}", "target_id": f"entry:{i + 1}", **kw}
