"""docs/configuration.md: its example memdock.toml is a file memdock loads, every section valid for its adapter, and
its tables name every MEMDOCK_* variable the code, the adapters, the tests and the benches read."""

from __future__ import annotations

import re

import jsonschema
import pytest
from doc_blocks import ROOT

from memdock import config
from memdock.registry import Registry

EXAMPLE = ROOT / "docs" / "examples" / "memdock.toml"
PAGE = ROOT / "docs" / "configuration.md"
VARIABLE = re.compile(r"\bMEMDOCK_[A-Z0-9_]+\b")
SET_BY_TESTS_ONLY = {"MEMDOCK_TEST_SECRET"}  # a test plants it in an adapter's environment; nobody sets it


def bundled() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "adapters").glob("*/adapter.json"))


def test_the_example_is_loaded_as_memdock_loads_its_file(tmp_path):
    settings = config.resolve(env={"MEMDOCK_CONFIG": str(EXAMPLE), "MEMDOCK_HOME": str(tmp_path)})
    assert settings.backend == "sqlite" and settings.backend_source == str(EXAMPLE)
    assert settings.sandbox == "writes"
    assert settings.store.name == "notes"
    assert set(config.load_file(EXAMPLE)["adapters"]) == set(bundled()), "one section per bundled adapter"


@pytest.mark.parametrize("name", bundled())
def test_each_section_is_valid_for_its_adapter(name, tmp_path):
    settings = config.resolve(backend=name, env={"MEMDOCK_CONFIG": str(EXAMPLE), "MEMDOCK_HOME": str(tmp_path)})
    descriptor = Registry.default(env={}).get(name)
    assert settings.adapter_config, f"[adapters.{name}] is empty"
    jsonschema.Draft202012Validator(descriptor.config_schema).validate(settings.adapter_config)
    config.check_no_secrets_in(
        settings.adapter_config, descriptor.config_schema, descriptor.env_for_secret_fields(), str(EXAMPLE)
    )


def read_variables() -> set[str]:
    found: set[str] = set()
    for folder in ("src", "adapters", "tests", "bench", ".ci"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".js", ".json", ""} and path.is_file() and ".venv" not in path.parts:
                found |= set(VARIABLE.findall(path.read_text(encoding="utf-8", errors="replace")))
    return found - SET_BY_TESTS_ONLY


def test_every_variable_is_in_the_tables():
    documented = set(VARIABLE.findall(PAGE.read_text(encoding="utf-8")))
    missing = sorted(read_variables() - documented)
    assert not missing, f"{PAGE.relative_to(ROOT)}: add these to the environment tables: {missing}"
