"""The journal's stored form of a part (format 2): each text once.

A chunk's text is its entry's body, or a span of it, after the chunk's own header line (`chunking.chunker`); kept
as it was sent, the journal held every text twice (the entry and its chunks). A compressed part (a journal
segment's, `BundleWriter(compress=True)`) therefore starts with the line `#memdock-journal 2`, and a chunk line
whose text is `[header + "\\n" +] body[start:end]` of an entry written earlier in the same bundle is stored as

    @ORDINAL,START,END,POS,HPOS,HLEN,CPOS;REST

ORDINAL the entry's place among the bundle's entry lines, START:END the span of its body (characters), REST the
line without its text value and (CPOS not -1) without its `content_hash` value when that is the text's
(`ids.content_hash`, 32 random bytes that no codec shrinks), HPOS:HPOS+HLEN the chunk's `header` value inside REST
(HPOS -1: no header before the span). The hash goes back at CPOS, then the text at POS. A reader puts the line
back byte for byte: the manifest still gives the plain line's count, size and sha256, which are checked as it is
read. A line is stored so only when decoding it was seen to give the line back exactly; any other line is stored
as it is (`{...}`). Ordinals never go back within a bundle, so a reader walks the entry parts once beside the
chunk part and holds one body at a time.

A part without the header line is format 1 (a segment written before, compressed as it was sent); a part whose
header names a format above FORMAT was written by a newer memdock and is refused, naming both.
"""

from __future__ import annotations

import re
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import orjson

from ..ids import content_hash
from ..jsonl import PayloadError

FORMAT = 2
HEADER = b"#memdock-journal %d\n" % FORMAT
_HEADER = re.compile(rb"^#memdock-journal (\d+)\n$")
_REF = re.compile(rb"^@(\d+),(\d+),(\d+),(\d+),(-?\d+),(\d+),(-?\d+);")
MAX_HELD_BYTES = 128 * 1024 * 1024
"""How much memory of entry bodies a writer holds to find its chunks' spans in; the chunks of entries past it keep
their text. A body is let go once a chunk of a later entry is stored as a span (no chunk can be a span of it then),
so when entries and their chunks come in turn (`memdock add`'s one pass) only the bodies not yet passed are held."""


class Bodies:
    """The writer's side: the bodies of the entries written so far, to store chunk lines as spans of them."""

    def __init__(self) -> None:
        self.by_id: dict[str, tuple[int, str]] = {}
        self.order: deque[tuple[int, str, int]] = deque()  # (ordinal, id, size) of each body held, in order
        self.entries = 0
        self.held = 0
        self.last = 0  # ordinals never go back: a reader walks the entries once

    def note(self, lines: Sequence[bytes], records: Sequence[dict[str, Any]] | None = None) -> None:
        """Entry LINES, in the order they are written (RECORDS: the same entries as dicts, when the caller has them)."""
        for rec in records if records is not None else map(orjson.loads, lines):
            body, rid = rec.get("body"), rec.get("id")
            size = sys.getsizeof(body)
            if isinstance(body, str) and isinstance(rid, str) and self.held + size <= MAX_HELD_BYTES:
                self.by_id[rid] = (self.entries, body)
                self.order.append((self.entries, rid, size))
                self.held += size
            self.entries += 1

    def encode(
        self, lines: Sequence[bytes], records: Sequence[dict[str, Any]] | None = None, *, made: bool = False
    ) -> Sequence[bytes]:
        """Chunk LINES as stored: a span where one gives the line back exactly, else the line. RECORDS: the same
        chunks as dicts, when the caller has them (a wrong one costs only the span: each span is checked against
        its line). MADE: RECORDS are chunks the core's chunker made (`chunking.Chunker`), each line orjson's dumps
        of its record: its text and content_hash are found in the line without checking them again (see `_ref`)."""
        if not self.by_id:
            return lines
        if records is None:
            return [self._encode(line, orjson.loads(line)) for line in lines]
        return [self._encode(line, rec, made) for line, rec in zip(lines, records, strict=True)]

    def _encode(self, line: bytes, rec: Any, made: bool = False) -> bytes:
        text, header = rec.get("text"), rec.get("header")
        held = self.by_id.get(rec.get("entry_id"))
        if held is None or held[0] < self.last or not isinstance(text, str):
            return line
        ordinal, body = held
        if isinstance(header, str) and text.startswith(header + "\n"):
            skip = len(header) + 1
        else:
            skip, header = 0, None
        span = len(text) - skip
        start = _find(body, text, skip, rec.get("start"))
        if start < 0:
            return line
        try:
            ref = _ref(line, text, header, ordinal, start, start + span, rec["content_hash"] if made else None)
        except orjson.JSONEncodeError:  # a lone surrogate: such a line keeps its text
            return line
        if ref is None:
            return line
        if ordinal > self.last:
            self.last = ordinal
            self._let_go()
        return ref

    def _let_go(self) -> None:
        """Drop the bodies of the entries before `last`: no later chunk line may be a span of them."""
        order, by_id = self.order, self.by_id
        while order and order[0][0] < self.last:
            ordinal, rid, size = order.popleft()
            if by_id.get(rid, (None,))[0] == ordinal:
                del by_id[rid]
            self.held -= size


