"""memdock.sdk.kit.settings: an adapter's settings declared once. The dataclass is held to adapter.json's
config_schema, and the variables that supply a field come from adapter.json's `env` list, never a second table."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from memdock.errors import ConfigError
from memdock.sdk.kit.endpoints import ModelEndpoints
from memdock.sdk.kit.settings import SchemaSettings

ROOT = Path(__file__).resolve().parents[2]
KIT_ADAPTERS = ("graphiti", "leanrag", "mem0", "openmemory", "memu")
STORE_ADAPTERS = ("sqlite", "tantivy", "postgres")  # the bundled stores: their settings are declared once too


def descriptor(tmp_path: Path, properties: dict, env: list[dict] | None = None, name: str = "demo") -> str:
    path = tmp_path / "adapter.json"
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    path.write_text(json.dumps({"name": name, "config_schema": schema, "env": env or []}))
    return str(path)


def settings_class(path: str, **fields: object) -> type:
    ns = {"DESCRIPTOR": path, "__annotations__": {"DESCRIPTOR": ClassVar[str]}}
    for name, default in fields.items():
        ns["__annotations__"][name] = type(default) if default is not None else "str | None"
        ns[name] = default
    return dataclasses.dataclass(frozen=True)(type("Settings", (SchemaSettings,), ns))


def test_a_field_the_config_leaves_empty_comes_from_the_variable_adapter_json_names(tmp_path):
    path = descriptor(
        tmp_path,
        {"api_key": {"type": "string", "x-secret": True}, "timeout_s": {"type": "number"}},
        [{"name": "DEMO_API_KEY", "secret": True, "config_field": "api_key"}],
    )
    cls = settings_class(path, api_key=None, timeout_s=60.0)
    s = cls.from_config({"timeout_s": 5.0}, env={"DEMO_API_KEY": "k"})
    assert (s.api_key, s.timeout_s) == ("k", 5.0)
    assert cls.from_config({"api_key": "from-config"}, env={"DEMO_API_KEY": "k"}).api_key == "from-config"
    assert cls.from_config({}, env={}).api_key is None
    assert cls.env_name("api_key") == "DEMO_API_KEY"


def test_a_schema_property_without_a_field_is_refused_naming_both_places(tmp_path):
    path = descriptor(tmp_path, {"timeout_s": {"type": "number"}, "retries": {"type": "integer"}})
    cls = settings_class(path, timeout_s=60.0)
    with pytest.raises(ConfigError) as err:
        cls.from_config({})
    assert str(path) in err.value.message and "Settings" in err.value.message
    assert "config_schema properties with no settings field: ['retries']" in err.value.message


def test_a_field_missing_from_the_schema_is_refused(tmp_path):
    path = descriptor(tmp_path, {"timeout_s": {"type": "number"}})
    cls = settings_class(path, timeout_s=60.0, hidden=1)
    with pytest.raises(ConfigError, match=r"settings fields missing from config_schema.properties: \['hidden'\]"):
        cls.from_config({})


def test_an_env_entry_for_an_unknown_field_is_refused(tmp_path):
    path = descriptor(tmp_path, {"timeout_s": {"type": "number"}}, [{"name": "DEMO_TOKEN", "config_field": "token"}])
    cls = settings_class(path, timeout_s=60.0)
    with pytest.raises(ConfigError, match=r"env entries whose config_field is not in .*\['token'\]"):
        cls.from_config({})


def test_cache_key_holds_lists_and_tells_configs_apart(tmp_path):
    path = descriptor(tmp_path, {"kinds": {"type": "array"}, "n": {"type": "integer"}})
    cls = settings_class(path, kinds=None, n=1)
    a, b = cls.from_config({"kinds": ["x", "y"]}), cls.from_config({"kinds": ["x"]})
    assert (
        hash(a.cache_key()) != hash(b.cache_key())
        and a.cache_key() == cls.from_config({"kinds": ["x", "y"]}).cache_key()
    )


@dataclasses.dataclass(frozen=True)
class _Models(ModelEndpoints):
    DESCRIPTOR: ClassVar[str] = ""
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    embedding_base_url: str | None = None
    embedding_api_key: str | None = None
    embedding_provider: str = "openai"
    embedding_model: str | None = None


def test_model_endpoints_default_to_openai_and_name_the_variables_adapter_json_declares(tmp_path, monkeypatch):
    fields = ("llm_base_url", "llm_api_key", "embedding_base_url", "embedding_api_key", "embedding_provider")
    path = descriptor(
        tmp_path,
        {f: {"type": "string"} for f in (*fields, "embedding_model")},
        [
            {"name": "DEMO_LLM_API_KEY", "config_field": "llm_api_key"},
            {"name": "DEMO_EMBEDDING_API_KEY", "config_field": "embedding_api_key"},
        ],
    )
    monkeypatch.setattr(_Models, "DESCRIPTOR", path)
    bare = _Models.from_config({}, env={})
    assert bare.llm_url == "https://api.openai.com/v1" and bare.embedding_url == bare.llm_url
    assert "DEMO_LLM_API_KEY" in (bare.llm_configured() or "")
    assert "DEMO_EMBEDDING_API_KEY" in (bare.embedder_configured() or "")
    with pytest.raises(ConfigError, match="^demo: no LLM"):
        bare.require_models()
    keyed = _Models.from_config({}, env={"DEMO_LLM_API_KEY": "k"})
    assert keyed.llm_configured() is None and keyed.embedder_configured() is None and keyed.embedding_key == "k"
    local = _Models.from_config(
        {"llm_base_url": "http://127.0.0.1:9/v1/", "embedding_provider": "sentence-transformers"}
    )
    assert local.llm_url == "http://127.0.0.1:9/v1" and "needs embedding_model" in (local.embedder_configured() or "")
    assert local.llm_endpoint().key_env == "DEMO_LLM_API_KEY"


def adapter_settings(name: str, monkeypatch: pytest.MonkeyPatch) -> type:
    """The Settings class of the bundled adapter NAME, imported from its folder as its venv would."""
    monkeypatch.syspath_prepend(str(ROOT / "adapters" / "common"))
    monkeypatch.syspath_prepend(str(ROOT / "adapters" / name))
    for mod in [m for m in sys.modules if m.startswith(f"memdock_{name}")]:
        monkeypatch.delitem(sys.modules, mod)
    return importlib.import_module(f"memdock_{name}.settings").Settings


@pytest.mark.parametrize("name", KIT_ADAPTERS + STORE_ADAPTERS)
def test_each_kit_adapter_declares_its_settings_once(name, monkeypatch):
    """Its Settings match its config_schema, every env variable it reads is in adapter.json, and its Python names
    no MEMDOCK_* variable of its own (the table that used to sit beside the schema)."""
    folder = ROOT / "adapters" / name
    cls = adapter_settings(name, monkeypatch)
    raw = json.loads((folder / "adapter.json").read_text())
    assert cls.descriptor() == raw
    env = {e["name"]: f"value-of-{e['config_field']}" for e in raw.get("env", []) if e.get("config_field")}
    s = cls.from_config({}, env=env)
    for e in raw.get("env", []):
        if e.get("config_field"):
            assert getattr(s, e["config_field"]) == f"value-of-{e['config_field']}"
    own = {m for p in folder.rglob("*.py") for m in re.findall(r"MEMDOCK_[A-Z0-9_]+", p.read_text())}
    assert not own, f"{name}: name these in adapter.json's env list, not in Python: {sorted(own)}"


def test_the_postgres_password_comes_only_from_its_variable_and_is_never_printed(monkeypatch):
    cls = adapter_settings("postgres", monkeypatch)
    env = {"MEMDOCK_POSTGRES_PASSWORD": "s3cret-pw", "MEMDOCK_POSTGRES_EMBEDDING_API_KEY": "s3cret-key"}
    s = cls.from_config({"postgres_password": "from-config", "postgres_schema": "mem2"}, env=env)
    assert (s.postgres_password, s.postgres_schema, s.embedding_api_key) == ("s3cret-pw", "mem2", "s3cret-key")
    assert cls.from_config({"postgres_password": "from-config"}, env={}).postgres_password is None
    assert "s3cret" not in repr(s) and s.connect_kwargs()["password"] == "s3cret-pw"
    assert s.scrub("login failed: s3cret-pw") == "login failed: [redacted]"


def test_the_sqlite_settings_pick_the_embedder_and_the_search_options(monkeypatch):
    cls = adapter_settings("sqlite", monkeypatch)
    assert cls.from_config({}, env={}).embedder() is None
    s = cls.from_config(
        {
            "embedding_provider": "openai",
            "embedding_model": "m",
            "embedding_base_url": "http://127.0.0.1:9/v1",
            "hybrid_rrf_k": 7,
            "time_cue_weight": 1,
        },
        env={"MEMDOCK_SQLITE_EMBEDDING_API_KEY": "k"},
    )
    embedder = s.embedder()
    assert (embedder.url, embedder.api_key, embedder.timeout) == ("http://127.0.0.1:9/v1/embeddings", "k", 30.0)
    options = s.search_options()
    assert (options["rrf_k"], options["time_weight"], options["pool_weight"]) == (7, 1.0, None)
    with pytest.raises(ConfigError, match="embedding_model is not"):
        cls.from_config({"embedding_provider": "openai"}, env={}).embedder()
