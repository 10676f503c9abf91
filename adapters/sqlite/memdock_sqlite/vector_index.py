"""The K chunks nearest a query vector by cosine: exact, from a quarter of float32's memory.

A worker keeps one model's vectors in memory as int8 codes, each row with its own scale, and reloads them when
the store's vector version moves. A search scores every code, re-scores the best `SHORTLIST` × K exactly from the
float32 vectors in the store, then re-scores every other chunk whose error bound says it could still beat the
K-th: for a row x, its decoded codes x̂ and the query q, |q·x − q·x̂| ≤ |q|·|x − x̂|, and |x − x̂| is kept per
row. So the answer is the float32 top K, while a million 384-d vectors take 0.4 GB of memory instead of 1.5.
Scoring the codes a block at a time (decoded to float32 while the block is in cache) is also faster than one
float32 product, which streams four times the bytes: `bench/vectors.py` has both side by side.

Without NumPy the float vectors are held as tuples and scored in Python, which suits only small stores.
"""

from __future__ import annotations

import heapq
import json
import sqlite3
import struct
from typing import Any

from memdock.errors import BackendError

from .vectors import version

SHORTLIST = 4
"""Rows re-scored exactly before the error bound is checked, as a multiple of K. Past about 2 the bound
rarely adds rows on random vectors at 1M; 4 leaves room for stores whose rows carry more quantisation error."""

BLOCK = 4096
"""Codes decoded and scored at a time: 1.5 MB of float32 at 384 dimensions, within a core's L2 cache."""

LOAD_BATCH = 8192
SLACK = 1e-5
"""Added to every bound: float32 rounding in the approximate and the exact score."""


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
        own = not conn.in_transaction
        if own:
            conn.execute("BEGIN")
        try:
            if k <= 0:
                return []
            try:
                return self._load(conn, model, identity).search(conn, model, query, k, allowed)
            except _Stale:
                self._key = None
                return self._load(conn, model, identity).search(conn, model, query, k, allowed)
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
                import numpy  # noqa: F401
            except ImportError:
                self._held = _Floats(rows)
            else:
                self._held = _Codes(rows, count)
            self._key = key
        return self._held


class _Stale(Exception):
    """Rows the codes hold are gone from the store, and its vector version did not move (a chunk's text replaced
    by an index run without embeddings configured deletes its vector): load again."""


def _damaged(rowid: int, what: str) -> BackendError:
    return BackendError(
        f"chunk_vectors row {rowid} {what}: the store is damaged; `memdock export` its memory and index the "
        "export into a fresh data dir, which embeds the chunks anew",
        details={"table": "chunk_vectors", "rowid": rowid},
    )


def _fetch(conn: sqlite3.Connection, model: str, rowids: list[int]) -> list[tuple[int, bytes]]:
    return conn.execute(
        "SELECT rowid, vec FROM chunk_vectors WHERE model = ? AND rowid IN (SELECT value FROM json_each(?))",
        (model, json.dumps(rowids)),
    ).fetchall()


