"""Stored records to normalised hits: memdock_entries.record_hits, naming tantivy as the backend."""

from __future__ import annotations

from functools import partial

from memdock_entries import record_hits as hits

BACKEND = "tantivy"
chunk_hit = partial(hits.chunk_hit, BACKEND)
node_hit = partial(hits.node_hit, BACKEND)
fact_hit = partial(hits.fact_hit, BACKEND)
