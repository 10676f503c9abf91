import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def server():
    from fake_openmemory import FakeOpenMemory

    with FakeOpenMemory() as s:
        yield s
