from pathlib import Path

import pytest

from memdock.config import resolve
from memdock.connect import open_backend
from memdock.errors import ConfigError
from memdock.registry import Registry
from memdock.resources import bundled_adapters_dir

ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"


def test_backend_precedence_flag_env_file_default(tmp_path):
    (tmp_path / "memdock.toml").write_text('backend = "from-file"\n')
    env = {"MEMDOCK_BACKEND": "from-env", "MEMDOCK_HOME": str(tmp_path / "h")}
    assert resolve(backend="from-flag", env=env, cwd=tmp_path).backend == "from-flag"
    assert resolve(env=env, cwd=tmp_path).backend == "from-env"
    assert resolve(env={"MEMDOCK_HOME": str(tmp_path / "h")}, cwd=tmp_path).backend == "from-file"
    s = resolve(env={"MEMDOCK_HOME": str(tmp_path / "h")}, cwd=tmp_path / "nowhere")
    assert (s.backend, s.backend_source) == ("sqlite", "default")
    assert s.store == (tmp_path / "h" / "stores" / "sqlite").resolve()
    assert resolve(data_dir=tmp_path / "d", env={}, cwd=tmp_path).store == (tmp_path / "d").resolve()


def test_adapter_path_and_lookup_by_folder(monkeypatch):
    monkeypatch.setenv("MEMDOCK_ADAPTER_PATH", str(ADAPTERS))
    found = Registry.default().discover()
    assert "scripted" in found and found["scripted"].origin == "MEMDOCK_ADAPTER_PATH"
    assert Registry(include_bundled=False, use_entry_points=False).get(ADAPTERS / "faulty-none").name == "faulty-none"


def test_entry_point_adapters(tmp_path, monkeypatch):
    site = tmp_path / "site"
    dist = site / "memdock_fake-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: memdock-fake\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[memdock.adapters]\nscripted = memdock_fake:adapter_dir\n")
    (site / "memdock_fake.py").write_text(f"def adapter_dir():\n    return {str(ADAPTERS / 'scripted')!r}\n")
    monkeypatch.syspath_prepend(str(site))
    found = Registry(include_bundled=False).discover()
    assert found["scripted"].origin == "entry point scripted"


def test_unknown_adapter_lists_known_ones():
    with pytest.raises(ConfigError, match=r"no adapter named 'nope' \(known: .*null"):
        Registry.default().get("nope")


def test_secret_in_config_file_is_refused(tmp_path, monkeypatch):
    (tmp_path / "memdock.toml").write_text('backend = "null"\n[adapters.null]\ntoken = "sk-in-a-file"\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="token is a secret; set it in the environment \\(MEMDOCK_NULL_TOKEN\\)"):
        open_backend()


def test_bad_descriptor_names_file(tmp_path):
    d = tmp_path / "broken"
    d.mkdir()
    (d / "adapter.json").write_text('{"name": "Bad Name", "version": "1"}')
    with pytest.raises(ConfigError, match=r"adapter.json: \$"):
        Registry().get(d)


def test_one_public_factory_opens_backends():
    """memdock.connect.open_backend is the only factory of that name: the runner's resolving step is
    SubprocessBackend.resolved, which it calls."""
    import memdock.runner
    import memdock.runner.backend

    assert not hasattr(memdock.runner, "open_backend") and not hasattr(memdock.runner.backend, "open_backend")


def test_a_folder_here_never_shadows_an_adapter_named_bare(tmp_path, monkeypatch):
    """A cloned repository holding `null/adapter.json` (or `sqlite/`): `memdock add` run there with the default
    backend, or MEMDOCK_BACKEND=null, ran that folder's command. A bare name is the known adapter's; the folder is
    reached by a path, and a bare name no adapter has still finds it."""
    monkeypatch.chdir(tmp_path)
    for name in ("null", "myfork"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "adapter.json").write_bytes((bundled_adapters_dir() / "null" / "adapter.json").read_bytes())
    registry = Registry.default(env={})
    assert registry.get("null").origin == "bundled"
    assert registry.get("./null").origin == "path" and registry.get(tmp_path / "null").origin == "path"
    assert registry.get("myfork").origin == "path"
