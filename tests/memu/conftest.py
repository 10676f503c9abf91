import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memu_support import REAL_HOME
from support.adapter_home import use_adapter_home


@pytest.fixture(autouse=True)
def _adapter_home(request, monkeypatch):
    use_adapter_home(request, monkeypatch, REAL_HOME, "integration_memu")


@pytest.fixture
def stand_in():
    from fake_memu_llm import MemUStandIn

    return MemUStandIn()


@pytest.fixture
def llm(stand_in):
    """A fresh stand-in per test, so calls can be counted."""
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=stand_in) as server:
        yield server


@pytest.fixture
def store():
    """A store folder others may traverse: run as root, MemU's bundled Postgres runs as the system user `pgserver`
    (Postgres refuses root), which must reach its data folder; pytest keeps its own temp root private (0700)."""
    base = Path(tempfile.mkdtemp(prefix="memdock-memu-"))
    base.chmod(0o755)
    yield base / "store"
    shutil.rmtree(base, ignore_errors=True)
