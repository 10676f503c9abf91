"""Typed records: a Hit, what every search returns.

Bundles stream plain dicts (fast); a record class converts both ways. Fields a
newer MINOR adds that this version does not know are kept in `unknown` and
written back by `to_dict`, so a round trip loses nothing.
"""

from __future__ import annotations

from .plain import Plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Self


class Record(Plain):
    """A record type's fields are its __slots__ (in the order `to_dict` writes them), `unknown` aside."""

    __slots__ = ("unknown",)
    record_type = ""
    unknown: dict[str, Any]
    KNOWN: frozenset[str] = frozenset()
    """The fields a dict's keys are matched against (all but `unknown`)."""

    def __init__(self, *, unknown: dict[str, Any] | None = None):
        self.unknown = {} if unknown is None else unknown

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.KNOWN = frozenset(cls.FIELDS) - {"unknown"}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        known = cls.KNOWN
        return cls(
            **{k: v for k, v in data.items() if k in known}, unknown={k: v for k, v in data.items() if k not in known}
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.FIELDS:
            if name != "unknown" and (v := getattr(self, name)) is not None:
                out[name] = v
        out.update(self.unknown)
        return out


class Hit(Record):
    """One search result: what was found (id, kind, text), its score and rank, and where it came from."""

    __slots__ = (
        "id",
        "kind",
        "score",
        "text",
        "backend",
        "provenance",
        "query_id",
        "rank",
        "name",
        "event_time",
        "extra",
    )
    record_type = "hit"

    def __init__(
        self,
        id: str,
        kind: str,
        score: float,
        text: str,
        backend: str,
        provenance: dict[str, str] | None = None,
        query_id: str | None = None,
        rank: int | None = None,
        name: str | None = None,
        event_time: str | None = None,
        extra: dict[str, Any] | None = None,
        *,
        unknown: dict[str, Any] | None = None,
    ):
        self.id, self.kind, self.score, self.text, self.backend = id, kind, score, text, backend
        self.provenance = {} if provenance is None else provenance
        self.query_id, self.rank, self.name, self.event_time, self.extra = query_id, rank, name, event_time, extra
        super().__init__(unknown=unknown)

    @property
    def source(self) -> str | None:
        """Where the hit's entry came from: the file it was imported from (relative to the folder added), or the
        tool that wrote it ("memdock remember"); None when the backend does not say."""
        return self.provenance.get("source")
