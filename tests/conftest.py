import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings as _hsettings

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))
# tests import adapter packages directly (adapters/<name> on sys.path); what they share lives in adapters/common
sys.path.append(str(ROOT / "adapters" / "common"))


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA} (they live beside the project, not in it)")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("memdock-home")
    monkeypatch.setenv("MEMDOCK_HOME", str(home))
    monkeypatch.delenv("MEMDOCK_BACKEND", raising=False)
    monkeypatch.delenv("MEMDOCK_ADAPTER_PATH", raising=False)
    yield


_hsettings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    _hsettings.load_profile("ci")
