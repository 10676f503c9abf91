"""The lines `InputStream.write_lines` gives the adapter: each after its record type, each ending with its newline,
whether the pass's lines carry it (every line it makes) or not."""

from __future__ import annotations

import io

from memdock.engine.stream import InputStream, _newline_ended


def written(lines: list[bytes]) -> bytes:
    stream = InputStream()
    pipe = io.BytesIO()
    stream._pipe = pipe
    stream.write_lines("chunk", lines)
    assert stream.sent == len(lines)
    return pipe.getvalue()


def test_lines_with_their_newlines_go_framed_as_they_are() -> None:
    assert written([b'{"id":"a"}\n', b'{"id":"b"}\n']) == b'chunk {"id":"a"}\nchunk {"id":"b"}\n'


def test_a_line_without_its_newline_gets_one() -> None:
    assert written([b'{"id":"a"}\n', b'{"id":"b"}', b'{"id":"c"}\n']) == (
        b'chunk {"id":"a"}\nchunk {"id":"b"}\nchunk {"id":"c"}\n'
    )


def test_newline_ended_looks_at_each_line_end_of_bytes_and_bytearrays() -> None:
    assert _newline_ended([b"a\n", b"b\n"]) and _newline_ended([])
    assert not _newline_ended([b"a\n", b"b"]) and not _newline_ended([b""])
    assert _newline_ended([b"a\n", bytearray(b"b\n")]) and not _newline_ended([bytearray(b"b")])
