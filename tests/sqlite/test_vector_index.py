"""The vector index answers the exact float32 top K from int8 codes (vector_index.py), on a real store: near
duplicates whose scores differ by less than the codes' error are ranked as the floats rank them, a filter keeps
to its rows, the index reloads when the vectors change, and a damaged vector is named."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, ingest, vector_index, vectors  # noqa: E402

from memdock.errors import BackendError  # noqa: E402

MODEL = "test-16"
DIM = 16


def unit(x):
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype("<f4")


def store_with(path: Path, rows):
    conn = db.open_writer(path)
    with db.transaction(conn, "storing vectors"):
        conn.executemany(
            "INSERT INTO chunk_vectors(rowid, model, vec) VALUES (?, ?, ?)",
            [(rowid, MODEL, vec if isinstance(vec, bytes) else vec.tobytes()) for rowid, vec in rows],
        )
        vectors.bump(conn)
    return conn


@pytest.fixture(scope="module")
def crowd(tmp_path_factory):
    """2,000 random rows and, around each of five directions, 300 near duplicates: the quantisation error of a
    row (about 1e-3 here) is larger than the gaps between its duplicates' scores."""
    rng = np.random.default_rng(7)
    centres = unit(rng.standard_normal((5, DIM)))
    dups = unit(np.repeat(centres, 300, axis=0) + 0.02 * rng.standard_normal((1500, DIM)))
    x = np.concatenate([unit(rng.standard_normal((2000, DIM))), dups]).astype("<f4")
    rowids = rng.permutation(np.arange(1, len(x) + 1) * 3)  # gaps and no order, as deletes and merges leave them
    conn = store_with(tmp_path_factory.mktemp("vectors"), zip(rowids.tolist(), x))
    near_centres = unit(centres + 0.005 * rng.standard_normal((5, DIM)))
    queries = np.concatenate([near_centres, unit(rng.standard_normal((5, DIM)))])
    yield conn, rowids, x, queries
    conn.close()


def exact_top(rowids, x, q, k, allowed=None):
    scores = x.astype(np.float64) @ q.astype(np.float64)
    keep = [i for i in range(len(rowids)) if allowed is None or int(rowids[i]) in allowed]
    best = sorted(keep, key=lambda i: -scores[i])[:k]
    return [(int(rowids[i]), float(scores[i])) for i in best]


