"""An entry's metadata as the frameworks store it (`md_*` keys), so searches can filter on it and hits lead back to our
ids."""

from __future__ import annotations

from typing import Any

from memdock import times


def author_keys(author: str | None) -> list[str]:
    """ "Codex (lee)" is found as codex, lee or itself: watercooler writes authors as "agent (user)"."""
    if not author:
        return []
    low = author.lower().strip()
    keys = [low]
    if low.endswith(")") and " (" in low:
        agent, user = low[:-1].split(" (", 1)
        keys += [agent.strip(), user.strip()]
    return list(dict.fromkeys(k for k in keys if k))


def epoch(value: str | None) -> float | None:
    return times.epoch(value)


def metadata(entry: dict[str, Any]) -> dict[str, Any]:
    meta = {
        "md_entry_id": entry["id"],
        "md_thread_id": entry["thread_id"],
        "md_author": entry.get("author"),
        "md_author_keys": author_keys(entry.get("author")),
        "md_role": (entry.get("role") or "").lower() or None,
        "md_type": (entry.get("entry_type") or "").lower() or None,
        "md_event_time": entry.get("event_time"),
        "md_event_ts": epoch(entry.get("event_time")),
    }
    return {k: v for k, v in meta.items() if v not in (None, [])}
