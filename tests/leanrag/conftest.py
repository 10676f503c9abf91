import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from leanrag_support import REAL_HOME
from support.adapter_home import use_adapter_home


@pytest.fixture(autouse=True)
def _adapter_home(request, monkeypatch):
    use_adapter_home(request, monkeypatch, REAL_HOME, "integration_leanrag")


@pytest.fixture()
def fake():
    from leanrag_fake_llm import FakeLLM

    return FakeLLM()


@pytest.fixture()
def llm(fake):
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=fake) as server:
        yield server