def assert_exact(got, want):
    """Same scores rank by rank, and every row returned is one the floats put in the top K (rows whose scores tie
    within float32 rounding may trade places)."""
    assert len(got) == len(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
    floor = want[-1][1] - 1e-6
    by_rowid = dict(want)
    for rowid, score in got:
        assert rowid in by_rowid or score >= floor, (rowid, score, floor)


@pytest.mark.parametrize("k", [1, 5, 40, 100])
def test_the_top_k_is_the_float32_top_k_among_near_duplicates(crowd, k):
    conn, rowids, x, queries = crowd
    index = vector_index.VectorIndex()
    for q in queries:
        assert_exact(index.search(conn, MODEL, "store", q.tobytes(), k), exact_top(rowids, x, q, k))


def test_the_shortlist_alone_would_miss_rows_that_belong(crowd):
    """The premise of the test above: ranking by codes puts rows of the float top K outside the first re-scored
    SHORTLIST × K, so the error bound is what brings them in."""
    conn, rowids, x, queries = crowd
    held = vector_index.VectorIndex()._load(conn, MODEL, "store")
    k, missed = 5, 0
    for q in queries[:5]:
        approx = (held.codes.astype(np.float32) @ q) * held.scales
        shortlist = set(held.rowids[np.argsort(-approx)[: vector_index.SHORTLIST * k]].tolist())
        missed += len({rowid for rowid, _ in exact_top(rowids, x, q, k)} - shortlist)
    assert missed > 0


def test_a_filter_keeps_to_its_rows(crowd):
    conn, rowids, x, queries = crowd
    rng = np.random.default_rng(3)
    allowed = set(rng.choice(rowids, size=700, replace=False).tolist())
    index = vector_index.VectorIndex()
    for q in queries:
        got = index.search(conn, MODEL, "store", q.tobytes(), 20, allowed)
        assert {rowid for rowid, _ in got} <= allowed
        assert_exact(got, exact_top(rowids, x, q, 20, allowed))
    few = set(rowids[:3].tolist())
    assert {rowid for rowid, _ in index.search(conn, MODEL, "store", queries[0].tobytes(), 20, few)} == few
    assert index.search(conn, MODEL, "store", queries[0].tobytes(), 20, set()) == []


def test_without_numpy_the_same_rows_come_back(crowd):
    conn, rowids, x, queries = crowd
    rows = conn.execute("SELECT rowid, vec FROM chunk_vectors WHERE model = ? ORDER BY rowid", (MODEL,))
    plain = vector_index._Floats(rows)
    for q in queries:
        assert_exact(plain.search(conn, MODEL, q.tobytes(), 10, None), exact_top(rowids, x, q, 10))


def test_the_index_reloads_when_the_vectors_change(tmp_path):
    rng = np.random.default_rng(1)
    x = unit(rng.standard_normal((50, DIM)))
    conn = store_with(tmp_path, zip(range(1, 51), x))
    index = vector_index.VectorIndex()
    q = x[0]
    assert index.search(conn, MODEL, "store", q.tobytes(), 1)[0][0] == 1
    with db.transaction(conn, "storing vectors"):
        conn.execute("DELETE FROM chunk_vectors WHERE rowid = 1")
        conn.execute("INSERT INTO chunk_vectors(rowid, model, vec) VALUES (99, ?, ?)", (MODEL, q.tobytes()))
        vectors.bump(conn)
    assert index.search(conn, MODEL, "store", q.tobytes(), 1)[0][0] == 99
    conn.close()


@pytest.mark.parametrize("how", ["forget", "vector deleted alone"])
def test_a_forgotten_chunk_leaves_the_index_at_once(tmp_path, how):
    """A worker that loaded the codes before a `forget` answers from the store as it is after it, even when every
    row it would have re-scored first is gone. So does one whose store lost vectors without a version move, as an
    index run without embeddings configured leaves it when it replaces a chunk's text."""
    conn = db.open_writer(tmp_path)
    chunks = [
        {"id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": "thread:0", "position": 0, "text": f"note {i}"}
        for i in range(200)
    ]
    ingest.Ingest(conn, on_commit=lambda ids: None).run("chunk", iter(chunks))
    rowid_of = dict(conn.execute("SELECT id, rowid FROM chunks"))
    rng = np.random.default_rng(4)
    x = unit(rng.standard_normal((200, DIM)))
    with db.transaction(conn, "storing vectors"):
        conn.executemany(
            "INSERT INTO chunk_vectors(rowid, model, vec) VALUES (?, ?, ?)",
            [(rowid_of[f"chunk:{i}"], MODEL, x[i].tobytes()) for i in range(200)],
        )
        vectors.bump(conn)
    index = vector_index.VectorIndex()
    q = x[0]
    nearest = index.search(conn, MODEL, "store", q.tobytes(), 6)
    id_of = {rowid: cid for cid, rowid in rowid_of.items()}
    if how == "forget":
        before = vectors.version(conn)
        delete.delete(conn, {"ids": [id_of[rowid] for rowid, _ in nearest[:5]]})
        assert vectors.version(conn) == before + 1
    else:
        with db.transaction(conn):
            conn.executemany("DELETE FROM chunk_vectors WHERE rowid = ?", [(rowid,) for rowid, _ in nearest[:5]])
    assert index.search(conn, MODEL, "store", q.tobytes(), 1) == nearest[5:]
    conn.close()


@pytest.mark.parametrize(
    ("blob", "says"),
    [
        (np.ones(DIM - 1, dtype="<f4").tobytes(), "holds 60 bytes where this model's vectors take 64"),
        (b"", "holds 0 bytes where this model's vectors take 64"),
        (np.full(DIM, np.nan, dtype="<f4").tobytes(), "holds a value that is not a finite number"),
    ],
    ids=["short", "empty", "nan"],
)
@pytest.mark.parametrize("held", ["codes", "floats without numpy"])
def test_a_damaged_vector_is_named_by_its_row(tmp_path, blob, says, held):
    rng = np.random.default_rng(2)
    rows = [(rowid, vec) for rowid, vec in zip(range(1, 10_001), unit(rng.standard_normal((10_000, DIM))))]
    rows[9_000] = (9_001, blob)  # in a later load batch than the first
    conn = store_with(tmp_path, rows)
    with pytest.raises(BackendError, match=f"chunk_vectors row 9001 {says}") as caught:
        if held == "codes":
            vector_index.VectorIndex().search(conn, MODEL, "store", rows[0][1].tobytes(), 5)
        else:
            vector_index._Floats(conn.execute("SELECT rowid, vec FROM chunk_vectors ORDER BY rowid"))
    assert caught.value.details == {"table": "chunk_vectors", "rowid": 9001}
    conn.close()


def test_a_query_of_other_dimensions_is_refused(crowd):
    conn, *_ = crowd
    with pytest.raises(BackendError, match="the query vector has 8 dimensions and the store's test-16 vectors 16"):
        vector_index.VectorIndex().search(conn, MODEL, "store", np.ones(8, dtype="<f4").tobytes(), 5)


def test_damage_in_the_first_row_is_named_by_its_own_row(tmp_path):
    rng = np.random.default_rng(5)
    rows = list(zip(range(1, 11), unit(rng.standard_normal((10, DIM)))))
    rows[0] = (1, np.ones(DIM - 1, dtype="<f4").tobytes())
    conn = store_with(tmp_path, rows)
    with pytest.raises(BackendError, match="chunk_vectors row 1 holds 60 bytes where this model's vectors take 64"):
        vector_index.VectorIndex().search(conn, MODEL, "store", rows[1][1].tobytes(), 5)
    conn.close()


def test_a_store_mended_after_a_failed_load_is_read_again(tmp_path):
    """The worker's reader keeps no snapshot from the failed load (its rows were read a batch at a time, and the
    load stopped in the first), even while the error is still held."""
    rng = np.random.default_rng(6)
    x = unit(rng.standard_normal((vector_index.LOAD_BATCH + 10, DIM)))
    rows = [(i + 1, vec) for i, vec in enumerate(x)]
    rows[19] = (20, np.full(DIM, np.inf, dtype="<f4"))
    writer = store_with(tmp_path, rows)
    reader = db.open_db(tmp_path, write=False)
    index = vector_index.VectorIndex()
    with pytest.raises(BackendError, match="chunk_vectors row 20 holds a value that is not a finite number") as caught:
        index.search(reader, MODEL, "store", x[0].tobytes(), 3)
    with db.transaction(writer):
        writer.execute("UPDATE chunk_vectors SET vec = ? WHERE rowid = 20", (x[19].tobytes(),))
        vectors.bump(writer)
    assert index.search(reader, MODEL, "store", x[19].tobytes(), 1)[0][0] == 20
    assert caught.value.details["rowid"] == 20
    reader.close()
    writer.close()


def test_equal_vectors_tie_in_rowid_order_with_or_without_a_filter(tmp_path):
    """A float32 matrix product rounds equal rows differently by where they sit: their scores must not."""
    rng = np.random.default_rng(9)
    same = unit(rng.standard_normal(DIM))
    others = unit(rng.standard_normal((200, DIM)))
    rows = [(i + 1, same) for i in range(50)] + [(i + 51, others[i]) for i in range(200)]
    conn = store_with(tmp_path, rows)
    index = vector_index.VectorIndex()
    for q in unit(same + 1e-3 * rng.standard_normal((10, DIM))):
        got = index.search(conn, MODEL, "store", q.tobytes(), 12)
        assert [rowid for rowid, _ in got] == list(range(1, 13))
        assert len({score for _, score in got}) == 1
        filtered = index.search(conn, MODEL, "store", q.tobytes(), 3, set(range(5, 60)))
        assert filtered == [(5, got[0][1]), (6, got[0][1]), (7, got[0][1])]
    conn.close()


def test_vectors_and_queries_of_any_length_get_the_exact_top_k(tmp_path):
    """The embedders store unit vectors; the bound does not rely on it."""
    rng = np.random.default_rng(9)
    x = (unit(rng.standard_normal((1500, DIM))) * rng.uniform(0.1, 10, (1500, 1))).astype("<f4")
    rowids = np.arange(1, 1501)
    conn = store_with(tmp_path, zip(rowids.tolist(), x))
    index = vector_index.VectorIndex()
    for q in (unit(rng.standard_normal((5, DIM))) * 1000).astype("<f4"):
        got = index.search(conn, MODEL, "store", q.tobytes(), 20)
        want = exact_top(rowids, x, q, 20)
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12)
    conn.close()


@pytest.mark.parametrize(
    ("query", "says"),
    [
        (np.full(DIM, np.nan, dtype="<f4").tobytes(), "the query vector holds a value that is not a finite number"),
        (b"\0" * 63, "the query vector is 63 bytes, not a vector of float32 values"),
        (b"", "the query vector is 0 bytes, not a vector of float32 values"),
    ],
    ids=["nan", "63 bytes", "empty"],
)
def test_a_query_vector_that_is_not_one_is_refused(crowd, query, says):
    conn, *_ = crowd
    with pytest.raises(BackendError, match=says):
        vector_index.VectorIndex().search(conn, MODEL, "store", query, 5)


def test_a_zero_query_scores_every_row_zero_and_answers_in_rowid_order(crowd):
    conn, rowids, *_ = crowd
    got = vector_index.VectorIndex().search(conn, MODEL, "store", np.zeros(DIM, dtype="<f4").tobytes(), 4)
    assert got == [(int(r), 0.0) for r in sorted(rowids)[:4]]
