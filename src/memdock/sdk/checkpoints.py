"""An indexer's commit callback: each batch it has committed becomes a checkpoint (a resumed run starts after
it) and a progress event."""

from __future__ import annotations

from .adapter import Context


class Checkpoints:
    """Call with the ids of each committed batch; `count` is the number of checkpoints sent, for the result."""

    def __init__(self, ctx: Context, total: int | None):
        self.ctx, self.total = ctx, total
        self.done = self.count = 0

    def __call__(self, ids: list[str]) -> None:
        self.done += len(ids)
        self.count += 1
        self.ctx.checkpoint(ids)
        self.ctx.progress(self.done, self.total)
