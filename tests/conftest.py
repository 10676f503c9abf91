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


@pytest.fixture(scope="session", autouse=True)
def _session_home(tmp_path_factory):
    """Module- and session-scoped fixtures start before a test's own home is set: where the environment names no
    home, theirs is a temporary one, never the user's ~/.local/share/memdock (its seal key, its caches)."""
    if os.environ.get("MEMDOCK_HOME"):
        yield
        return
    patch = pytest.MonkeyPatch()
    patch.setenv("MEMDOCK_HOME", str(tmp_path_factory.mktemp("session-home")))
    yield
    patch.undo()


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


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a CPU (pyproject's --maxprocesses caps them). Most tests wait on the processes they
    start (an adapter, a server, a CLI) as much as they compute: measured on 2 cores, tests/service and tests/runner
    took 175 s on 2 workers and 153 s on 4."""
    return 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first, by the budget their timeout marker declares: xdist hands tests out in this order,
    so the heaviest (a kit over a real backend, minutes each) start while every worker is busy rather than running
    alone at the end of the run."""
    items.sort(key=lambda item: -_budget(item))


def _budget(item: pytest.Item) -> float:
    """The test's timeout marker, or the suite's `timeout` where it has none."""
    marker = item.get_closest_marker("timeout")
    if marker is not None and marker.args:
        return float(marker.args[0])
    return float(item.config.getini("timeout") or 0)
