from pathlib import Path

import pytest

from memdock.registry import AdapterDescriptor
from memdock.runner.backend import SubprocessBackend

ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"


@pytest.fixture
def scripted(tmp_path):
    opened = []

    def make(behavior="ok", *, env=None, store=None, **kw):
        config = {"behavior": behavior, **kw.pop("config", {})}
        b = SubprocessBackend(
            AdapterDescriptor.load(ADAPTERS / "scripted"), store or tmp_path / "store", config=config, env=env, **kw
        )
        opened.append(b)
        return b

    yield make
    for b in opened:
        b.close()


FAKE_KEY = "-----BEGIN FAKE OPENSSH PRIVATE KEY-----\nnot-a-real-key-77a1\n"


@pytest.fixture
def key(tmp_path) -> Path:
    """A fake private key where a user keeps one (tmp_path/home/.ssh/id_rsa): what a hostile adapter must not read."""
    f = tmp_path / "home" / ".ssh" / "id_rsa"
    f.parent.mkdir(parents=True)
    f.write_text(FAKE_KEY)
    return f
