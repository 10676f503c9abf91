"""The K chunks nearest a query vector by cosine: exact, from a quarter of float32's memory.

A worker keeps one model's vectors in memory as int8 codes, each row with its own scale, and reloads them when
the store's vector version moves. A search scores every code, re-scores the best `SHORTLIST` × K exactly from the
float32 vectors in the store, then re-scores every other chunk whose error bound says it could still beat the
K-th: for a row x, its decoded codes x̂ and the query q, |q·x − q·x̂| ≤ |q|·|x − x̂|, and |x − x̂| is kept per
row. So the answer is the top K by the stored vectors' exact cosines (taken in float64, so equal vectors tie and
ties go by rowid), while a million 384-d vectors take 0.4 GB of memory instead of 1.5. Scoring the codes a block
at a time (decoded to float32 while the block is in cache) is also faster than one float32 product, which streams
four times the bytes: `bench/vectors.py` has both side by side.

Without NumPy the float vectors are held as tuples and scored in Python, which suits only small stores.
"""

from __future__ import annotations

import heapq
import json
import math
import sqlite3
import struct
from collections import Counter
from typing import Any

from memdock.errors import BackendError

from .vectors import version

SHORTLIST = 4
"""Rows re-scored exactly before the error bound is checked, as a multiple of K. Past about 2 the bound
rarely adds rows on random vectors at 1M; 4 leaves room for stores whose rows carry more quantisation error."""

BLOCK = 4096
"""Codes decoded and scored at a time: 1.5 MB of float32 at 384 dimensions, within a core's L2 cache."""

LOAD_BATCH = 4096
"""Rows read and encoded at a time while loading: what a load holds beside the codes (6 MB of float32 at 384-d)."""

RESCORE_BATCH = 4096
"""Rows fetched and re-scored at a time when the error bound lets many through (near duplicates, a zero query)."""

SLACK = 1e-5
"""Added to every bound, times |q| and the largest row norm when that product passes 1: float32 rounding in the
codes' scores and in the stored error norms."""

_NOT_FINITE = "holds a value that is not a finite number"


class _Stale(Exception):
    """Rows the codes hold are gone from the store, and its vector version did not move (an index run that
    upserts a chunk deletes its vector; the backfill that embeds it again moves the version): load again."""


def _damaged(rowid: int, what: str) -> BackendError:
    return BackendError(
        f"chunk_vectors row {rowid} {what}: the store is damaged; `memdock export` its memory and index the "
        "export into a fresh data dir, which embeds the chunks anew",
        details={"table": "chunk_vectors", "rowid": rowid},
    )


def _vector_bytes(batch: list[tuple[int, bytes]]) -> int:
    """The length of the model's vectors: the one most of the first rows share (one damaged row among them is
    then named as the odd one out)."""
    size = Counter(len(vec) for _, vec in batch).most_common(1)[0][0]
    if not size or size % 4:
        rowid = next(rowid for rowid, vec in batch if len(vec) == size)
        raise _damaged(rowid, f"holds {size} bytes, not a vector of float32 values")
    return size


def _check_lengths(batch: list[tuple[int, bytes]], size: int) -> None:
    for rowid, vec in batch:
        if len(vec) != size:
            raise _damaged(rowid, f"holds {len(vec)} bytes where this model's vectors take {size}")


def _check_query(values: int, finite: bool, dim: int, model: str) -> None:
    if dim and values != dim:
        raise BackendError(
            f"the query vector has {values} dimensions and the store's {model} vectors {dim}", details={"model": model}
        )
    if not finite:
        raise BackendError(f"the query vector {_NOT_FINITE}", details={"model": model})


def _fetch(conn: sqlite3.Connection, model: str, rowids: list[int]) -> list[tuple[int, bytes]]:
    return conn.execute(
        "SELECT rowid, vec FROM chunk_vectors WHERE model = ? AND rowid IN (SELECT value FROM json_each(?))",
        (model, json.dumps(rowids)),
    ).fetchall()


