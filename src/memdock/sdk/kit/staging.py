"""An index run's first pass, as adapters over a framework share it: the bundle's records read with the file and
line they came from (so a bad one fails the run naming its place), the size check every framework needs, and the
record types a framework does not use, counted and checkpointed as done."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...bundle import BundleReader
from ...errors import InvalidInputError

USED = ("thread", "entry", "chunk")


@dataclass
class Staged:
    """What staging found: records per type, ids with nothing left to do once staging commits, ignored types."""

    counts: dict[str, int] = field(default_factory=dict)
    ready: list[str] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)


def located(reader: BundleReader, rtype: str) -> Iterator[tuple[dict[str, Any], str, int]]:
    """READER's records of RTYPE (none when it has no such part), each with its file and line."""
    if rtype not in reader.record_types():
        return
    for part in reader.entries(rtype):
        for line, rec in enumerate(reader.read_part(part), 1):
            yield rec, part.path, line


def check_size(text: str, limit: tuple[int, str], place: tuple[str, int, str, str], what: str, hint: str) -> None:
    """Raise InvalidInputError when TEXT is over LIMIT (characters, the setting that sets them); PLACE is (file,
    line, field, record id), WHAT says what the limit is (`an episode may have`), HINT what to do."""
    path, line, field_name, rec_id = place
    size, (most, setting) = len(text), limit
    if size > most:
        raise InvalidInputError(
            f"{path}:{line}: {field_name} of {rec_id} is {size:,} characters; {what} at most {most:,} ({setting}). "
            + hint,
            details={"file": path, "line": line, "field": field_name, "id": rec_id, "chars": size},
        )


def finish(reader: BundleReader, ready: list[str], ignored: dict[str, int]) -> dict[str, int]:
    """Count and make READY the records of every type a framework does not use; return the used types' counts."""
    types = reader.record_types()
    for rtype in types:
        if rtype not in USED:
            ignored[rtype] = reader.count(rtype)
            ready.extend(rec["id"] for rec in reader.records(rtype) if "id" in rec)
    return {t: reader.count(t) for t in USED if t in types}


class Checkpoints:
    """An index run's checkpoints, counted (every call sends at most BATCH ids), and the run's result."""

    BATCH = 1000

    def __init__(self, ctx: Any):
        self.ctx, self.count, self.started = ctx, 0, time.monotonic()

    def __call__(self, ids: list[str]) -> None:
        for i in range(0, len(ids), self.BATCH):
            self.count += 1
            self.ctx.checkpoint(ids[i : i + self.BATCH])

    def seconds(self) -> float:
        return time.monotonic() - self.started

    def result(self, counts: dict[str, int], details: dict[str, Any], seconds: float | None = None) -> dict[str, Any]:
        """The index result: records per type, checkpoints sent, the run's seconds and the adapter's DETAILS."""
        took = self.seconds() if seconds is None else seconds
        return {"indexed": counts, "checkpoints": self.count, "seconds": took, "details": details}
