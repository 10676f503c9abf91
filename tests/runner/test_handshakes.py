"""The capabilities handshake kept in the memdock home (runner/handshakes.py): asked once, asked again whenever
anything the answer may depend on changes, never read stale, never holding a secret."""

import json
import os
from pathlib import Path

import pytest
from support.cli import memdock

from memdock.config import memdock_home
from memdock.registry import AdapterDescriptor
from memdock.runner import handshakes
from memdock.runner.backend import SubprocessBackend

ADAPTER = """
import os
from pathlib import Path

from memdock.sdk import Adapter, serve

HERE = Path(__file__).parent


class Static(Adapter):
    name = "static"
    version = "0.1.0"
    descriptor_path = HERE / "adapter.json"

    def capabilities(self, ctx):
        with open(ctx.data_dir / "asked", "a") as f:
            f.write("asked\\n")
        caps = super().capabilities(ctx)
        caps["extra"] = {
            "said": (HERE / "said.txt").read_text(),
            "mode": ctx.config.get("mode"),
            "token": os.environ.get("STATIC_TOKEN", "")[-4:],
        }
        return caps


if __name__ == "__main__":
    serve(Static())
"""

SECRET = "sk-static-secret-5e1f"


def write_adapter(folder: Path, *, static: bool = True) -> Path:
    folder.mkdir(parents=True)
    descriptor = {
        "name": "static",
        "version": "0.1.0",
        "protocol_versions": ["1.0"],
        "payload_versions": ["1.0.0"],
        "runtime": {"kind": "python"},
        "command": ["{python}", "adapter.py"],
        "config_schema": {"type": "object", "properties": {"mode": {"type": "string"}}},
        "env": [{"name": "STATIC_TOKEN", "secret": True}],
    }
    if static:
        descriptor["static_capabilities"] = True
    (folder / "adapter.json").write_text(json.dumps(descriptor))
    (folder / "adapter.py").write_text(ADAPTER)
    (folder / "said.txt").write_text("first")
    return folder


@pytest.fixture
def adapter(tmp_path: Path) -> Path:
    return write_adapter(tmp_path / "static")


def asked(store: Path) -> int:
    """How many times the adapter answered `capabilities` for STORE."""
    path = store / "data" / "asked"
    return len(path.read_text().splitlines()) if path.exists() else 0


def caps(folder: Path, store: Path, *, config=None, env=None, refresh=False):
    """The capabilities a fresh backend (as a new command line call opens one) gets."""
    env = {**os.environ, **(env or {})}
    with SubprocessBackend(AdapterDescriptor.load(folder), store, config=config, env=env) as b:
        return b.get_capabilities(refresh=refresh)


def test_a_second_backend_does_not_start_the_adapter_to_ask(adapter, tmp_path):
    store = tmp_path / "store"
    first = caps(adapter, store)
    assert asked(store) == 1
    second = caps(adapter, store)
    assert asked(store) == 1
    assert second == first
    assert second.extra["said"] == "first"


def test_another_store_shares_the_answer(adapter, tmp_path):
    caps(adapter, tmp_path / "one")
    caps(adapter, tmp_path / "two")
    assert (asked(tmp_path / "one"), asked(tmp_path / "two")) == (1, 0)


def test_an_edited_adapter_file_is_asked_again(adapter, tmp_path):
    store = tmp_path / "store"
    caps(adapter, store)
    said = adapter / "said.txt"
    said.write_text("second, longer")
    os.utime(said, ns=(said.stat().st_atime_ns, said.stat().st_mtime_ns + 1_000_000))
    assert caps(adapter, store).extra["said"] == "second, longer"
    assert asked(store) == 2


