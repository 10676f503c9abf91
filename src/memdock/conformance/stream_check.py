"""The kit's check of an adapter that declares `input_stream` (the index input on stdin, `sdk/stream.py`).

The core writes the golden bundle's records to the adapter's stdin as `TYPE JSON` lines. Cut without its
`end COUNT` line, the stream must be refused (`invalid_input`) with nothing of it searchable; whole, it must give
the answers the same bundle indexed from its files gives."""

from __future__ import annotations

from pathlib import Path

import orjson

from ..bundle import BundleReader
from ..engine.stream import AdapterGone, CallThread, InputStream
from ..engine.transport import Call
from ..errors import MemdockError
from ..runner.backend import SubprocessBackend
from . import golden
from .harness import Fail, Harness, Skip

ORDER = ("thread", "entity", "entry", "chunk", "edge", "embedding")


def stream_bundle(b: SubprocessBackend, bundle: Path, *, whole: bool) -> MemdockError | None:
    """BUNDLE's records on the adapter's stdin, with the end line when WHOLE; the call's error, if any."""
    stream = InputStream()
    request = Call("index", {"stream": True, "verified": True}, None, lambda ids: None, shared=False, stream=stream)
    call = CallThread(lambda: b.transport.send(request), stream)
    stream.start = call.start
    reader = BundleReader(bundle)
    try:
        for rtype in (t for t in ORDER if t in reader.record_types()):
            stream.write_lines(rtype, [orjson.dumps(r) for r in reader.records(rtype)])
        stream.end() if whole else stream.close()
    except AdapterGone:
        pass
    try:
        call.join()
    except MemdockError as exc:
        return exc
    return None


def _answers(b: SubprocessBackend) -> list[list[str]]:
    return [[hit.id for hit in b.query(text, limit=5).hits] for text, _ in golden.QUERIES]


def check_input_stream(h: Harness) -> str:
    caps = h.backend().get_capabilities()
    if not caps.has("input_stream"):
        raise Skip("adapter declares no input_stream")
    if not caps.supports("query"):
        raise Skip("adapter answers no query to compare")
    bundle = golden.write_golden(h.root / "golden-stream")
    streamed = h.backend()
    cut = stream_bundle(streamed, bundle, whole=False)
    if cut is None or cut.category != "invalid_input":
        said = "it succeeded" if cut is None else f"{cut.category}: {cut.message}"
        raise Fail(f"a stream cut without its end line was not refused as invalid_input ({said})")
    if any(_answers(streamed)):
        raise Fail("a stream refused for its missing end line left records searchable")
    failed = stream_bundle(streamed, bundle, whole=True)
    if failed is not None:
        raise Fail(f"the whole stream failed: {failed.category}: {failed.message}")
    sealed = h.backend()
    sealed.index(bundle)
    if _answers(streamed) != _answers(sealed):
        raise Fail("the streamed index answers the golden queries otherwise than the bundle indexed from its files")
    return f"a cut stream refused; the whole one answers {len(golden.QUERIES)} golden queries as the sealed bundle"
