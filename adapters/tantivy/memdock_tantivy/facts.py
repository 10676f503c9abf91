"""Facts (memdock.sdk.facts, rendered as the sqlite adapter renders them) with the source's kind, which the
edge document keeps. An endpoint not stored yet leaves the edge unresolved; the end of every index run renders
those again (`refresh_unresolved` in the ingest module)."""

from __future__ import annotations

from typing import Any

from memdock.sdk import facts


def render(
    get: facts.Lookup, edge: dict[str, Any], phrases: facts.Phrases | None = None
) -> tuple[str, bool, str | None]:
    """The fact sentence for EDGE, whether both endpoints were found, and the source's kind. PHRASES: as
    memdock.sdk.facts.render keeps them (while the nodes GET reads do not change)."""
    text, resolved = facts.render(get, edge, phrases)
    source = get(edge["source_id"])
    return text, resolved, source["kind"] if source else None
