"""`memdock add`: import, chunk and index in one command, the same records as the three verbs, resumable and
idempotent; bad sources are refused before any store is touched."""

import json
from pathlib import Path

from support.cli import memdock

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "threads"


def test_add_indexes_what_the_three_verbs_index_and_only_changes_again(tmp_path):
    three = ["--data-dir", str(tmp_path / "three")]
    assert (
        memdock("import", str(FIXTURES), "-f", "watercooler", "-o", str(tmp_path / "c"), home=tmp_path).returncode == 0
    )
    assert memdock("chunk", str(tmp_path / "c"), "-o", str(tmp_path / "k"), home=tmp_path).returncode == 0
    by_three = json.loads(memdock("index", str(tmp_path / "k"), "--json", *three, home=tmp_path).stdout)

    one = ["--data-dir", str(tmp_path / "one")]
    first = memdock("add", str(FIXTURES), "-f", "watercooler", "--json", *one, home=tmp_path)
    assert first.returncode == 0, first.stderr
    added = json.loads(first.stdout)["details"]
    implied = {"edge": added["sent"].get("edge", 0) + added.get("implied_edges", 0)}  # sqlite derives those
    assert {**added["sent"], **implied} == by_three["details"]["sent"] and added.get("implied_edges")
    again = json.loads(memdock("add", str(FIXTURES), "-f", "watercooler", "--json", *one, home=tmp_path).stdout)
    assert sum(again["details"]["sent"].values()) == 0 and again["deleted"] == 0

    def top(store):
        out = memdock("recall", "thundering herd", "-n", "3", "--json", *store, home=tmp_path)
        return [h["id"] for h in json.loads(out.stdout)["hits"]]

    assert top(one) == top(three) and top(one)


def test_add_refuses_a_missing_source_and_a_wrong_format_without_touching_a_store(tmp_path):
    store = tmp_path / "store"
    missing = memdock("add", str(tmp_path / "nope"), "-f", "watercooler", "--data-dir", str(store), home=tmp_path)
    assert missing.returncode == 4 and "no such file or directory" in missing.stderr
    wrong = memdock("add", str(FIXTURES), "-f", "irc", "--data-dir", str(store), home=tmp_path)
    assert wrong.returncode == 4, wrong.stderr
    unknown = memdock("add", str(FIXTURES), "-f", "pdf", "--data-dir", str(store), home=tmp_path)
    assert unknown.returncode == 2 and "invalid choice" in unknown.stderr
    assert not store.exists(), "nothing was created"