def test_an_edit_that_keeps_size_and_modification_time_is_asked_again(adapter, tmp_path):
    """As `cp -p` or `rsync -t` of another file of the same size leaves it: only the change time tells."""
    store = tmp_path / "store"
    caps(adapter, store)
    said = adapter / "said.txt"
    before = said.stat()
    said.write_text("FIRST")
    os.utime(said, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (said.stat().st_size, said.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert caps(adapter, store).extra["said"] == "FIRST"
    assert asked(store) == 2


def test_memdock_capabilities_asks_the_adapter_each_time(adapter, tmp_path):
    store = tmp_path / "store"
    for _ in range(2):
        said = memdock("capabilities", "-b", str(adapter), "--data-dir", str(store), "--json", home=memdock_home())
        assert said.returncode == 0, said.stderr
        assert json.loads(said.stdout)["extra"]["said"] == "first"
    assert asked(store) == 2
    caps(adapter, store)
    assert asked(store) == 2


def test_an_edited_descriptor_is_asked_again(adapter, tmp_path):
    store = tmp_path / "store"
    caps(adapter, store)
    raw = json.loads((adapter / "adapter.json").read_text())
    raw["description"] = "now described"
    (adapter / "adapter.json").write_text(json.dumps(raw))
    caps(adapter, store)
    assert asked(store) == 2


def test_config_and_declared_environment_are_part_of_the_key(adapter, tmp_path):
    store = tmp_path / "store"
    assert caps(adapter, store, config={"mode": "a"}).extra["mode"] == "a"
    assert caps(adapter, store, config={"mode": "b"}).extra["mode"] == "b"
    assert caps(adapter, store, config={"mode": "a"}).extra["mode"] == "a"
    assert asked(store) == 2
    assert caps(adapter, store, env={"STATIC_TOKEN": SECRET}).extra["token"] == SECRET[-4:]
    assert caps(adapter, store, env={"STATIC_TOKEN": SECRET + "x"}).extra["token"] == (SECRET + "x")[-4:]
    assert asked(store) == 4
    caps(adapter, store, config={"mode": "a"}, env={"UNDECLARED": "anything"})
    assert asked(store) == 4


def test_no_secret_reaches_the_cache(adapter, tmp_path):
    caps(adapter, tmp_path / "store", env={"STATIC_TOKEN": SECRET})
    kept = list(handshakes.folder().iterdir())
    assert kept
    for path in kept:
        assert SECRET not in path.name and SECRET.encode() not in path.read_bytes()


def test_refresh_asks_the_adapter(adapter, tmp_path):
    store = tmp_path / "store"
    caps(adapter, store)
    caps(adapter, store, refresh=True)
    assert asked(store) == 2


def test_an_adapter_that_does_not_opt_in_is_always_asked(tmp_path):
    folder = write_adapter(tmp_path / "dynamic", static=False)
    store = tmp_path / "store"
    caps(folder, store)
    caps(folder, store)
    assert asked(store) == 2
    assert not handshakes.folder().exists()


def test_a_corrupt_cache_file_is_asked_again_and_replaced(adapter, tmp_path):
    store = tmp_path / "store"
    first = caps(adapter, store)
    (kept,) = handshakes.folder().iterdir()
    kept.write_bytes(b"{not json")
    assert caps(adapter, store) == first
    assert asked(store) == 2
    assert json.loads(kept.read_bytes())["adapter"] == "static"


@pytest.mark.parametrize("blocked", ["home", "cache"])
def test_a_home_that_cannot_be_written_only_costs_a_start(adapter, tmp_path, monkeypatch, blocked):
    """A regular file where the home (no seal key can be made) or the cache folder should be."""
    home = tmp_path / "home"
    monkeypatch.setenv("MEMDOCK_HOME", str(home))
    in_the_way = home if blocked == "home" else handshakes.folder()
    in_the_way.parent.mkdir(parents=True, exist_ok=True)
    in_the_way.write_text("not a folder")
    store = tmp_path / "store"
    assert caps(adapter, store).adapter == "static"
    caps(adapter, store)
    assert asked(store) == 2
    assert in_the_way.read_text() == "not a folder"


def test_the_cache_keeps_a_bounded_number_of_answers(adapter, tmp_path, monkeypatch):
    monkeypatch.setattr(handshakes, "KEEP", 3)
    for k in range(5):
        caps(adapter, tmp_path / "store", config={"mode": str(k)})
    assert len(list(handshakes.folder().glob("*.json"))) == 3
    assert handshakes.folder().is_relative_to(memdock_home())


def test_a_file_under_a_symlinked_folder_is_part_of_the_key(adapter, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "said.txt").write_text("one")
    (adapter / "lib").symlink_to(real)
    (adapter / "loop").symlink_to(adapter)  # a link back up is walked once, not forever
    source = (adapter / "adapter.py").read_text().replace('HERE / "said.txt"', 'HERE / "lib" / "said.txt"')
    (adapter / "adapter.py").write_text(source)
    store = tmp_path / "store"
    assert caps(adapter, store).extra["said"] == "one"
    (real / "said.txt").write_text("two, longer")
    assert caps(adapter, store).extra["said"] == "two, longer"
    assert asked(store) == 2
