"""The adapter's config: where the database is, the password from the environment only, and the pool's limits.

The DSN is checked before anything connects: a password written inside it is refused (it would travel in config
files and logs), and no error message ever carries the password, which the runner also redacts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from psycopg import conninfo

from memdock.errors import ConfigError

PASSWORD_ENV = "MEMDOCK_POSTGRES_PASSWORD"
APPLICATION = "memdock-postgres"


@dataclass(frozen=True)
class Settings:
    dsn: str = ""
    password: str | None = None
    schema: str = "memdock"
    batch_size: int = 1000
    pool_size: int = 2
    pool_timeout_s: float = 30.0
    connect_timeout_s: int = 10

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Settings:
        dsn = str(config.get("postgres_dsn") or "")
        try:
            parts = conninfo.conninfo_to_dict(dsn)
        except Exception as exc:  # psycopg raises ProgrammingError; its text quotes the DSN, which is not secret
            raise ConfigError(f"config postgres_dsn: not a libpq connection string or URI ({exc})") from None
        if parts.get("password"):
            raise ConfigError(
                "config postgres_dsn: holds a password; remove it and set "
                f"{PASSWORD_ENV} instead (config files and logs must not carry it)"
            )
        return cls(
            dsn=dsn,
            password=env.get(PASSWORD_ENV) or None,
            schema=str(config.get("postgres_schema", cls.schema)),
            batch_size=int(config.get("batch_size", cls.batch_size)),
            pool_size=int(config.get("pool_size", cls.pool_size)),
            pool_timeout_s=float(config.get("pool_timeout_s", cls.pool_timeout_s)),
            connect_timeout_s=int(config.get("connect_timeout_s", cls.connect_timeout_s)),
        )

    def connect_kwargs(self) -> dict[str, Any]:
        """What each connection adds to the DSN: the password, a timeout, and a name in pg_stat_activity."""
        kw: dict[str, Any] = {"connect_timeout": self.connect_timeout_s, "application_name": APPLICATION}
        if self.password:
            kw["password"] = self.password
        return kw

    def where(self) -> str:
        """The database named for messages: host, port and database from the DSN, never a password."""
        try:
            parts = conninfo.conninfo_to_dict(self.dsn)
        except Exception:
            parts = {}
        host = parts.get("host") or os.environ.get("PGHOST") or "the default host"
        port = parts.get("port") or os.environ.get("PGPORT") or "5432"
        db = parts.get("dbname") or os.environ.get("PGDATABASE") or "the default database"
        return f"postgres database {db} at {host}:{port}, schema {self.schema}"

    def scrub(self, text: str) -> str:
        return text.replace(self.password, "[redacted]") if self.password else text
