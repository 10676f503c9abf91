"""The one rule that turns a thread name into a thread id, used by every entry point that takes threads.

A value starting `thread:` is an id and is kept as is; anything else is a name, and becomes
`thread:{slug}:{digest8}`: readable, stable across runs, and distinct for names that slug alike.
So `remember(thread="infra")` and `recall(thread="infra")`, `memdock recall --thread infra` and the MCP
tools' `thread: ["infra"]` all mean the same thread.
"""

from __future__ import annotations

from .ids import digest, slug

ID_PREFIX = "thread:"
DEFAULT_THREAD = "memory"


def thread_id_for(thread: str) -> str:
    """An existing thread id is used as is; a name becomes a stable id of its own."""
    if thread.startswith(ID_PREFIX):
        return thread
    return f"{ID_PREFIX}{slug(thread, 60) or 'thread'}:{digest('memory', thread, length=8)}"
