import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphiti_support import REAL_HOME


@pytest.fixture(autouse=True)
def _adapter_home(monkeypatch):
    """The graphiti adapter's venv lives in the real memdock home; stores stay in each test's tmp dir."""
    if REAL_HOME:
        monkeypatch.setenv("MEMDOCK_HOME", REAL_HOME)
    else:
        monkeypatch.delenv("MEMDOCK_HOME", raising=False)


@pytest.fixture(scope="session")
def llm():
    from fake_llm import respond
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=respond) as server:
        yield server
