"""Chat sessions in the LoCoMo layout: each session a thread, each turn an entry.

A sample has `conversation` with `session_N` (turns: speaker, dia_id, text) and
`session_N_date_time` ("1:56 pm on 8 May, 2023", no timezone: taken as UTC).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from .base import ImportContext, ParsedThread, to_rfc3339
from .textio import read_text

_SESSION = re.compile(r"^session_(\d+)$")


def parse_chat_time(text: str) -> datetime | None:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08T13:56:00Z; None when it does not parse."""
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%H:%M on %d %B, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


class ChatImporter:
    name = "chat"

    def sources(self, path: Path) -> list[Path]:
        return sorted(path.rglob("*.json")) if path.is_dir() else [path]

    def read(self, path: Path, ctx: ImportContext) -> Iterator[ParsedThread]:
        text = read_text(path, ctx)
        if text is None:
            return
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            ctx.error(path, f"invalid JSON: {exc}")
            return
        samples = data if isinstance(data, list) else [data]
        for si, sample in enumerate(samples):
            if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
                ctx.warn(path, None, f"sample {si} has no conversation object; skipped")
                continue
            yield from self._sample(sample, si, path, ctx)

    def _sample(self, sample: dict[str, Any], si: int, path: Path, ctx: ImportContext) -> Iterator[ParsedThread]:
        conv = sample["conversation"]
        sid = str(sample.get("sample_id", si))
        sessions = sorted((int(m.group(1)), k) for k in conv if (m := _SESSION.match(k)))
        for n, key in sessions:
            turns = conv[key]
            if not isinstance(turns, list):
                ctx.warn(path, None, f"{sid} {key} is not a list of turns; skipped")
                continue
            when_raw = conv.get(f"{key}_date_time")
            when = parse_chat_time(when_raw) if isinstance(when_raw, str) else None
            if when is None:
                ctx.warn(
                    path,
                    None,
                    f"{sid} {key}: date {when_raw!r} does not parse; its entries have no event time",
                    kind="unreadable session date",
                )
            else:
                ctx.warn(
                    path, None, "chat session dates carry no timezone; taken as UTC", kind="time without a timezone"
                )
            tid = ctx.thread_id(self.name, path, sid, f"s{n}")
            thread: dict[str, Any] = {
                "id": tid,
                "title": f"{sid} session {n}",
                "source": ctx.relative(path),
                "format": self.name,
                "ingestion_time": ctx.ingestion_time,
                "metadata": {
                    "sample_id": sid,
                    "session": n,
                    "speakers": [conv.get("speaker_a"), conv.get("speaker_b")],
                },
            }
            if when:
                thread["event_time"] = to_rfc3339(when)
            entries: list[dict[str, Any]] = []
            for pos, turn in enumerate(turns):
                if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
                    ctx.warn(path, None, f"{sid} {key} turn {pos} has no text; skipped", kind="turn without text")
                    continue
                dia = str(turn.get("dia_id") or f"D{n}:{pos + 1}")
                body = turn["text"]
                if turn.get("blip_caption"):
                    body += f"\n[shared an image: {turn['blip_caption']}]"
                e: dict[str, Any] = {
                    "id": ctx.claim_entry_id(f"entry:{sid}:{dia}", thread_id=tid, file=path, line=None),
                    "thread_id": tid,
                    "position": len(entries),
                    "author": str(turn.get("speaker", "")),
                    "role": "speaker",
                    "body": body,
                    "source": ctx.relative(path),
                    "ingestion_time": ctx.ingestion_time,
                    "metadata": {"dia_id": dia, "sample_id": sid},
                }
                if when:
                    e["event_time"] = to_rfc3339(when)
                entries.append(e)
            yield ParsedThread(thread, entries)