class VectorIndex:
    """One model's vectors, reloaded when the database's vector version moves."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._held: _Codes | _Floats | None = None

    def search(
        self,
        conn: sqlite3.Connection,
        model: str,
        identity: object,
        query: bytes,
        k: int,
        allowed: set[int] | None = None,
    ) -> list[tuple[int, float]]:
        """The K nearest chunks as (rowid, cosine), best first, ties by rowid, among ALLOWED rowids when given."""
        if k <= 0:
            return []
        if not query or len(query) % 4:
            raise BackendError(f"the query vector is {len(query)} bytes, not a vector of float32 values")
        own = not conn.in_transaction
        if own:
            conn.execute("BEGIN")
        try:
            for _ in range(2):
                try:
                    return self._load(conn, model, identity).search(conn, model, query, k, allowed)
                except _Stale:
                    self._key = None
            raise BackendError("the store's vectors changed while they were read; ask again")
        finally:
            if own and conn.in_transaction:
                conn.execute("COMMIT")

    def _load(self, conn: sqlite3.Connection, model: str, identity: object) -> _Codes | _Floats:
        key = (identity, model, version(conn))
        if key != self._key or self._held is None:
            self._held = None
            count = conn.execute("SELECT count(*) FROM chunk_vectors WHERE model = ?", (model,)).fetchone()[0]
            rows = conn.execute("SELECT rowid, vec FROM chunk_vectors WHERE model = ? ORDER BY rowid", (model,))
            try:
                try:
                    import numpy  # noqa: F401
                except ImportError:
                    self._held = _Floats(rows)
                else:
                    self._held = _Codes(rows, count)
            finally:
                rows.close()  # an open cursor would keep its read snapshot while an error is held
            self._key = key
        return self._held


class _Codes:
    """int8 codes, a scale and an error norm per row, and the rows' rowids in ascending order."""

    def __init__(self, rows: sqlite3.Cursor, count: int) -> None:
        import numpy as np

        self.rowids = np.empty(count, dtype=np.int64)
        self.scales = np.empty(count, dtype=np.float32)
        self.errors = np.empty(count, dtype=np.float32)
        self.codes = np.empty((count, 0), dtype=np.int8)
        self.dim, self.longest = 0, 0.0
        tiny = np.finfo(np.float32).tiny
        at = 0
        while batch := rows.fetchmany(LOAD_BATCH):
            if not self.dim:
                self.dim = _vector_bytes(batch) // 4
                self.codes = np.empty((count, self.dim), dtype=np.int8)
            _check_lengths(batch, self.dim * 4)
            end = at + len(batch)
            if end > count:
                raise _Stale  # more rows than counted: the store was written without a snapshot (immutable=1)
            x = np.frombuffer(b"".join(vec for _, vec in batch), dtype="<f4").reshape(len(batch), self.dim)
            peak = np.abs(x).max(axis=1)
            if not np.isfinite(peak).all():
                raise _damaged(batch[int(np.flatnonzero(~np.isfinite(peak))[0])][0], _NOT_FINITE)
            scale = np.maximum(peak / 127, tiny).astype(np.float32)
            codes = np.clip(np.rint(x / scale[:, None]), -127, 127).astype(np.int8)
            self.rowids[at:end] = [rowid for rowid, _ in batch]
            self.codes[at:end] = codes
            self.scales[at:end] = scale
            self.errors[at:end] = np.linalg.norm(x - codes * scale[:, None], axis=1)
            self.longest = max(self.longest, float(np.linalg.norm(x, axis=1).max()))
            at = end
        if at < count:
            self.rowids, self.scales, self.errors, self.codes = (
                self.rowids[:at],
                self.scales[:at],
                self.errors[:at],
                self.codes[:at],
            )
        self.worst = float(self.errors.max()) if at else 0.0

    def search(
        self, conn: sqlite3.Connection, model: str, query: bytes, k: int, allowed: set[int] | None
    ) -> list[tuple[int, float]]:
        import numpy as np

        q = np.frombuffer(query, dtype="<f4")
        _check_query(len(q), bool(np.isfinite(q).all()), self.dim, model)
        n = len(self.rowids)
        keep = None
        if allowed is not None and n:
            keep = np.isin(self.rowids, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
        eligible = n if keep is None else int(np.count_nonzero(keep))
        k = min(k, eligible)
        if k == 0:
            return []
        norm = float(np.linalg.norm(q))
        if norm == 0:  # every cosine is 0: the first K rows
            return [(int(r), 0.0) for r in (self.rowids if keep is None else self.rowids[keep])[:k]]
        approx = np.empty(n, dtype=np.float32)
        for at in range(0, n, BLOCK):
            np.matmul(self.codes[at : at + BLOCK].astype(np.float32), q, out=approx[at : at + BLOCK])
        approx *= self.scales
        if keep is not None:
            approx[~keep] = -np.inf
        short = min(eligible, SHORTLIST * k)
        first = np.argpartition(approx, n - short)[n - short :]
        q64 = q.astype(np.float64)
        rowids, scores = _top(*self._exact(conn, model, first, q64), k)
        slack = SLACK * max(1.0, norm * self.longest)
        kth = scores[-1]
        near = np.setdiff1d(np.flatnonzero(approx >= kth - norm * self.worst - slack), first)
        for at in range(0, len(near), RESCORE_BATCH):
            part = near[at : at + RESCORE_BATCH]
            part = part[approx[part] + self.errors[part] * norm + slack >= kth]
            if len(part):
                more_rowids, more_scores = self._exact(conn, model, part, q64)
                rowids, scores = _top(np.concatenate([rowids, more_rowids]), np.concatenate([scores, more_scores]), k)
                kth = scores[-1]
        return [(int(r), float(s)) for r, s in zip(rowids, scores)]

    def _exact(self, conn: sqlite3.Connection, model: str, positions: Any, q64: Any) -> tuple[Any, Any]:
        """The rowids at POSITIONS and their exact cosines from the float32 vectors in the store, summed in float64
        row by row (a matrix product rounds equal rows differently by where they sit)."""
        import numpy as np

        rows = _fetch(conn, model, self.rowids[positions].tolist())
        if len(rows) < len(positions) or any(len(vec) != self.dim * 4 for _, vec in rows):
            raise _Stale
        rowids = np.fromiter((rowid for rowid, _ in rows), dtype=np.int64, count=len(rows))
        x = np.frombuffer(b"".join(vec for _, vec in rows), dtype="<f4").reshape(len(rows), self.dim)
        return rowids, (x.astype(np.float64) * q64).sum(axis=1)


def _top(rowids: Any, scores: Any, k: int) -> tuple[Any, Any]:
    import numpy as np

    order = np.lexsort((rowids, -scores))[:k]
    return rowids[order], scores[order]


class _Floats:
    """Every row's float vector as a tuple, for Pythons without NumPy."""

    def __init__(self, rows: sqlite3.Cursor) -> None:
        self.rows: list[tuple[int, tuple[float, ...]]] = []
        size = 0
        while batch := rows.fetchmany(LOAD_BATCH):
            size = size or _vector_bytes(batch)
            _check_lengths(batch, size)
            for rowid, vec in batch:
                values = struct.unpack(f"<{size // 4}f", vec)
                if not all(map(math.isfinite, values)):
                    raise _damaged(rowid, _NOT_FINITE)
                self.rows.append((rowid, values))
        self.dim = size // 4

    def search(
        self, conn: sqlite3.Connection, model: str, query: bytes, k: int, allowed: set[int] | None
    ) -> list[tuple[int, float]]:
        q = struct.unpack(f"<{len(query) // 4}f", query)
        _check_query(len(q), all(map(math.isfinite, q)), self.dim, model)
        scored = (
            (sum(a * b for a, b in zip(q, vec)), -rowid)
            for rowid, vec in self.rows
            if allowed is None or rowid in allowed
        )
        return [(-negated, score) for score, negated in heapq.nlargest(k, scored)]
