"""The manifest's file entries and the identity of records inside a bundle."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..schemas import RECORD_TYPES

MANIFEST_NAME = "manifest.json"
MATRIX_TYPE = "embedding_matrix"
MATRIX_FILE = "embedding_matrix.f32"
PART_FILE = re.compile(rf"(?:{'|'.join(map(re.escape, RECORD_TYPES))})-\d{{5,}}\.jsonl|{re.escape(MATRIX_FILE)}")
"""The names a bundle writer gives its data files (`part_name`, the matrix); use with fullmatch."""
BUNDLE_KINDS = ("corpus", "chunks", "queries", "results")


@dataclass(frozen=True, slots=True)
class FileEntry:
    path: str
    format: str
    record_type: str
    count: int
    bytes: int
    sha256: str
    part: int | None = None
    dim: int | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FileEntry:
        return cls(
            path=d["path"],
            format=d["format"],
            record_type=d["record_type"],
            count=d["count"],
            bytes=d["bytes"],
            sha256=d["sha256"],
            part=d.get("part"),
            dim=d.get("dim"),
        )

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "path": self.path,
            "format": self.format,
            "record_type": self.record_type,
            "count": self.count,
            "bytes": self.bytes,
            "sha256": self.sha256,
        }
        if self.part is not None:
            d["part"] = self.part
        if self.dim is not None:
            d["dim"] = self.dim
        return d


def _hit_key(r: dict[str, Any]) -> Any:
    return (r.get("query_id"), r.get("id"))


_KEYS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "embedding": lambda r: r.get("chunk_id"),
    "hit": _hit_key,
}


def record_key(record_type: str) -> Callable[[dict[str, Any]], Any]:
    """What must be unique among records of one type within a bundle (usually the id)."""
    return _KEYS.get(record_type) or (lambda r: r.get("id"))


def part_name(record_type: str, part: int, ext: str = "jsonl") -> str:
    return f"{record_type}-{part:05d}.{ext}"
