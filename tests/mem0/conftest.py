import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mem0_support import REAL_HOME


@pytest.fixture(autouse=True)
def _adapter_home(monkeypatch):
    """The mem0 adapter's venv lives in the real memdock home; stores stay in each test's tmp dir."""
    if REAL_HOME:
        monkeypatch.setenv("MEMDOCK_HOME", REAL_HOME)
    else:
        monkeypatch.delenv("MEMDOCK_HOME", raising=False)


@pytest.fixture
def extractor():
    from fake_mem0_llm import MemoryExtractor

    return MemoryExtractor()


@pytest.fixture
def llm(extractor):
    """A fresh stand-in per test, so calls can be counted."""
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=extractor) as server:
        yield server
