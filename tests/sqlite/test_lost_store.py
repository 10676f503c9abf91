"""The advised recovery for a corrupt memory.sqlite (move it aside, index again) restores the whole store from
its journal, on the real watercooler corpus, through the CLI (see `memdock.engine.lost`)."""

import json
import subprocess
from pathlib import Path

import pytest
from support.cli import inherited_env, run_memdock

CANARY = "zorblax kiln canary"


def memdock(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return run_memdock(*args, env=inherited_env(), cwd=cwd, timeout=600)


def ok(out: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return out


@pytest.fixture
def indexed(tmp_path, shared_data):
    """A store holding the real watercooler project threads and one remembered note (the canary)."""
    store = tmp_path / "store"
    sent = json.loads(
        ok(
            memdock(
                tmp_path,
                "add",
                "-q",
                "--json",
                str(shared_data / "watercooler_threads" / "project"),
                "--data-dir",
                str(store),
            )
        ).stdout
    )["details"]["sent"]
    ok(memdock(tmp_path, "remember", f"the {CANARY} fires at noon", "--data-dir", str(store)))
    assert CANARY in ok(memdock(tmp_path, "recall", CANARY, "--data-dir", str(store))).stdout
    return store, sent


def counts(tmp_path: Path, store: Path) -> dict:
    health = json.loads(ok(memdock(tmp_path, "health", "--json", "--data-dir", str(store))).stdout)
    return {k: health["checks"][k] for k in ("nodes", "chunks", "edges")}


def test_a_database_moved_aside_is_restored_from_the_journal(tmp_path, indexed, shared_data):
    store, sent = indexed
    before = counts(tmp_path, store)
    (store / "data" / "memory.sqlite").rename(tmp_path / "corrupt.sqlite")
    lost = json.loads(memdock(tmp_path, "recall", CANARY, "--json", "--data-dir", str(store)).stdout)
    assert lost["degraded"] and "restore it from the store's journal" in lost["reason"], lost
    out = ok(
        memdock(tmp_path, "add", "-q", str(shared_data / "watercooler_threads" / "project"), "--data-dir", str(store))
    )
    assert counts(tmp_path, store) == before
    assert CANARY in ok(memdock(tmp_path, "recall", CANARY, "--data-dir", str(store))).stdout
    assert "memory.sqlite is missing" in out.stderr and "sent again from the store's journal" in out.stderr
    again = ok(
        memdock(tmp_path, "add", "-q", str(shared_data / "watercooler_threads" / "project"), "--data-dir", str(store))
    )
    assert "journal" not in again.stderr and "unchanged since the last add" in again.stdout


def test_a_database_made_again_by_another_call_is_found_and_restored(tmp_path, indexed):
    """Moved aside, then a forget opened the store (making an empty memory.sqlite): still another file."""
    store, _ = indexed
    before = counts(tmp_path, store)
    (store / "data" / "memory.sqlite").rename(tmp_path / "corrupt.sqlite")
    memdock(tmp_path, "forget", "entry:nosuch", "--data-dir", str(store))
    (store / "data" / "memory.sqlite").touch()
    bundle = tmp_path / "note"
    ok(memdock(tmp_path, "import", "-f", "text", "-o", str(bundle), str(Path(__file__))))
    out = ok(memdock(tmp_path, "index", "-q", str(bundle), "--data-dir", str(store)))
    assert "not the file the indexed records went to" in out.stderr
    assert counts(tmp_path, store)["chunks"] >= before["chunks"]
    assert CANARY in ok(memdock(tmp_path, "recall", CANARY, "--data-dir", str(store))).stdout
