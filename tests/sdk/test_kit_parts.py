"""memdock.sdk.kit: the runtime cache and routed operations, model-error classification, staging checks, filters
and the catalog file, as adapters over a framework share them."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memdock.config import memdock_home
from memdock.errors import BackendError, InvalidInputError
from memdock.sdk.adapter import Context
from memdock.sdk.kit.catalog import ENTRY_META_TABLE, CatalogFile
from memdock.sdk.kit.filters import filter_object, thread_ids, time_bound
from memdock.sdk.kit.models import Endpoint, classify, model_error
from memdock.sdk.kit.runtime import RuntimeAdapter, route, supports
from memdock.sdk.kit.staging import Checkpoints, check_size


@dataclass(frozen=True)
class _Settings:
    mode: str = "a"

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> _Settings:
        return cls(**config)

    def cache_key(self) -> tuple[Any, ...]:
        return (self.mode,)


class _Runtime:
    made: list[_Runtime] = []

    def __init__(self, settings: _Settings, data_dir: Path):
        self.settings, self.closed = settings, False
        self.catalog = CatalogFile(data_dir)
        _Runtime.made.append(self)

    def close(self) -> None:
        self.closed = True
        self.catalog.close()


class _Demo(RuntimeAdapter):
    package = "kit_demo_pkg"
    settings_class = _Settings
    name, version = "demo", "1.0.0"
    query = route("retrieval", "search", "query")
    index = route("indexer", "index", ctx=True)

    def make_runtime(self, settings: Any, data_dir: Path) -> Any:
        return _Runtime(settings, data_dir)


@pytest.fixture
def demo(monkeypatch) -> _Demo:
    pkg = types.ModuleType("kit_demo_pkg")
    retrieval = types.ModuleType("kit_demo_pkg.retrieval")
    retrieval.search = lambda rt, kind, params: {"rt": rt, "kind": kind, "params": params}  # type: ignore[attr-defined]
    indexer = types.ModuleType("kit_demo_pkg.indexer")
    indexer.index = lambda rt, ctx: {"rt": rt, "ctx": ctx}  # type: ignore[attr-defined]
    for m in (pkg, retrieval, indexer):
        monkeypatch.setitem(sys.modules, m.__name__, m)
    _Runtime.made.clear()
    return _Demo()


def ctx(data_dir: Path, config: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> Context:
    request = {"operation": "query", "request_id": "r1", "params": params or {}, "config": config or {}}
    return Context({**request, "data_dir": str(data_dir)}, out=None)  # type: ignore[arg-type]


def test_routes_call_the_package_module_with_the_kept_runtime(demo, tmp_path):
    first = demo.query(ctx(tmp_path, params={"q": 1}))
    assert first["kind"] == "query" and first["params"] == {"q": 1}
    second = demo.index(ctx(tmp_path))
    assert second["rt"] is first["rt"] and len(_Runtime.made) == 1


def test_a_new_config_or_data_dir_gets_a_new_runtime_and_the_old_one_is_closed(demo, tmp_path):
    a = demo.runtime(ctx(tmp_path / "one"))
    b = demo.runtime(ctx(tmp_path / "one", {"mode": "b"}))
    c = demo.runtime(ctx(tmp_path / "two", {"mode": "b"}))
    assert a is not b is not c and a.closed and b.closed and not c.closed
    demo.close()
    assert c.closed


def test_a_removed_data_dir_is_made_again_with_a_fresh_runtime(demo, tmp_path):
    first = demo.runtime(ctx(tmp_path / "data"))
    shutil.rmtree(tmp_path / "data")
    second = demo.runtime(ctx(tmp_path / "data"))
    assert second is not first and first.closed and (tmp_path / "data" / "catalog.sqlite").exists()


class _Malformed(Exception):
    pass


ENDPOINT = Endpoint("http://127.0.0.1:9/v1", "m", "DEMO_LLM_API_KEY", 5.0)


def test_the_cause_chain_is_searched_for_what_happened():
    try:
        try:
            raise _Malformed("no JSON in the answer")
        except _Malformed as inner:
            raise RuntimeError("framework wrapper") from inner
    except RuntimeError as outer:
        err = classify(outer, ENDPOINT, "index", (_Malformed,))
    assert isinstance(err, BackendError) and not err.retryable
    assert "no JSON in the answer; nothing of this entry was stored" in err.message
    assert model_error(RuntimeError("x"), ENDPOINT, "index") is None
    other = classify(KeyError("k"), ENDPOINT, "query")
    assert other.message == "query: KeyError: 'k'"


def test_a_full_disk_anywhere_in_the_chain_is_a_disk_full_error():
    full = OSError(errno.ENOSPC, "No space left on device")
    try:
        raise RuntimeError("wrapped") from full
    except RuntimeError as exc:
        err = classify(exc, ENDPOINT, "index")
    assert isinstance(err, BackendError) and err.details["reason"] == "disk_full"


REAL_HOME = memdock_home()  # before the suite points MEMDOCK_HOME at each test's tmp dir
OPENAI_CHECKS = """
import httpx, openai
from memdock.config import memdock_home
from memdock.errors import TransientError
from memdock.sdk.kit.models import Endpoint, classify
endpoint = Endpoint("http://127.0.0.1:9/v1", "m", "DEMO_LLM_API_KEY", 5.0)
request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions?key=secret")
refused = openai.AuthenticationError("bad key", response=httpx.Response(401, request=request), body=None)
try:
    raise RuntimeError("wrapper") from refused
