import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mem0_support import REAL_HOME
from support.adapter_home import use_adapter_home


@pytest.fixture(autouse=True)
def _adapter_home(request, monkeypatch):
    use_adapter_home(request, monkeypatch, REAL_HOME, "integration_mem0")


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
