"""Where a tantivy store's index bytes are, field by field: each index's .idx, .term, .pos and .fieldnorm files
are tantivy composite files (a section per field), read here from their footers and summed over segments.

    python bench/tantivy_fields.py DATA_DIR [--text-bytes N]

DATA_DIR is a tantivy adapter's data dir (`<store>/data`). .store (the doc store) and .fast have no per-field
sections and are given whole.
"""

from __future__ import annotations

import argparse
import json
import struct
from collections import defaultdict
from pathlib import Path

COMPOSITE = (".idx", ".term", ".pos", ".fieldnorm")


def _vint(buf: bytes, at: int) -> tuple[int, int]:
    """tantivy's VInt: 7 bits a byte, low bits first, the high bit set on the last byte."""
    n = shift = 0
    while True:
        byte = buf[at]
        at += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if byte & 0x80:
            return n, at


def sections(path: Path) -> dict[int, int]:
    """Bytes per field id of the composite file at PATH (its tantivy footer stripped)."""
    raw = path.read_bytes()
    footer_len = struct.unpack("<I", raw[-8:-4])[0]
    data = raw[: len(raw) - 8 - footer_len]
    table_len = struct.unpack("<I", data[-4:])[0]
    table_at = len(data) - 4 - table_len
    count, at = _vint(data, table_at)
    starts: list[tuple[int, int]] = []
    offset = 0
    for _ in range(count):
        delta, at = _vint(data, at)
        offset += delta
        field = struct.unpack("<I", data[at : at + 4])[0]
        _idx, at = _vint(data, at + 4)
        starts.append((offset, field))
    out: dict[int, int] = defaultdict(int)
    for i, (start, field) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else table_at
        out[field] += end - start
    return out


def fields(folder: Path) -> dict[tuple[str, str], int]:
    names = [f["name"] for f in json.loads((folder / "meta.json").read_text())["schema"]]
    out: dict[tuple[str, str], int] = defaultdict(int)
    for path in folder.iterdir():
        if path.suffix in COMPOSITE:
            for field, size in sections(path).items():
                out[(path.suffix, names[field])] += size
        elif path.suffix in (".store", ".fast"):
            out[(path.suffix, "*")] += path.stat().st_size
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--text-bytes", type=int, default=0)
    args = ap.parse_args()
    for name in ("index", "chunks"):
        folder = args.data_dir / name
        if not (folder / "meta.json").exists():
            continue
        found = fields(folder)
        total = sum(found.values())
        print(f"{name}: {total / 1e6:.2f} MB")
        for (kind, field), size in sorted(found.items(), key=lambda kv: -kv[1]):
            ratio = f"{size / args.text_bytes:6.3f}×" if args.text_bytes else ""
            print(f"  {kind:<10} {field:<12} {size / 1e6:7.3f} MB {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
