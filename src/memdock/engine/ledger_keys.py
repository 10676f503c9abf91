"""Record ids as the ledger keys them: a short reversible BLOB instead of the id's text.

memdock's ids end in a hex digest after a prefix (`chunk:8ea079809fb43c15`, `edge:contains:e0bee6233f35cee7`).
Such an id is keyed as the number of its prefix (a row of the ledger's `names`, LEB128, never 0) followed by the
digest's bytes: 9 bytes where the text takes 22-30. Any other id (uppercase or odd-length hex, a name of the
user's) is keyed as a 0 byte and its UTF-8 text. The same id always gets the same key: a prefix is numbered the
first time an id with it is written, and an id whose prefix has no number was never written.
"""

from __future__ import annotations

from collections.abc import Callable

TEXT = b"\x00"
_MAX_DIGEST = 64  # hex characters


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def split(rid: str) -> tuple[str, bytes] | None:
    """(prefix, digest bytes) of an id ending in lowercase hex of even length after its last ':', else None."""
    cut = rid.rfind(":") + 1
    tail = rid[cut:]
    if not cut or not 2 <= len(tail) <= _MAX_DIGEST or len(tail) % 2:
        return None
    try:
        raw = bytes.fromhex(tail)
    except ValueError:
        return None
    return (rid[:cut], raw) if raw.hex() == tail else None


class Keys:
    """`encode` with each prefix's number kept once known (a run keys every record two or three times)."""

    def __init__(self, number: Callable[[str, bool], int]):
        self._number = number  # (prefix, create) -> its number, or -1
        self._heads: dict[str, bytes] = {}

    def key(self, rid: str, *, create: bool) -> bytes:
        cut = rid.rfind(":") + 1
        head = self._heads.get(rid[:cut]) if cut else None
        if head is not None:
            tail = rid[cut:]
            if 2 <= len(tail) <= _MAX_DIGEST and not len(tail) % 2:
                try:
                    raw = bytes.fromhex(tail)
                except ValueError:
                    return TEXT + rid.encode()
                if raw.hex() == tail:
                    return head + raw
            return TEXT + rid.encode()
        parts = split(rid)
        if parts is None:
            return TEXT + rid.encode()
        n = self._number(parts[0], create)
        if n <= 0:
            return TEXT + rid.encode()
        head = self._heads[parts[0]] = _varint(n)
        return head + parts[1]

    def forget_numbers(self) -> None:
        """Drop what is known (numbers made in a transaction that was rolled back are not in the file)."""
        self._heads.clear()


def encode(rid: str, number: Callable[[str], int]) -> bytes:
    """The key of RID; NUMBER gives its prefix's number (or -1 for a prefix never written)."""
    parts = split(rid)
    if parts is not None:
        n = number(parts[0])
        if n > 0:
            return _varint(n) + parts[1]
    return TEXT + rid.encode()


def decode(key: bytes, prefixes: Callable[[int], str]) -> str:
    """The id KEY stands for; PREFIXES names a prefix by its number."""
    if key[:1] == TEXT:
        return key[1:].decode()
    n = shift = i = 0
    while True:
        byte = key[i]
        n |= (byte & 0x7F) << shift
        i += 1
        if byte < 0x80:
            break
        shift += 7
    return prefixes(n) + key[i:].hex()
