"""Which memdock home the tests of an adapter with a venv of its own run in."""

from __future__ import annotations

import pytest


def use_adapter_home(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, real_home: str | None, marker: str
) -> None:
    """The adapter's venv lives in the real memdock home (REAL_HOME, read before the suite's per-test home was
    set), so a test runs there; its stores stay in its tmp dir. Where the environment named no home, only a test
    marked MARKER (one that runs the installed adapter) reads the default home `memdock adapters install` used:
    any other keeps its own, so the suite writes nothing into the user's."""
    if real_home:
        monkeypatch.setenv("MEMDOCK_HOME", real_home)
    elif request.node.get_closest_marker(marker) is not None:
        monkeypatch.delenv("MEMDOCK_HOME", raising=False)
