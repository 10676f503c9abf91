"""What the CLI says where a bare answer would mislead: a store that is empty or missing is named as such (not
`no results`), and `get node` prints its edges one per line (not a Python dict)."""

import json
from pathlib import Path

import pytest
from support.cli import memdock

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


@pytest.mark.parametrize("command", [["recall", "anything"], ["search", "facts", "anything"]])
def test_a_missing_or_empty_store_is_said_so(tmp_path, command):
    missing = memdock(*command, "--data-dir", str(tmp_path / "nowhere"), home=tmp_path)
    assert missing.returncode == 3 and "there is no store at" in missing.stderr and "no results" not in missing.stdout
    assert not (tmp_path / "nowhere").exists(), "a query creates no store"
    (tmp_path / "empty").mkdir()
    empty = memdock(*command, "--data-dir", str(tmp_path / "empty"), "--json", home=tmp_path)
    answer = json.loads(empty.stdout)
    assert answer["hits"] == [] and answer["degraded"] and "is empty: nothing was added" in answer["reason"]


def test_get_node_prints_fields_and_edges_readably(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    assert memdock("add", str(FIXTURES), "-f", "watercooler", *store, home=tmp_path).returncode == 0
    found = json.loads(
        memdock("search", "episodes", "cache stampede", "-n", "1", "--json", *store, home=tmp_path).stdout
    )
    shown = memdock("get", "node", found["hits"][0]["id"], *store, home=tmp_path)
    assert shown.returncode == 0
    assert "{'" not in shown.stdout and "edges (" in shown.stdout
    assert any(line.strip().startswith(("-> mentions", "<- contains")) for line in shown.stdout.splitlines())
