"""The adapter's config: where the database is, the password from the environment only, and the pool's limits.

The DSN is checked before anything connects: a password written inside it is refused (it would travel in config
files and logs), and no error message ever carries the password, which the runner also redacts."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, ClassVar

from memdock_entries.embedders import EmbeddingSettings

from memdock.errors import ConfigError
from memdock.sdk import adapter_json

from .fusion import RRF_K, VECTOR_WEIGHT

APPLICATION = "memdock-postgres"


@dataclasses.dataclass(frozen=True)
class Settings(EmbeddingSettings):
    """The fields of adapter.json's `config_schema` (memdock.sdk.kit.settings holds the two to each other)."""

    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
    postgres_dsn: str = ""
    postgres_password: str | None = dataclasses.field(default=None, repr=False)
    postgres_schema: str = "memdock"
    batch_size: int = 1000
    pool_size: int = 2
    pool_timeout_s: float = 30.0
    connect_timeout_s: int = 10
    hybrid_vector_weight: float = VECTOR_WEIGHT
    hybrid_rrf_k: int = RRF_K
    neighbour_weight: float | None = None
    session_pool_weight: float | None = None
    time_cue_weight: float | None = None
    question_date_weight: float | None = None
    addressed_turn_weight: float | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Settings:
        """The settings of CONFIG; the password only from its variable in ENV (a password in the config is not
        read, one inside the DSN is refused)."""
        config = {k: v for k, v in config.items() if k != "postgres_password"}
        dsn = str(config.get("postgres_dsn") or "")
        try:
            parts = _dsn_parts(dsn) if dsn else {}
        except Exception as exc:  # psycopg raises ProgrammingError; its text quotes the DSN, which is not secret
            raise ConfigError(f"config postgres_dsn: not a libpq connection string or URI ({exc})") from None
        if parts.get("password"):
            raise ConfigError(
                "config postgres_dsn: holds a password; remove it and set "
                f"{cls.env_name('postgres_password')} instead (config files and logs must not carry it)"
            )
        return super().from_config(config, env)

    def connect_kwargs(self) -> dict[str, Any]:
        """What each connection adds to the DSN: the password, a timeout, and a name in pg_stat_activity."""
        kw: dict[str, Any] = {"connect_timeout": self.connect_timeout_s, "application_name": APPLICATION}
        if self.postgres_password:
            kw["password"] = self.postgres_password
        return kw

    def where(self) -> str:
        """The database named for messages: host, port and database from the DSN, never a password."""
        try:
            parts = _dsn_parts(self.postgres_dsn)
        except Exception:
            parts = {}
        host = parts.get("host") or os.environ.get("PGHOST") or "the default host"
        port = parts.get("port") or os.environ.get("PGPORT") or "5432"
        db = parts.get("dbname") or os.environ.get("PGDATABASE") or "the default database"
        return f"postgres database {db} at {host}:{port}, schema {self.postgres_schema}"

    def scrub(self, text: str) -> str:
        return text.replace(self.postgres_password, "[redacted]") if self.postgres_password else text


def _dsn_parts(dsn: str) -> dict[str, Any]:
    from psycopg import conninfo  # here: the settings are read (and tested) without the adapter's venv

    return conninfo.conninfo_to_dict(dsn)