except RuntimeError as exc:
    err = classify(exc, endpoint, "index")
assert "refused the key (HTTP 401); check DEMO_LLM_API_KEY" in err.message, err.message
assert "secret" not in err.message and not err.retryable
busy = classify(openai.RateLimitError("slow", response=httpx.Response(429, request=request), body=None), endpoint, "q")
assert isinstance(busy, TransientError) and "answered HTTP 429" in busy.message, busy.message
late = classify(openai.APITimeoutError(request=request), endpoint, "q")
assert isinstance(late, TransientError) and "timed out after 5s" in late.message, late.message
print("ok")
"""


def test_openai_errors_name_the_endpoint_and_the_key_variable():
    """Run where openai is: an installed adapter's virtualenv (memdock's own environment does not have it)."""
    pythons = sorted(REAL_HOME.glob("venvs/*/bin/python"))
    python = next((p for p in pythons if any(p.parents[1].glob("lib/python*/site-packages/openai"))), None)
    if python is None:
        pytest.skip("no adapter virtualenv with openai (memdock adapters install mem0)")
    done = subprocess.run([str(python), "-I", "-c", OPENAI_CHECKS], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_check_size_names_file_line_field_and_setting():
    check_size("x" * 10, (10, "max_chars"), ("part.jsonl", 3, "body", "entry:1"), "may have", "Split it")
    with pytest.raises(InvalidInputError) as err:
        check_size("x" * 11, (10, "max_chars"), ("part.jsonl", 3, "body", "entry:1"), "may have", "Split it")
    assert (
        err.value.message == "part.jsonl:3: body of entry:1 is 11 characters; may have at most 10 (max_chars). Split it"
    )
    assert err.value.details == {"file": "part.jsonl", "line": 3, "field": "body", "id": "entry:1", "chars": 11}


def test_filters_are_checked_once_the_same_way():
    known = {"thread_ids", "time_from"}
    with pytest.raises(InvalidInputError, match="filters must be an object"):
        filter_object({"filters": ["x"]}, known)
    with pytest.raises(InvalidInputError, match=r"unknown filters \['colour'\]"):
        filter_object({"filters": {"colour": 1}}, known)
    f = filter_object({"filters": {"thread_ids": ["t1", "t2"], "time_from": "2025-01-01T00:00:00Z"}}, known)
    assert thread_ids(f, {"group_ids": ["t2", "t3"]}) == ["t1", "t2", "t3"]
    assert time_bound(f, "time_from") == 1735689600.0 and time_bound(f, "time_to") is None
    with pytest.raises(InvalidInputError, match="filters.time_from: not an RFC 3339 date-time: 'yesterday'"):
        time_bound({"time_from": "yesterday"}, "time_from")


class _Staging(CatalogFile):
    SCHEMA = ENTRY_META_TABLE + (
        "CREATE TEMP TABLE IF NOT EXISTS staged (seq INTEGER PRIMARY KEY, event_time TEXT, item TEXT NOT NULL);"
        "CREATE TEMP TABLE IF NOT EXISTS staged_members (record_id TEXT, entry_id TEXT);"
    )


def test_staged_items_come_back_in_time_order_across_pages(tmp_path, monkeypatch):
    monkeypatch.setattr("memdock.sdk.kit.catalog.PAGE", 3)
    cat = _Staging(tmp_path)
    times = [f"2025-01-0{d % 9 + 1}T00:00:00Z" for d in range(10)] + [None]
    for i, t in enumerate(times):
        cat.conn.execute("INSERT INTO staged (event_time, item) VALUES (?, ?)", (t, json.dumps({"i": i})))
    order = [item["i"] for item in cat.staged_items("item")]
    assert order[0] == 10 and order[1:] == sorted(range(10), key=lambda i: (times[i], i))
    assert cat.staged_count() == 11
    cat.put_entry({"id": "e1", "thread_id": "t", "author": "bo", "event_time": "2025-01-01T00:00:00Z"})
    assert cat.entry("e1") == {
        "id": "e1",
        "thread_id": "t",
        "author": "bo",
        "role": None,
        "entry_type": None,
        "title": None,
        "event_time": "2025-01-01T00:00:00Z",
    }
    cat.clear_staged()
    assert cat.staged_count() == 0
    cat.close()


def test_supports_names_features_and_refuses_a_misspelt_one():
    assert supports("delete", "retrieval", concurrent_index=False) == {
        "delete": True,
        "retrieval": True,
        "concurrent_index": False,
    }
    with pytest.raises(ValueError, match=r"unknown features \['temporel'\]"):
        supports("delete", "temporel")


class _Sink:
    def __init__(self) -> None:
        self.sent: list[list[str]] = []

    def checkpoint(self, ids: list[str]) -> None:
        self.sent.append(ids)


def test_checkpoints_are_sent_in_batches_and_counted_in_the_result(monkeypatch):
    sink = _Sink()
    checkpoint = Checkpoints(sink)
    monkeypatch.setattr(Checkpoints, "BATCH", 2)
    checkpoint(["a", "b", "c"])
    checkpoint(["d"])
    checkpoint([])
    assert sink.sent == [["a", "b"], ["c"], ["d"]]
    result = checkpoint.result({"entry": 4}, {"added": 4}, seconds=1.5)
    assert result == {"indexed": {"entry": 4}, "checkpoints": 3, "seconds": 1.5, "details": {"added": 4}}
    assert checkpoint.result({}, {})["seconds"] >= 0
