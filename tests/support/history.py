"""Which shared corpora a test of a past layout step runs on.

A layout step is proven when it is made: the adapter of the new step answers as the adapter before it did, on every
shared corpus. Both adapters are fixed commits, so that proof never changes; what can change is this adapter. The
newest step's tests compare this adapter with the one before it on every corpus they name (with the proofs made at
each step, that is this adapter against every past one). A past step's tests keep one corpus: what they still add
is this adapter reading and migrating a store of that step, which one corpus exercises. Each names its corpus."""

from __future__ import annotations


def past_step(corpus: str) -> list[str]:
    """The corpora a past step's tests run on: CORPUS alone."""
    return [corpus]
