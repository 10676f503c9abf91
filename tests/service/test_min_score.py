"""min_score end to end: the CLI's --min-score and MCP's min_score over the real sqlite adapter."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from memdock import Memory

NOTES = ["The billing service retries webhooks with exponential backoff", "Billing runs nightly"]
QUERY = "billing webhooks exponential backoff"


def cli(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {"MEMDOCK_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "memdock", *args, "--data-dir", str(tmp_path / "store")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def stored(tmp_path) -> None:
    with Memory(data_dir=tmp_path / "store") as m:
        m.remember_many(NOTES)


def test_cli_min_score_keeps_only_hits_at_or_above_it(tmp_path):
    stored(tmp_path)
    loose = cli(tmp_path, "recall", QUERY, "--mode", "bm25", "--json")
    strict = cli(tmp_path, "recall", QUERY, "--mode", "bm25", "--min-score", "0.9", "--json")
    assert loose.returncode == 0 and strict.returncode == 0, loose.stderr + strict.stderr
    all_hits, kept = json.loads(loose.stdout)["hits"], json.loads(strict.stdout)["hits"]
    assert len(all_hits) == 2 and all_hits[0]["score"] == pytest.approx(1.0)
    assert [h["text"] for h in kept] == [all_hits[0]["text"]]


def test_cli_refuses_a_min_score_outside_zero_to_one(tmp_path):
    stored(tmp_path)
    bad = cli(tmp_path, "recall", QUERY, "--min-score", "2")
    assert bad.returncode != 0 and "--min-score must be a number between 0 and 1" in bad.stderr


def test_mcp_recall_takes_min_score(tmp_path):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from test_mcp import _is_error, data, session

    stored(tmp_path)

    async def script(s):
        loose = data(await s.call_tool("memory_recall", {"query": QUERY}))
        strict = data(await s.call_tool("memory_recall", {"query": QUERY, "min_score": 0.9}))
        bad = await s.call_tool("memory_recall", {"query": QUERY, "min_score": 3})
        return loose, strict, bad

    loose, strict, bad = asyncio.run(session("--data-dir", str(tmp_path / "store"))(script))
    assert len(loose["hits"]) == 2
    assert [h["text"] for h in strict["hits"]] == [loose["hits"][0]["text"]]
    assert _is_error(bad)
