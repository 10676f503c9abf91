"""An adapter's input stream (`sdk/stream.py`): records in groups that keep an entry before its chunks, held types
after the end, and an input without its end line (or with another count) refused before it is all given."""

import io
import json

import pytest

from memdock.errors import InvalidInputError
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
