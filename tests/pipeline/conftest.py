from pathlib import Path

import pytest
from support.entry_bundles import chat_bundle


@pytest.fixture(scope="module")
def chunks(tmp_path_factory) -> Path:
    """Chat rooms of growing size, chunked: a bundle worth sharding."""
    return chat_bundle(tmp_path_factory.mktemp("parallel"))
