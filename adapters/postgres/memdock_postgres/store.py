"""Connections to the memory's database: one pool per adapter process, and Postgres errors as memdock's.

A first direct connection checks the DSN and the password (its error is clear, where a pool's is a timeout) and
creates or migrates the schema; the pool then serves every request of the process (a worker keeps it across
requests). Connections are checked before use, so a front end outlives a database restart. Every message is
scrubbed of the password."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import psycopg_pool

from memdock.errors import BackendError, ConfigError, MemdockError, TransientError

from . import schema
from .settings import Settings

# SQLSTATE classes and codes: the caller's to fix (config), or worth a retry (transient).
CONFIG_STATES = {"28000", "28P01", "3D000", "42501", "3F000"}
TRANSIENT_PREFIXES = ("08", "53", "57P", "40001", "40P01", "55P03")
AUTH_WORDS = ("password", "authentication", "does not exist", "permission denied", "no pg_hba.conf entry")


def translate(exc: BaseException, settings: Settings, doing: str) -> MemdockError:
    """EXC (a psycopg or pool error) as a memdock error naming the database and what was being done."""
    where = settings.where()
    detail = settings.scrub(str(exc).strip()) or type(exc).__name__
    if isinstance(exc, psycopg_pool.PoolTimeout):
        return TransientError(
            f"{where}: no free connection within {settings.pool_timeout_s:g}s while {doing} (pool_size "
            f"{settings.pool_size}; every connection busy, or the server accepting none): {detail}",
            details={"reason": "pool_timeout", "pool_size": settings.pool_size},
        )
    state = getattr(exc, "sqlstate", None) or ""
    details = {"sqlstate": state} if state else {}
    if state in CONFIG_STATES or (not state and any(w in detail.lower() for w in AUTH_WORDS)):
        return ConfigError(f"{where}: {doing}: {detail}", details=details)
    if state.startswith(TRANSIENT_PREFIXES) or isinstance(exc, psycopg.OperationalError):
        return TransientError(f"{where}: {doing}: {detail} (retry once the server is reachable)", details=details)
    return BackendError(f"{where}: {doing}: {detail}", details=details)


class Store:
    """The pool on one memory (DSN and schema), opened on first use."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.pool: psycopg_pool.ConnectionPool | None = None
        self.ready = False  # the schema is known to be there at this adapter's version

    def _kwargs(self) -> dict:
        return {
            **self.settings.connect_kwargs(),
            "autocommit": True,
            "options": f"-c search_path={self.settings.postgres_schema}",
        }

    def open(self, *, create: bool) -> bool:
        """True once the memory's tables are there (made now when CREATE); False when there is no memory yet."""
        if self.ready:
            return True
        try:
            with psycopg.connect(self.settings.postgres_dsn, **self._kwargs()) as conn:
                self.ready = schema.ensure(conn, self.settings.postgres_schema, self.settings.where(), create=create)
        except MemdockError:
            raise
        except (psycopg.Error, OSError) as exc:
            raise translate(exc, self.settings, "connecting") from None
        if self.ready and self.pool is None:
            self.pool = psycopg_pool.ConnectionPool(
                self.settings.postgres_dsn,
                kwargs=self._kwargs(),
                min_size=1,
                max_size=self.settings.pool_size,
                timeout=self.settings.pool_timeout_s,
                check=psycopg_pool.ConnectionPool.check_connection,
                name="memdock-postgres",
                num_workers=1,
                open=True,
            )
        return self.ready

    @contextmanager
    def connection(self, doing: str) -> Iterator[psycopg.Connection]:
        """A pooled connection; psycopg and pool errors leave as memdock errors (the transaction rolled back)."""
        assert self.pool is not None, "open() first"
        try:
            with self.pool.connection() as conn:
                yield conn
        except MemdockError:
            raise
        except (psycopg.Error, psycopg_pool.PoolTimeout, OSError) as exc:
            raise translate(exc, self.settings, doing) from None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close(timeout=5)
            self.pool = None