def _find(body: str, text: str, skip: int, hint: Any) -> int:
    """Where text[skip:] (the chunk's span, after its header line) starts in BODY (at HINT, the chunk's own start,
    when it is there), else -1; the span is not copied out of TEXT when it is found at HINT."""
    if isinstance(hint, int) and hint >= 0 and body.startswith(text[skip:] if skip else text, hint):
        return hint
    return body.find(text[skip:] if skip else text)


def _ref(
    line: bytes, text: str, header: str | None, ordinal: int, start: int, end: int, made: str | None = None
) -> bytes | None:
    """The span line of LINE, or None when LINE is not written as orjson writes it.

    Decoding it (`decode`) gives LINE back byte for byte, by construction: `"text":VALUE` and `"content_hash":DIGEST`
    are cut out of LINE where they were found, and decoding puts the same bytes back at the same places, VALUE and
    DIGEST made again from the same TEXT (HEADER, found in the line as its JSON, then body[start:end], which the
    caller found to be the rest of TEXT). tests/engine/test_journal_spans.py decodes what this makes.

    MADE: the content_hash of a chunk the core made (`Bodies.encode`), LINE orjson's dumps of it, whose first key
    named text is its text: VALUE is that key's string as the line holds it and DIGEST is MADE's (a chunk's hash is
    its text's), neither made again to be looked for (the same span line, tests/engine/test_journal_spans.py)."""
    if made is None:
        value = orjson.dumps(text)
        pos = _value_at(line, b'"text":', value)
        if pos < 0:  # not written as orjson writes it (spaces, escapes): kept as it is
            return None
        stop = pos + len(value)
        digest = orjson.dumps(content_hash(text))
    else:
        pos = line.find(b'"text":"') + 7
        stop = _string_end(line, pos) if pos >= 7 else -1
        if stop < 0:  # not a line made of its record (no text string in it): kept as it is
            return None
        digest = b'"%s"' % made.encode()
    rest = line[:pos] + line[stop:]
    cpos = _value_at(rest, b'"content_hash":', digest)
    if cpos >= 0:
        rest = rest[:cpos] + rest[cpos + len(digest) :]
    hpos, hlen = -1, 0
    if header is not None:
        encoded = orjson.dumps(header)
        hpos = _value_at(rest, b'"header":', encoded)
        if hpos < 0:
            return None
        hlen = len(encoded)
    return b"@%d,%d,%d,%d,%d,%d,%d;" % (ordinal, start, end, pos, hpos, hlen, cpos) + rest


def _value_at(data: bytes, key: bytes, value: bytes) -> int:
    """Where VALUE starts after KEY at the first place in DATA it does (`data.find(key + value) + len(key)` without
    the long needle), else -1."""
    at = data.find(key)
    while at >= 0:
        pos = at + len(key)
        if data.startswith(value, pos):
            return pos
        at = data.find(key, at + 1)
    return -1


