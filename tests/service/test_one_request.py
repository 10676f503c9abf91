"""One typed request per operation, checked once at the front door: the same bad recall gets the same typed error
(category and words) from the Python API, the CLI (--json) and the MCP tool; only the field's name is spelt as
each door spells it (`limit`, `--limit/-n`)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from memdock import Memory
from memdock.errors import MemdockError

# (Python/MCP arguments, the CLI's argv for the same request)
BAD = {
    "limit 0": ({"query": "kettle", "limit": 0}, ["kettle", "-n", "0"]),
    "limit 1001": ({"query": "kettle", "limit": 1001}, ["kettle", "-n", "1001"]),
    "min_score 1.5": ({"query": "kettle", "min_score": 1.5}, ["kettle", "--min-score", "1.5"]),
    "min_score -0.5": ({"query": "kettle", "min_score": -0.5}, ["kettle", "--min-score=-0.5"]),
    "blank query": ({"query": "   "}, ["   "]),
    "unknown mode": ({"query": "kettle", "mode": "fuzzy"}, ["kettle", "--mode", "fuzzy"]),
    "since not a time": ({"query": "kettle", "since": "yesterday"}, ["kettle", "--since", "yesterday"]),
    "where not a scalar": ({"query": "kettle", "where": {"k": [[1]]}}, None),
    "where unknown operator": ({"query": "kettle", "where": {"k": {"$gt": 1}}}, None),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("one-request") / "store"
    with Memory(data_dir=folder) as memory:
        memory.remember("the kettle is descaled on Mondays")
    return folder


def _words(message: str) -> str:
    """The error's words after the field's name (the one part each door spells its own way)."""
    return message.split(" ", 1)[1]


def _python(store, arguments: dict) -> tuple[str, str]:
    args = dict(arguments)
    with Memory(data_dir=store) as memory, pytest.raises(MemdockError) as caught:
        memory.recall(args.pop("query"), **args)
    return caught.value.category, caught.value.message


@pytest.fixture(scope="module")
def mcp_errors(store):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from test_mcp import _is_error, _text, session

    async def script(s):
        out = {}
        for name, (arguments, _) in BAD.items():
            result = await s.call_tool("memory_recall", arguments)
            assert _is_error(result), (name, _text(result))
            said = _text(result).removeprefix("Error executing tool memory_recall: ")  # the SDK's wording
            category, _, message = said.partition(": ")
            out[name] = (category, message)
        return out

    return asyncio.run(session("--data-dir", str(store))(script))


@pytest.mark.parametrize("case", BAD)
def test_the_same_bad_recall_is_the_same_typed_error_at_every_door(store, mcp_errors, case):
    arguments, argv = BAD[case]
    category, message = _python(store, arguments)
    assert category in ("invalid_input", "unsupported"), message
    mcp_category, mcp_message = mcp_errors[case]
    assert (mcp_category, _words(mcp_message)) == (category, _words(message))
    if argv is None:  # the CLI's --where takes KEY=VALUE, so it cannot spell this request
        return
    out = subprocess.run(
        [sys.executable, "-m", "memdock", "recall", *argv, "--data-dir", str(store), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    error = json.loads(out.stdout)["error"]
    assert out.returncode == 4 and "Traceback" not in out.stderr, out.stderr
    assert (error["category"], _words(error["message"])) == (category, _words(message))
