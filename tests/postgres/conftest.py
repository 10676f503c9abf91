import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from postgres_support import ENABLED, REAL_HOME, Server
from support.adapter_home import use_adapter_home


@pytest.fixture(autouse=True)
def _adapter_home(request, monkeypatch):
    use_adapter_home(request, monkeypatch, REAL_HOME, "integration_postgres")


@pytest.fixture(scope="session")
def pg():
    if not ENABLED:
        pytest.skip("postgres integration tests: set MEMDOCK_IT_POSTGRES=1")
    server = Server()
    yield server
    server.close()


@pytest.fixture
def dsn(pg) -> str:
    """A fresh database on the session's server: one memory per test."""
    return pg.dsn(pg.new_database())