def _string_end(line: bytes, pos: int) -> int:
    """Where the JSON string starting at LINE[POS] (its opening quote) ends, past its closing quote: the first
    quote not escaped (a quote inside a string is always written escaped, after an odd run of backslashes); -1
    when it does not end."""
    at = line.find(b'"', pos + 1)
    while at >= 0:
        back = at
        while line[back - 1] == 0x5C:  # a backslash
            back -= 1
        if not (at - back) % 2:
            return at + 1
        at = line.find(b'"', at + 1)
    return -1


def ordinal_of(stored: bytes) -> int | None:
    """The entry ordinal a stored line refers to, or None when it is stored as it is."""
    if stored[:1] != b"@":
        return None
    m = _REF.match(stored)
    return int(m.group(1)) if m else None


def decode(stored: bytes, body: str) -> bytes:
    """The line STORED (a span of BODY) stands for."""
    m = _REF.match(stored)
    if m is None:
        raise ValueError("not a span line")
    start, end, hpos, hlen, cpos = (int(m.group(i)) for i in (2, 3, 5, 6, 7))
    rest = stored[m.end() :]
    span = body[start:end]
    text = orjson.loads(rest[hpos : hpos + hlen]) + "\n" + span if hpos >= 0 else span
    return _splice(m, stored, orjson.dumps(text), orjson.dumps(content_hash(text)) if cpos >= 0 else b"")


def _splice(m: re.Match[bytes], stored: bytes, value: bytes, digest: bytes) -> bytes:
    """The line STORED (matched by M) stands for, given its text's JSON VALUE and its hash's, DIGEST."""
    pos, cpos = int(m.group(4)), int(m.group(7))
    rest = stored[m.end() :]
    if cpos >= 0:
        rest = rest[:cpos] + digest + rest[cpos:]
    return rest[:pos] + value + rest[pos:]


class Stored:
    """A compressed part read back as its plain lines (the `readline` a `jsonl.LineReader` calls): format 1 as it
    is, format 2 with its span lines put back from the bundle's entry bodies (BODIES, read only when needed)."""

    def __init__(self, raw: IO[bytes], name: str, bodies: Callable[[], Iterator[str | None]]):
        self.raw, self.name, self._bodies = raw, name, bodies
        self.started = False
        self.walk: Iterator[str | None] | None = None
        self.at = -1  # the entry the walk is on, and its body
        self.body: str | None = None
        self.n = 0

    def _start(self, limit: int) -> bytes:
        """The first line, read when the first is asked for (a damaged file fails inside the reader's checks)."""
        self.started = True
        first = self.raw.readline(limit)
        m = _HEADER.match(first)
        if m is None:
            return first  # format 1: no header, every line as it was sent
        if int(m.group(1)) > FORMAT:
            raise PayloadError(
                f"journal format {int(m.group(1))}, written by a newer memdock; this memdock reads journal formats "
                f"up to {FORMAT}",
                file=self.name,
            )
        return b""

    def readline(self, limit: int = -1) -> bytes:
        line = b"" if self.started else self._start(limit)
        if not line:
            line = self.raw.readline(limit)
        self.n += 1
        if line[:1] != b"@" or line[-1:] != b"\n":  # a plain line, or one the reader refuses as it is
            return line
        try:
            line = decode(line, self._body(line))
        except (ValueError, orjson.JSONDecodeError):
            raise PayloadError("a span line that cannot be read (damaged)", file=self.name, line=self.n) from None
        return line[:limit] if 0 <= limit < len(line) else line

    def _body(self, stored: bytes) -> str:
        ordinal = ordinal_of(stored)
        if ordinal is None or ordinal < self.at:
            raise ValueError("not a span line, or one that goes back")
        if self.walk is None:
            self.walk = self._bodies()
        while self.at < ordinal:
            self.body = next(self.walk, None)
            self.at += 1
        if self.body is None:
            raise PayloadError(f"a span of entry #{ordinal + 1}, which holds no body here", file=self.name, line=self.n)
        return self.body

    def close(self) -> None:
        self.raw.close()

    def __enter__(self) -> Stored:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
