from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the ui extra is not installed (pip install 'memdock[ui]')")
pytest.importorskip("uvicorn", reason="the ui extra is not installed (pip install 'memdock[ui]')")

from ui_helpers import build_store


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory) -> Path:
    """The fixture corpus and the hostile note, for tests that only read."""
    return build_store(tmp_path_factory.mktemp("ui-store"))


@pytest.fixture
def own_store(tmp_path) -> Path:
    """The same, for a test that forgets."""
    return build_store(tmp_path)
