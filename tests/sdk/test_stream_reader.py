"""An adapter's input stream (`sdk/stream.py`): records in groups that keep an entry before its chunks, held types
after the end, and an input without its end line (or with another count) refused before it is all given."""

import fcntl
import io
import json
import os
import threading

import pytest

from memdock.errors import InvalidInputError
from memdock.sdk.readahead import ReadAhead
from memdock.sdk.stream import StreamedInput, record_groups

ORDER = ("thread", "entity", "entry", "chunk", "edge")


def line(rtype: str, i: int) -> bytes:
    return rtype.encode() + b" " + json.dumps({"id": f"{rtype}{i}"}).encode() + b"\n"


def wire(*lines: bytes, end: int | None = None) -> io.BytesIO:
    tail = b"" if end is None else b"end %d\n" % end
    return io.BytesIO(b"".join(lines) + tail)


def flat(groups) -> list[tuple[str, list[str]]]:
    return [(t, [r["id"] for r in records]) for t, records in groups]


def test_groups_come_as_they_fill_after_what_came_of_the_types_before_them(tmp_path):
    lines = [line("entry", 0), line("chunk", 0), line("edge", 0), line("entry", 1), line("chunk", 1), line("chunk", 2)]
    reader = StreamedInput(wire(*lines, end=6), tmp_path)
    got = flat(reader.groups(ORDER, group=2))
    assert got == [("entry", ["entry0", "entry1"]), ("chunk", ["chunk0", "chunk1"]), ("chunk", ["chunk2"]),
                   ("edge", ["edge0"])]  # fmt: skip
    assert reader.counts == {"entry": 2, "chunk": 3, "edge": 1}


def test_held_types_come_after_the_end_and_unknown_types_are_counted_and_skipped(tmp_path):
    lines = [line("entry", 0), line("edge", 0), line("embedding", 0), line("chunk", 0), line("edge", 1)]
    reader = StreamedInput(wire(*lines, end=5), tmp_path)
    got = flat(record_groups(reader, ORDER, hold=("edge",)))
    assert got == [("entry", ["entry0"]), ("chunk", ["chunk0"]), ("edge", ["edge0", "edge1"])]
    assert reader.count("embedding") == 1 and sorted(reader.record_types()) == ["chunk", "edge", "embedding", "entry"]


@pytest.mark.parametrize("end", [None, 3, 1])
def test_an_input_without_its_end_line_or_with_another_count_is_refused_before_its_last_group(tmp_path, end):
    reader = StreamedInput(wire(line("entry", 0), line("chunk", 0), end=end), tmp_path, where="index input stream")
    given = []
    with pytest.raises(InvalidInputError, match="index input stream: the input") as caught:
        for rtype, _records in reader.groups(ORDER):
            given.append(rtype)
    assert given == [] and caught.value.category == "invalid_input"
    assert list(tmp_path.iterdir()) == [], "the spool file is gone"


def test_a_line_that_is_not_json_names_its_line(tmp_path):
    reader = StreamedInput(wire(line("entry", 0), b"chunk {nope\n", end=2), tmp_path)
    with pytest.raises(InvalidInputError, match="line 2: not a JSON record"):
        list(reader.groups(ORDER))


def test_a_line_without_a_space_is_refused_naming_its_line(tmp_path):
    reader = StreamedInput(wire(line("entry", 0), b"chunk\n", end=2), tmp_path, where="index input stream")
    with pytest.raises(InvalidInputError, match=r"index input stream: line 2: not a `TYPE JSON` record line"):
        list(reader.groups(ORDER))


def test_the_core_goes_on_writing_while_the_adapter_holds_a_group(tmp_path):
    """The adapter's loop holds its first group and reads no more; the writer still gets every line into the pipe
    (several times what the kernel holds of it), because the read-ahead takes them."""
    read_fd, write_fd = os.pipe()
    total = 4 * fcntl.fcntl(read_fd, fcntl.F_GETPIPE_SZ) // len(line("entry", 0)) + 10
    writer = threading.Thread(target=write_all, args=(write_fd, total))
    writer.start()
    with os.fdopen(read_fd, "rb") as stream:
        groups = StreamedInput(stream, tmp_path).groups(ORDER, group=10)
        first = next(groups)
        writer.join(timeout=120)
        assert not writer.is_alive(), "the writer waited on a pipe nobody read"
        rest = sum(len(records) for _t, records in groups)
    assert len(first[1]) + rest == total


def write_all(fd: int, total: int) -> None:
    with os.fdopen(fd, "wb") as out:
        out.write(b"".join(line("entry", i) for i in range(total)) + b"end %d\n" % total)


def test_a_loop_stopped_early_stops_the_reader(tmp_path):
    ahead = ReadAhead(wire(*[line("entry", i) for i in range(100)], end=100), "stdin", parse={"entry"}, keep=())
    assert next(iter(ahead))[0] == "entry"
    ahead.close()
    ahead._thread.join(timeout=120)
    assert not ahead._thread.is_alive()


class _Trickle(io.RawIOBase):
    """A stream that gives its bytes PIECE at a time, so lines and their count go on across reads."""

    def __init__(self, data: bytes, piece: int):
        self.data, self.piece = data, piece

    def readable(self) -> bool:
        return True

    def read1(self, _size: int = -1) -> bytes:
        got, self.data = self.data[: self.piece], self.data[self.piece :]
        return got


@pytest.mark.parametrize("piece", [7, 50, 1 << 20])
def test_a_bad_line_is_named_by_its_number_across_reads(piece):
    lines = [line("entry", i) for i in range(30)] + [b"chunk {nope\n"]
    reader = ReadAhead(_Trickle(b"".join(lines) + b"end 31\n", piece), "x", parse={"entry", "chunk"}, keep=())
    with pytest.raises(InvalidInputError, match=r"^x: line 31: not a JSON record"):
        list(reader)
    reader.close()


@pytest.mark.parametrize("piece", [5, 1 << 20])
def test_the_end_line_counts_the_lines_of_every_read_and_a_bare_end_is_an_end(piece):
    lines = b"".join(line("entry", i) for i in range(12))
    reader = ReadAhead(_Trickle(lines + b"end 12\n", piece), "x", parse={"entry"}, keep=())
    assert [r["id"] for _, r in reader] == [f"entry{i}" for i in range(12)]
    reader = ReadAhead(_Trickle(lines + b"end\n", piece), "x", parse={"entry"}, keep=())
    with pytest.raises(InvalidInputError, match="end says  records; 12 came"):
        list(reader)


def test_types_past_those_remembered_are_read_the_same():
    kinds = [f"t{k}" for k in range(200)]
    data = b"".join(line(kind, k) for k, kind in enumerate(kinds)) + b"end 200\n"
    reader = ReadAhead(io.BytesIO(data), "x", parse=set(kinds[::3]), keep=set(kinds[1::3]))
    got = list(reader)
    assert [name for name, _ in got] == kinds
    for k, (name, what) in enumerate(got):
        want = {"id": f"{name}{k}"} if k % 3 == 0 else (line(name, k) if k % 3 == 1 else None)
        assert what == want, name
