import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphiti_support import REAL_HOME
from support.adapter_home import use_adapter_home


@pytest.fixture(autouse=True)
def _adapter_home(request, monkeypatch):
    use_adapter_home(request, monkeypatch, REAL_HOME, "integration_graphiti")


@pytest.fixture(scope="session")
def llm():
    from fake_llm import respond
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=respond) as server:
        yield server
