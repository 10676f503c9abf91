"""packed_text.pack_hash compares a content hash's hex text with the chunk text's hexdigest instead of decoding it
first: what it stores is what decoding the hash and comparing digests stores, for any value and text."""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import packed_text


def _decoded(value: str | None, header: str | None, body: str | None) -> str | bytes | None:
    """pack_hash as the hash's bytes define it."""
    if value is None or not packed_text._SHA256.fullmatch(value):
        return value
    digest = bytes.fromhex(value[7:])
    return packed_text.DERIVED_HASH if packed_text.text_digest(header, body) == digest else digest


def _sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


TEXTS = ["", "a", "é\n", "lone \ud800 surrogate", "H\nbody"]


def _cases(seed: int) -> list[tuple[str | None, str | None, str | None]]:
    rnd = random.Random(seed)
    out: list[tuple[str | None, str | None, str | None]] = []
    for _ in range(60):
        header, body = rnd.choice([None, "", "H", "# h"]), rnd.choice([None, *TEXTS])
        own = packed_text.chunk_text(header or "", body or "")
        upper = "sha256:" + _sha(own)[7:].upper()  # not the form packed: kept as given
        value = rnd.choice(
            [None, "md5:0", _sha(own), upper, _sha(own).upper(), _sha(own + "x"), _sha(own)[:-1], _sha(own) + "0"]
        )
        out.append((value, header, body))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_pack_hash_stores_what_decoding_the_hash_stores(seed):
    cases = _cases(seed)
    assert [packed_text.pack_hash(*c) for c in cases] == [_decoded(*c) for c in cases]
    assert any(packed_text.pack_hash(*c) == packed_text.DERIVED_HASH for c in cases)
