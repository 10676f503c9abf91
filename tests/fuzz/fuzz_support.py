"""What the fuzz tests share: their hypothesis settings, the generated values, a valid bundle to mutate, and
the sqlite adapter run in-process (the adapter's own code path, without a process per example)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.protocol import build_request

ROOT = Path(__file__).resolve().parents[2]
SCALE = float(os.environ.get("MEMDOCK_FUZZ_SCALE", "1"))
"""Multiplies every test's examples: `MEMDOCK_FUZZ_SCALE=20 pytest tests/fuzz` for a longer local hunt."""


def fuzz_settings(examples: int) -> settings:
    """Bounded in examples, never in time per example (a loaded machine is slow, not wrong). Under CI the
    profile loaded in tests/conftest.py derandomizes: the same examples every run."""
    return settings(
        max_examples=max(1, int(examples * SCALE)),
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )


# -- values --------------------------------------------------------------------------------------

EDGE_STRINGS = [
    "",
    " ",
    "\n",
    "\x00",
    "thread:x",
    "entry:x",
    "x" * 300,
    "é" * 5,
    "🙂",
    "0001-01-01T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "2016-12-31T23:59:60Z",
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "2025-02-30T00:00:00Z",
    "2025-01-01",
    "2025-01-01T00:00:00",
    "NaN",
    "-1",
    "1e309",
    "{",
    '"',
    "\\",
]
EDGE_INTS = [0, -1, 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, -(2**63) - 1, 2**64, 10**30]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(EDGE_INTS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(EDGE_STRINGS),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


def nested(depth: int) -> Any:
    value: Any = "deep"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


deep_values = st.integers(min_value=30, max_value=400).map(nested)
any_json = st.one_of(json_values, deep_values)

lone_surrogate_text = st.text(max_size=20).map(lambda s: s + "\ud800" + s)
python_values = st.one_of(
    any_json,
    lone_surrogate_text,
    st.binary(max_size=20),
    st.floats(),
    st.sampled_from([float("inf"), float("nan")]),
    st.datetimes(timezones=st.none() | st.timezones()),
    st.dates(),
    st.builds(timedelta),
    st.builds(object),
    st.tuples(st.text(max_size=5)),
    st.sets(st.integers(), max_size=3),
    st.just(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14)))),
    st.just(date(2025, 1, 1)),
)


# -- a bundle to mutate ----------------------------------------------------------------------------


def make_chunks_bundle(root: Path) -> Path:
    import_corpus([ROOT / "fixtures" / "threads"], "watercooler", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    return root / "chunks"


def copy_bundle(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def reseal(bundle: Path) -> None:
    """Make the manifest agree with the files again (count, bytes, sha256), so a mutation reaches the records
    instead of stopping at the checksum."""
    path = bundle / "manifest.json"
    manifest = json.loads(path.read_text())
    files = manifest.get("files") if isinstance(manifest, dict) else None
    for entry in files if isinstance(files, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            continue
        try:
            raw = (bundle / entry["path"]).read_bytes()
        except OSError:  # a mutated name: missing, a directory, or too long for the filesystem
            continue
        entry["bytes"] = len(raw)
        entry["sha256"] = "sha256:" + hashlib.sha256(raw).hexdigest()
        if entry.get("format", "jsonl") == "jsonl":
            entry["count"] = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
    path.write_text(json.dumps(manifest))


def record_files(bundle: Path) -> list[Path]:
    return sorted(p for p in bundle.iterdir() if p.suffix == ".jsonl")


# -- the sqlite adapter in-process -------------------------------------------------------------------

_sqlite = None


def sqlite_adapter() -> Any:
    global _sqlite
    if _sqlite is None:
        from memdock.inprocess import load_adapter
        from memdock.registry import Registry

        _sqlite = load_adapter(Registry().get("sqlite"))
    return _sqlite


def index_in_process(bundle: Path, data_dir: Path, work_dir: Path) -> dict[str, Any]:
    """The response the sqlite adapter gives to `index` of BUNDLE, run by the SDK's own dispatch in this process."""
    from memdock.sdk.adapter import _dispatch, _Events

    data_dir.mkdir(parents=True, exist_ok=True)
    work_dir.mkdir(parents=True, exist_ok=True)
    request = build_request(
        "index", data_dir=str(data_dir), work_dir=str(work_dir), config={}, params={"bundle": str(bundle)}
    )
    return _dispatch(sqlite_adapter(), request, _Events(io.BytesIO(), worker=False))
