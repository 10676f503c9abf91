"""A first index's streamed call begins at the delta's first record rather than at its first batch written (the
adapter's start then overlaps the pass making its input); a later run's never begins for an empty delta. A store
whose sources are refused is not touched."""

import pytest
from support.cli import memdock

from memdock.engine.delta import Delta, DeltaSink


def test_add_of_a_jsonl_without_entries_is_refused_without_touching_a_store(tmp_path):
    (tmp_path / "blank.jsonl").write_text('{"kind": "thread", "id": "t"}\n[1, 2]\n')
    store = tmp_path / "store"
    refused = memdock("add", str(tmp_path / "blank.jsonl"), "-f", "jsonl", "--data-dir", str(store), home=tmp_path)
    assert refused.returncode == 4, refused.stderr
    assert not store.exists()


class _Writer:
    def __init__(self) -> None:
        self.lines = 0

    def write_lines(self, rtype: str, lines: list[bytes], records: object = None, *, made: bool = False) -> None:
        self.lines += len(lines)


@pytest.mark.parametrize("fresh", [True, False])
def test_a_first_index_begins_its_reader_at_the_first_record_and_a_later_one_does_not(tmp_path, fresh):
    began: list[int] = []
    writer = _Writer()
    sink = DeltaSink(None, writer, Delta(tmp_path), fresh, begin=lambda: began.append(writer.lines))  # type: ignore[arg-type]
    for i in range(3):
        sink.add("thread", {"id": f"thread:{i}", "title": "t"}, b"{}\n")
    assert began == ([0] if fresh else [])  # once, before any line was written
