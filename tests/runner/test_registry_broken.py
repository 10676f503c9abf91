"""A broken adapter.json on MEMDOCK_ADAPTER_PATH is skipped with a warning; it is an error only when asked for."""

import json
import os
from pathlib import Path

import pytest
from support.cli import run_memdock

ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"


def memdock(*args, adapter_path):
    return run_memdock(*args, env={**os.environ, "MEMDOCK_ADAPTER_PATH": str(adapter_path)}, timeout=120)


@pytest.fixture
def path_with_broken(tmp_path):
    """A folder of adapters: one whose descriptor breaks the schema, one that is not JSON, and a working one."""
    (tmp_path / "bad-schema").mkdir()
    (tmp_path / "bad-schema" / "adapter.json").write_text(json.dumps({"name": "bad-schema", "version": "1"}))
    (tmp_path / "not-json").mkdir()
    (tmp_path / "not-json" / "adapter.json").write_text("{oops")
    (tmp_path / "scripted").symlink_to(ADAPTERS / "scripted")
    return tmp_path


def test_a_broken_descriptor_does_not_stop_other_adapters(path_with_broken):
    out = memdock("capabilities", "-b", "sqlite", "--json", adapter_path=path_with_broken)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["adapter"] == "sqlite"
    bad = path_with_broken / "bad-schema" / "adapter.json"
    assert f"memdock: warning: skipping the adapter at {bad} (MEMDOCK_ADAPTER_PATH): $: " in out.stderr
    assert "protocol_versions" in out.stderr and "is a required property" in out.stderr
    assert f"skipping the adapter at {path_with_broken / 'not-json' / 'adapter.json'}" in out.stderr
    assert "invalid JSON" in out.stderr
    assert out.stderr.count("bad-schema") == 1, "warned once per process"


def test_an_adapter_beside_a_broken_one_is_found(path_with_broken):
    out = memdock("capabilities", "-b", "scripted", "--json", adapter_path=path_with_broken)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["adapter"] == "scripted"


def test_asking_for_the_broken_adapter_fails_with_its_path_and_error(path_with_broken):
    out = memdock("capabilities", "-b", "bad-schema", adapter_path=path_with_broken)
    assert out.returncode != 0
    bad = path_with_broken / "bad-schema" / "adapter.json"
    assert f"memdock: error: adapter 'bad-schema' (MEMDOCK_ADAPTER_PATH) is broken: {bad}: $: " in out.stderr
    assert "protocol_versions" in out.stderr and "is a required property" in out.stderr
    assert "Traceback" not in out.stderr


def test_an_unknown_name_lists_what_was_skipped(path_with_broken):
    out = memdock("capabilities", "-b", "nope", adapter_path=path_with_broken)
    assert out.returncode != 0
    assert "no adapter named 'nope'" in out.stderr and "skipped broken:" in out.stderr and "not-json" in out.stderr


def test_adapters_list_shows_the_broken_ones_with_the_reason(path_with_broken):
    out = memdock("adapters", "list", adapter_path=path_with_broken)
    assert out.returncode == 0, out.stderr
    assert "sqlite" in out.stdout and "scripted" in out.stdout
    listing = out.stdout.split("broken (skipped", 1)[1]
    assert f"bad-schema  from MEMDOCK_ADAPTER_PATH: {path_with_broken / 'bad-schema' / 'adapter.json'}: $: " in listing
    assert f"?  from MEMDOCK_ADAPTER_PATH: {path_with_broken / 'not-json' / 'adapter.json'}: invalid JSON" in listing
    rows = json.loads(memdock("adapters", "list", "--json", adapter_path=path_with_broken).stdout)
    broken = {r["path"]: r for r in rows if r.get("broken")}
    assert broken[str(path_with_broken / "bad-schema" / "adapter.json")]["name"] == "bad-schema"
    assert "required property" in broken[str(path_with_broken / "bad-schema" / "adapter.json")]["error"]
