"""The journal's codec and level against its CPU, on a real journal, every codec in the same run.

    python bench/journal_codec.py [--notes 20000 | --markdown-mb 20] [--codecs z1,z6,zdict1,xz,zstd3,zstd3long]

`memdock add` of bench/peers.py's short notes (or its watercooler markdown) into a fresh sqlite store, then each
part of its journal segment as stored (format 2, see src/memdock/bundle/spans.py) compressed again with each
codec: bytes, compress and decompress CPU seconds per part and in all, and the bytes over the text. Both corpora
repeat their text (the notes: 2,505 distinct texts among 20,000; the markdown: copies of 24 threads), which a
codec with a window of megabytes finds and deflate's 32 KiB does not. Codecs:

- `zN`: the stdlib's zlib (gzip framing, as a segment stores a part) at level N; the levels a run writes with
  are `bundle.writer.COMPRESS_LEVEL` and `COMPRESS_LEVELS`;
- `zdictN`: zlib level N with a preset dictionary of the part's own first 32 KiB, which is more than any
  dictionary of the record types' keys and common values could know: the most a preset dictionary can save
  (deflate's window is 32 KiB, so it helps only a part's first 32 KiB);
- `xz`: the stdlib's lzma, fast mode, a 16 MiB dictionary (it finds text repeated far apart);
- `isalN`: ISA-L's deflate (python-isal, the `fast` extra; skipped when it is not installed) at its level N, as the
  journal writes a part where ISA-L is installed (`bundle.deflate`);
- `zstdN`, `zstdNlong`: zstandard (an optional package; skipped when it is not installed) at level N, `long`
  with a 128 MiB long-distance window.
"""

from __future__ import annotations

import argparse
import gzip
import lzma
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from _common import on_path

on_path("src", "bench")

from peers import write_markdown, write_notes  # noqa: E402

Codec = tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]
_DICT = 32 * 1024


def _zlib(level: int) -> Codec:
    def pack(data: bytes) -> bytes:
        z = zlib.compressobj(level, zlib.DEFLATED, 31)
        return z.compress(data) + z.flush()

    return pack, gzip.decompress


def _zdict(level: int) -> Codec:
    def pack(data: bytes) -> bytes:
        z = zlib.compressobj(level, zlib.DEFLATED, -15, zdict=data[:_DICT])
        return z.compress(data[_DICT:]) + z.flush()

    def unpack(packed: bytes) -> bytes:  # the dictionary is the part's head, so it is not counted in the bytes
        return zlib.decompressobj(-15, zdict=b"\0" * _DICT).decompress(packed)

    return pack, unpack


def _xz() -> Codec:
    filters = [{"id": lzma.FILTER_LZMA2, "preset": 1, "dict_size": 1 << 24, "mode": lzma.MODE_FAST}]
    return (lambda d: lzma.compress(d, format=lzma.FORMAT_XZ, filters=filters)), lzma.decompress


def _zstd(level: int, long: bool) -> Codec | None:
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        return None
    params = zstandard.ZstdCompressionParameters.from_level(level, enable_ldm=long, window_log=27 if long else 0)
    pack = zstandard.ZstdCompressor(compression_params=params)
    unpack = zstandard.ZstdDecompressor(max_window_size=1 << 27)
    return pack.compress, lambda d: unpack.decompressobj().decompress(d)


def _isal(level: int) -> Codec | None:
    try:
        from isal import isal_zlib
    except ImportError:
        return None

    def pack(data: bytes) -> bytes:
        z = isal_zlib.compressobj(level, isal_zlib.DEFLATED, 31)
        return z.compress(data) + z.flush()

    return pack, gzip.decompress


def codec(name: str) -> Codec | None:
    if name.startswith("isal"):
        return _isal(int(name[4:]))
    if name.startswith("zdict"):
        return _zdict(int(name[5:]))
    if name.startswith("zstd"):
        return _zstd(int(name[4:].removesuffix("long")), name.endswith("long"))
    if name == "xz":
        return _xz()
    return _zlib(int(name[1:]))


def cpu(fn: Callable[[bytes], bytes], data: bytes) -> tuple[bytes, float]:
    start = time.process_time()
    out = fn(data)
    return out, time.process_time() - start


def journal_parts(notes: int, markdown_mb: float, work: Path) -> tuple[int, list[Path]]:
    """`memdock add` of the notes (or of MARKDOWN_MB of watercooler markdown); the text's bytes and the parts."""
    if markdown_mb:
        source, fmt = work / "markdown", "markdown"
        text = write_markdown(source, markdown_mb)
    else:
        source, fmt = work / "notes.jsonl", "jsonl"
        text = sum(len(t.encode()) for _, t in write_notes(source, notes))
    store = work / "store"
    cmd = [sys.executable, "-m", "memdock", "add", str(source), "-f", fmt, "-b", "sqlite", "--data-dir"]
    subprocess.run([*cmd, str(store), "-q"], check=True, stdout=subprocess.DEVNULL)
    return text, sorted((store / "journal").glob("*/*.jsonl.gz"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--codecs", default="z1,z3,z6,z9,zdict1,xz,zstd3,zstd3long")
    ap.add_argument("--markdown-mb", type=float, default=0.0, help="this much watercooler markdown, not the notes")
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    codecs = {n: c for n in args.codecs.split(",") if (c := codec(n)) is not None}
    work = Path(tempfile.mkdtemp(prefix="journal-codec-", dir=args.tmp))
    try:
        text, parts = journal_parts(args.notes, args.markdown_mb, work)
        what = f"{args.markdown_mb:g} MB of markdown" if args.markdown_mb else f"{args.notes:,} notes"
        print(f"{what}, {text / 1e6:.2f} MB of text; journal parts as stored, each codec in turn")
        heads = "".join(f"{n + ' MB/pack s/unpack s':>30}" for n in codecs)
        print(f"{'part':<24}{'plain MB':>9}{'stored MB':>10}  {heads}")
        totals = {n: [0, 0.0, 0.0] for n in codecs}
        stored = 0
        for part in parts:
            data = gzip.decompress(part.read_bytes())
            stored += part.stat().st_size
            row = f"{part.name:<24}{len(data) / 1e6:>9.2f}{part.stat().st_size / 1e6:>10.2f}  "
            for name, (pack, unpack) in codecs.items():
                packed, pack_s = cpu(pack, data)
                back, unpack_s = cpu(unpack, packed)
                assert len(back) == len(data) - (_DICT if name.startswith("zdict") else 0), name
                totals[name] = [totals[name][0] + len(packed), totals[name][1] + pack_s, totals[name][2] + unpack_s]
                row += f"{len(packed) / 1e6:>14.2f}{pack_s:>8.2f}{unpack_s:>8.2f}"
            print(row)
        row = f"{'all (MB × text)':<24}{'':>9}{stored / text:>10.2f}  "
        print(row + "".join(f"{t[0] / text:>14.2f}{t[1]:>8.2f}{t[2]:>8.2f}" for t in totals.values()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