class _Codes:
    """int8 codes, a scale and an error norm per row, and the rows' rowids in ascending order."""

    def __init__(self, rows: sqlite3.Cursor, count: int) -> None:
        import numpy as np

        self.rowids = np.empty(count, dtype=np.int64)
        self.scales = np.empty(count, dtype=np.float32)
        self.errors = np.empty(count, dtype=np.float32)
        self.codes = np.empty((count, 0), dtype=np.int8)
        self.dim = 0
        self.worst = np.float32(0)
        at = 0
        while batch := rows.fetchmany(LOAD_BATCH):
            if at == 0:
                self.dim = len(batch[0][1]) // 4
                self.codes = np.empty((count, self.dim), dtype=np.int8)
            size = self.dim * 4
            for rowid, vec in batch:
                if len(vec) != size or not size:
                    raise _damaged(rowid, f"holds {len(vec)} bytes where this model's vectors take {size}")
            x = np.frombuffer(b"".join(vec for _, vec in batch), dtype="<f4").reshape(len(batch), self.dim)
            peak = np.abs(x).max(axis=1)
            if not np.isfinite(peak).all():
                bad = batch[int(np.flatnonzero(~np.isfinite(peak))[0])][0]
                raise _damaged(bad, "holds a value that is not a finite number")
            scale = np.where(peak > 0, peak / 127, 1).astype(np.float32)
            levels = np.rint(x / scale[:, None])
            end = at + len(batch)
            self.rowids[at:end] = [rowid for rowid, _ in batch]
            self.codes[at:end] = levels
            self.scales[at:end] = scale
            self.errors[at:end] = np.linalg.norm(x - levels * scale[:, None], axis=1)
            at = end
        self.worst = np.float32(self.errors.max()) if count else np.float32(0)

    def search(
        self, conn: sqlite3.Connection, model: str, query: bytes, k: int, allowed: set[int] | None
    ) -> list[tuple[int, float]]:
        import numpy as np

        n = len(self.rowids)
        if n == 0:
            return []
        q = np.frombuffer(query, dtype="<f4")
        if q.shape[0] != self.dim:
            raise BackendError(
                f"the query vector has {q.shape[0]} dimensions and the store's {model} vectors {self.dim}",
                details={"model": model},
            )
        approx = np.empty(n, dtype=np.float32)
        for at in range(0, n, BLOCK):
            np.matmul(self.codes[at : at + BLOCK].astype(np.float32), q, out=approx[at : at + BLOCK])
        approx *= self.scales
        eligible = n
        if allowed is not None:
            keep = np.isin(self.rowids, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
            approx[~keep] = -np.inf
            eligible = int(np.count_nonzero(keep))
        k = min(k, eligible)
        if k == 0:
            return []
        short = min(eligible, SHORTLIST * k)
        first = np.argpartition(approx, n - short)[n - short :]
        got_rowids, got_scores = self._exact(conn, model, first, q)
        kth = np.partition(got_scores, len(got_scores) - k)[len(got_scores) - k]
        norm = np.float32(np.linalg.norm(q))
        near = np.flatnonzero(approx >= kth - self.worst * norm - SLACK)
        near = near[approx[near] + self.errors[near] * norm + SLACK >= kth]
        more = np.setdiff1d(near, first)
        if len(more):
            extra_rowids, extra_scores = self._exact(conn, model, more, q)
            got_rowids = np.concatenate([got_rowids, extra_rowids])
            got_scores = np.concatenate([got_scores, extra_scores])
        order = np.lexsort((got_rowids, -got_scores))[:k]
        return [(int(got_rowids[i]), float(got_scores[i])) for i in order]

    def _exact(self, conn: sqlite3.Connection, model: str, positions: Any, q: Any) -> tuple[Any, Any]:
        """The rowids at POSITIONS and their exact cosines, from the float32 vectors in the store."""
        import numpy as np

        rows = _fetch(conn, model, self.rowids[positions].tolist())
        if len(rows) < len(positions) or any(len(vec) != self.dim * 4 for _, vec in rows):
            raise _Stale
        rowids = np.fromiter((rowid for rowid, _ in rows), dtype=np.int64, count=len(rows))
        x = np.frombuffer(b"".join(vec for _, vec in rows), dtype="<f4").reshape(len(rows), self.dim)
        return rowids, x @ q


class _Floats:
    """Every row's float vector as a tuple, for Pythons without NumPy."""

    def __init__(self, rows: sqlite3.Cursor) -> None:
        self.rows = [(rowid, struct.unpack(f"<{len(vec) // 4}f", vec)) for rowid, vec in rows]

    def search(
        self, conn: sqlite3.Connection, model: str, query: bytes, k: int, allowed: set[int] | None
    ) -> list[tuple[int, float]]:
        q = struct.unpack(f"<{len(query) // 4}f", query)
        scored = (
            (sum(a * b for a, b in zip(q, vec)), -rowid)
            for rowid, vec in self.rows
            if allowed is None or rowid in allowed
        )
        return [(-negated, score) for score, negated in heapq.nlargest(k, scored)]
