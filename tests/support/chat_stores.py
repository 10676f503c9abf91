"""A small LoCoMo-style conversation as a chunk bundle, for the recall tests of the adapters that reorder
conversations (sqlite, postgres: memdock_entries.rerank), and what their answers must show."""

from pathlib import Path

import orjson

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus


def chat_chunks(root: Path, sessions: list[list[str]], *, speakers=("Ana", "Bo"), dates=None) -> Path:
    """The chunks of a chat of SESSIONS (turns by SPEAKERS in turn), session N dated DATES[N] (None: no date key)."""
    conversation: dict = {"speaker_a": speakers[0], "speaker_b": speakers[-1]}
    for i, turns in enumerate(sessions, 1):
        when = f"1:56 pm on {i} May, 2023" if dates is None else dates[i - 1]
        if when is not None:
            conversation[f"session_{i}_date_time"] = when
        conversation[f"session_{i}"] = [
            {"speaker": speakers[j % len(speakers)], "dia_id": f"D{i}:{j + 1}", "text": text}
            for j, text in enumerate(turns)
        ]
    (root / "chat.json").write_bytes(orjson.dumps({"sample_id": "s", "conversation": conversation}))
    import_corpus([root / "chat.json"], "chat", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    return root / "chunks"


def ordered_by_rank_value(hits) -> bool:
    values = [h.extra["rank_value"] for h in hits]
    return bool(values) and values == sorted(values, reverse=True) and all(0 <= h.score <= 1 for h in hits)
