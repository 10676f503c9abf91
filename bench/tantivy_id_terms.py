"""What an id's term costs tantivy's term dictionary, written each way the tantivy adapter could write it.

    memdock adapters install tantivy
    <the tantivy venv>/bin/python bench/tantivy_id_terms.py [--ids 100000]

memdock's ids end in a hash's 16 hex digits. N such ids (prefixes as the importers make them, tails from sha256)
are indexed in one raw-tokenized field (a bytes field for raw bytes), one commit, and the field's `.term` files
measured: the tail as hex (layout 5), as 8 raw bytes, as 32, 64 (layout 6, memdock_tantivy.keys), 85 and 128
letters; then sequential ids, which share all but their last characters, for the floor of a term.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path

import tantivy

PREFIXES = ("edge:contains:", "edge:follows:", "edge:mentions:", "entry:", "chunk:", "entity:person:")
ALPHABETS = {
    32: "0123456789abcdefghijklmnopqrstuv",
    64: "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_",
    85: "".join(chr(c) for c in range(0x21, 0x21 + 85)),
    128: "".join(chr(c) for c in range(128)),
}
WIDTH = {32: 13, 64: 11, 85: 10, 128: 10}  # letters for 64 bits


def letters(tail: bytes, base: int) -> str:
    n, out = int.from_bytes(tail, "big"), []
    for _ in range(WIDTH[base]):
        n, r = divmod(n, base)
        out.append(ALPHABETS[base][r])
    return "".join(reversed(out))


def lettered(base: int) -> Callable[[str, bytes], str]:
    return lambda prefix, tail: prefix + "!" + letters(tail, base)


def term_bytes(values: list[str | bytes], folder: Path) -> int:
    sb = tantivy.SchemaBuilder()
    if isinstance(values[0], bytes):
        sb.add_bytes_field("k", indexed=True)
    else:
        sb.add_text_field("k", tokenizer_name="raw", index_option="basic")
    folder.mkdir(parents=True)
    index = tantivy.Index(sb.build(), path=str(folder))
    writer = index.writer(200_000_000, 1)
    for v in values:
        doc = tantivy.Document()
        (doc.add_bytes if isinstance(v, bytes) else doc.add_text)("k", v)  # type: ignore[arg-type]
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    return sum(p.stat().st_size for p in folder.glob("*.term"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ids", type=int, default=100000)
    args = ap.parse_args()
    n = args.ids
    ids = [(PREFIXES[i % len(PREFIXES)], hashlib.sha256(str(i).encode()).digest()[:8]) for i in range(n)]
    ways: dict[str, Callable[[str, bytes], str | bytes]] = {
        "hex (layout 5)": lambda p, t: p + t.hex(),
        "8 raw bytes": lambda p, t: b"\x00" + p.encode() + t,
        **{f"{b} letters{' (layout 6)' if b == 64 else ''}": lettered(b) for b in ALPHABETS},
    }
    with tempfile.TemporaryDirectory(prefix="tantivy-id-terms-") as tmp:
        work = Path(tmp)
        print(f"{n:,} ids, one field, one commit")
        for i, (label, way) in enumerate(ways.items()):
            size = term_bytes([way(p, t) for p, t in ids], work / str(i))
            print(f"{label:<22} {size / 1e6:6.3f} MB {size / n:6.2f} B/term")
        size = term_bytes([f"edge:{i:09d}" for i in range(n)], work / "seq")
        print(f"{'sequential (floor)':<22} {size / 1e6:6.3f} MB {size / n:6.2f} B/term")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
