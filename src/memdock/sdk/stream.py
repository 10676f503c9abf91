"""An index input read while the core is still writing it: the delta's lines on the adapter's stdin.

The core (`engine/stream.py`) starts an adapter that declares the `input_stream` feature at the start of
`memdock add`'s one pass and writes it each record the journal segment gets, as the line `TYPE JSON`, in the
order the pass makes them (an entry before its chunks, the endpoints of an edge before it). The last line is
`end COUNT`: without it, or with another count, the input is incomplete (the core died or refused a record)
and reading fails with `invalid_input`, so an adapter that commits only once its loop is done (a bulk load
swapped in at the end) leaves the store as it was. The records were checked by the core as it read them.

`record_groups` gives an adapter the records of a stream or of a bundle alike, as (type, records) groups: a
bundle's types one after the other in ORDER; a stream's as they come, GROUP records of a type at a time (at
most that many per type held in memory, plus what `sdk/readahead.py` reads ahead), the types in HOLD kept back
in a spool file in the work dir until the input is complete (an adapter whose last type needs every record
before it, as tantivy's edges release the entries it holds for the text once)."""

from __future__ import annotations

import os
import tempfile

from .readahead import END, ReadAhead

__all__ = ["END", "GROUP", "StreamedInput", "record_groups"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any, BinaryIO

    from ..bundle import BundleReader

GROUP = 5000


class StreamedInput:
    """The records on STREAM (the adapter's stdin), read once; SPOOL_DIR holds the types kept back. COUNTS, by
    type, is whole once the groups are read to the end."""

    def __init__(self, stream: BinaryIO, spool_dir: str | os.PathLike[str], where: str = "stdin"):
        self.stream, self.spool_dir, self.where = stream, spool_dir, where
        self.counts: dict[str, int] = {}

    def record_types(self) -> list[str]:
        return list(self.counts)

    def count(self, rtype: str) -> int:
        return self.counts.get(rtype, 0)

    def groups(
        self, order: Sequence[str], hold: Sequence[str] = (), group: int = GROUP
    ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """(type, records) of ORDER's types: a type's records are given once GROUP of them came, after what came
        of the types before it in ORDER (so an entry still comes before its chunks); HOLD's types after the end
        line. Other types are counted and skipped."""
        buffers: dict[str, list[dict[str, Any]]] = {t: [] for t in order if t not in hold}
        ahead = ReadAhead(self.stream, self.where, parse=set(buffers), keep=set(hold))
        spool = tempfile.TemporaryFile(dir=self.spool_dir)  # noqa: SIM115  # closed below, after its replay
        try:
            for name, item in ahead:
                self.counts[name] = self.counts.get(name, 0) + 1
                buffer = buffers.get(name)
                if buffer is None:
                    if item is not None:
                        spool.write(item)
                    continue
                buffer.append(item)
                if len(buffer) >= group:
                    yield from _upto(buffers, name)
            yield from _upto(buffers, None)
            spool.seek(0)
            yield from _replay(spool, order, hold, group)
        finally:
            ahead.close()
            spool.close()


def _upto(buffers: dict[str, list[dict[str, Any]]], last: str | None) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The buffered records of each type in order (the dict's), up to LAST's own (None: all)."""
    for rtype, records in buffers.items():
        if records:
            buffers[rtype] = []
            yield rtype, records
        if rtype == last:
            return


def _replay(
    spool: BinaryIO, order: Sequence[str], hold: Sequence[str], group: int
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    import orjson

    for rtype in order:
        if rtype not in hold:
            continue
        spool.seek(0)
        records: list[dict[str, Any]] = []
        prefix = rtype.encode() + b" "
        for line in spool:
            if line.startswith(prefix):
                records.append(orjson.loads(line[len(prefix) :]))
                if len(records) >= group:
                    yield rtype, records
                    records = []
        if records:
            yield rtype, records


def record_groups(
    reader: BundleReader | StreamedInput, order: Sequence[str], hold: Sequence[str] = (), group: int = GROUP
) -> Iterable[tuple[str, Iterable[dict[str, Any]]]]:
    """READER's records as (type, records) groups: a bundle's in ORDER, type by type; a stream's as they come
    (see the module's docstring)."""
    if isinstance(reader, StreamedInput):
        return reader.groups(order, hold, group)
    types = reader.record_types()
    return ((t, reader.records(t)) for t in order if t in types)
