"""CPU of two per-record steps of the tantivy adapter's index run, each beside the way it was done before.

    memdock adapters install tantivy
    <the tantivy venv>/bin/python bench/tantivy_key_pack_cpu.py [--ids 200000] [--chunks 8000] [--reps 3]

- An id's layout 6 term (`memdock_tantivy.keys.compact`, its cache bypassed: a chunk's id is seen once): the
  stdlib's base64 of the hash's bytes, against dividing the number down by 64 in Python (layout 6 as first
  written). Both must give the same terms; the script checks that before it times them.
- A chunk's stored record packed with the store's zstd dictionary (`memdock_tantivy.packed.Packer.pack`, which
  hands zstd the dictionary's bytes), against a compressor whose dictionary has its tables built once
  (`precompute_compress`; tried for the adapter and left out: no gain showed). The records are
  bench/synthetic.py's chunks; the dictionary is trained on the first half, the second half is timed.

Prints process CPU microseconds per call, min and max over the repetitions, interleaved.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson
import zstandard

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "adapters" / "tantivy"), str(ROOT / "adapters" / "common"), str(ROOT / "bench")]

from memdock_tantivy import keys, packed  # noqa: E402

TAIL = re.compile(r"(.*:)([0-9a-f]{16})\Z", re.S)


def by_division(value: str) -> str:
    """VALUE's layout 6 term as the layout was first written (tests/tantivy/test_tantivy_compact_ids.py compares
    keys.compact with it)."""
    if keys.MARK in value:
        return keys.MARK + value
    m = TAIL.match(value)
    if m is None:
        return value
    n, letters = int(m.group(2), 16), []
    for _ in range(keys.WIDTH):
        n, r = divmod(n, 64)
        letters.append(keys.ALPHABET[r])
    return m.group(1) + keys.MARK + "".join(reversed(letters))


def per_call(fn: Callable, items: list) -> float:
    started = time.process_time()
    for x in items:
        fn(x)
    return (time.process_time() - started) / len(items) * 1e6


def records(n: int, work: Path) -> list[bytes]:
    from synthetic import Vocabulary, write_bundle  # the memdock core and the sqlite adapter's stopwords

    write_bundle(work / "chunks", Vocabulary(work), n, random.Random(11))
    lines = (work / "chunks").glob("chunk-*.jsonl")
    return [orjson.dumps(orjson.loads(line)) for part in sorted(lines) for line in part.read_bytes().splitlines()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ids", type=int, default=200_000)
    ap.add_argument("--chunks", type=int, default=8000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(1)
    ids = [f"chunk:{rng.getrandbits(64):016x}" for _ in range(args.ids)]
    if any(keys.compact.__wrapped__(i) != by_division(i) for i in ids):
        raise SystemExit("keys.compact and the division loop give different terms")
    with tempfile.TemporaryDirectory() as tmp:
        recs = records(args.chunks, Path(tmp))
        marker = Path(tmp) / "marker.json"
        marker.write_text("{}")
        packer = packed.Packer(Path(tmp), True, marker)
        packer.train(recs[: len(recs) // 2])
        prebuilt = zstandard.ZstdCompressionDict(packer.path.read_bytes())
        prebuilt.precompute_compress(level=packed.LEVEL)
        tables = zstandard.ZstdCompressor(level=packed.LEVEL, dict_data=prebuilt, write_checksum=False)
        timed = recs[len(recs) // 2 :]
        rows: dict[str, list[float]] = {}
        for _ in range(args.reps):
            for name, fn, items in (
                ("id term, base64 (keys.compact)", keys.compact.__wrapped__, ids),
                ("id term, division loop", by_division, ids),
                ("chunk record, Packer.pack", packer.pack, timed),
                ("chunk record, dictionary tables prebuilt", tables.compress, timed),
            ):
                rows.setdefault(name, []).append(per_call(fn, items))
    for name, us in rows.items():
        print(f"{name:50} {min(us):6.2f}-{max(us):6.2f} us/call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
