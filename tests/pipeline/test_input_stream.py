"""`memdock add` with its adapter reading the delta on stdin while the pass still makes it (`engine/stream.py`):
the same store as the adapter reading the sealed segment after the pass; and what is left when the adapter dies
mid-stream, when the pass refuses a record after the adapter started, and after kill -9 of the pass mid-stream
(then a re-run: every record exactly once)."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.answers import answers as said
from support.cli import memdock, run_memdock

from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

N = 3000
QUERIES = ("Paris and Rome", "note 1234", "Rome")

# Runs `memdock add` in this process; once WRITES batches of lines went to the adapter's stdin, notes the
# adapter's process group, then `adapter` kills the adapter, `parent` kills this process (kill -9), `bad` lets
# the pass go on (to the record it refuses).
RUN = """
import os, select, signal, sys
from memdock.cli.main import main
from memdock.engine import stream as S

point, pidfile, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
write, calls = S.InputStream.write_lines, []

def counted(self, rtype, lines):
    calls.append(1)
    if len(calls) == int(os.environ["WRITES"]):
        self.open()  # the adapter starts at the first lines
        with open(pidfile, "w") as f:
            f.write(str(self.pid))
        if point == "adapter":
            os.killpg(self.pid, signal.SIGKILL)
            # until its stdin's read end is closed (POLLERR): the writes that follow must find it gone, not fill
            # the pipe's buffer in the moment the killed process takes to exit (the input would then be whole and
            # the failed call retried with the sealed segment, as it should be)
            poll = select.poll()
            poll.register(self._pipe.fileno(), select.POLLOUT)
            while not any(ev & select.POLLERR for _, ev in poll.poll()):
                pass
        elif point == "parent":
            os.kill(os.getpid(), signal.SIGKILL)
    write(self, rtype, lines)

S.InputStream.write_lines = counted
sys.exit(main(argv))
"""


def notes(path: Path, n: int, bad: int | None = None) -> Path:
    """N notes; the one at BAD nests past the limit (the pass refuses it)."""
    with open(path, "w") as f:
        for i in range(n):
            note = {"id": f"n{i:05d}", "thread": f"t{i // 25}", "text": f"note {i} on Paris and Rome"}
            if i == bad:
                note["deep"] = json.loads("[" * 100 + "]" * 100)
            f.write(json.dumps(note) + "\n")
    return path


def add(source: Path, store: Path, home: Path, *, stream: bool = True) -> dict:
    env = {"MEMDOCK_HOME": str(home), "PATH": "/usr/bin:/bin", "MEMDOCK_INDEX_STREAM": "1" if stream else "0"}
    done = run_memdock("add", source, "-f", "jsonl", "--data-dir", store, "--json", env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def interrupted(point: str, source: Path, store: Path, tmp_path: Path, writes: int) -> subprocess.CompletedProcess:
    args = ["add", str(source), "-f", "jsonl", "--data-dir", str(store), "-q"]
    env = {**os.environ, "WRITES": str(writes), "MEMDOCK_HOME": str(tmp_path / "home")}
    pidfile = tmp_path / "adapter.pid"
    run = [sys.executable, "-c", RUN, point, str(pidfile), *args]
    done = subprocess.run(run, start_new_session=True, env=env, timeout=600, capture_output=True, text=True)
    assert pidfile.exists(), "the adapter was started before the pass was done " + done.stderr
    gone(int(pidfile.read_text()))
    return done


def gone(pid: int, limit: float = 60.0) -> None:
    """The adapter's process group is gone (it ends at its input's end; the shepherd leaves nothing behind)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail(f"adapter process group {pid} outlived its run")


def answers(store: Path) -> dict:
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        return said(b, QUERIES)


def rows(store: Path) -> tuple[int, int]:
    with sqlite3.connect(store / "data" / "memory.sqlite") as db:
        return db.execute("SELECT count(*), count(DISTINCT id) FROM chunk_rows").fetchone()


def test_a_streamed_add_gives_the_store_an_add_from_the_sealed_segment_gives(tmp_path):
    source = notes(tmp_path / "notes.jsonl", N)
    streamed = add(source, tmp_path / "streamed", tmp_path / "home")
    sealed = add(source, tmp_path / "sealed", tmp_path / "home", stream=False)
    assert streamed["details"]["input_stream"] == sum(streamed["details"]["sent"].values())
    assert "input_stream" not in sealed["details"]
    assert streamed["indexed"] == sealed["indexed"] and streamed["details"]["sent"] == sealed["details"]["sent"]
    assert answers(tmp_path / "streamed") == answers(tmp_path / "sealed")
    again = add(notes(source, N + 100), tmp_path / "streamed", tmp_path / "home")  # a second streamed run
    assert again["skipped"] >= sum(streamed["details"]["sent"].values()) - 10 and again["details"]["input_stream"]
    assert answers(tmp_path / "streamed")["counts"]["entry"] == N + 100


def test_the_adapter_killed_mid_stream_fails_the_first_add_leaves_no_database_and_a_rerun_holds_each_once(tmp_path):
    source, store = notes(tmp_path / "notes.jsonl", N), tmp_path / "store"
    done = interrupted("adapter", source, store, tmp_path, writes=4)
    assert done.returncode != 0 and "sqlite" in done.stderr, done.stderr
    assert not (store / "data" / "memory.sqlite").exists(), "a first load is swapped in only when whole"
    # the killed adapter's half-loaded file (memory.sqlite.loading) is discarded by the next run
    assert answers(store)["counts"] == {}
    again = add(source, store, tmp_path / "home")
    assert answers(store)["counts"]["chunk"] == N and rows(store) == (N, N)
    assert again["skipped"] == 0 and again["details"]["bulk_load"]


def test_the_adapter_killed_mid_stream_of_a_second_add_leaves_the_ledger_as_it_was(tmp_path):
    home, store = tmp_path / "home", tmp_path / "store"
    source = notes(tmp_path / "notes.jsonl", N)
    add(source, store, home)
    before = answers(store)["counts"]
    notes(source, 2 * N)
    done = interrupted("adapter", source, store, tmp_path, writes=4)
    assert done.returncode != 0, done.stderr
    assert answers(store)["counts"] == before
    assert rows(store) == (N, N), "the database holds what the ledger holds, no more"
    add(source, store, home)
    assert answers(store)["counts"]["chunk"] == 2 * N and rows(store) == (2 * N, 2 * N)


@pytest.mark.parametrize("first", [True, False])
def test_a_record_the_pass_refuses_after_the_adapter_started_leaves_the_store_as_the_ledger_says(tmp_path, first):
    home, store = tmp_path / "home", tmp_path / "store"
    source = notes(tmp_path / "notes.jsonl", N)
    if not first:
        add(source, store, home)
    before = answers(store)["counts"] if not first else {}
    notes(source, 2 * N, bad=2 * N - 50)
    done = interrupted("bad", source, store, tmp_path, writes=2)
    assert done.returncode == 4 and "64 levels deep" in done.stderr, done.stderr
    assert answers(store)["counts"] == before
    if first:
        assert not (store / "data" / "memory.sqlite").exists(), "a first load is swapped in only when whole"
        assert not [p for p in (store / "journal").iterdir()], "the refused run's segment is discarded"
    else:  # the records the adapter had read before the refusal are in neither ledger nor journal: nor the database
        assert rows(store) == (N, N)
    add(notes(source, 2 * N), store, home)
    assert answers(store)["counts"]["chunk"] == 2 * N and rows(store) == (2 * N, 2 * N)


@pytest.mark.parametrize("first", [True, False])
def test_kill_9_of_the_pass_mid_stream_then_add_again_holds_every_record_once(tmp_path, first):
    home, store = tmp_path / "home", tmp_path / "store"
    total = N if first else 2 * N
    source = notes(tmp_path / "notes.jsonl", N)
    if not first:
        add(source, store, home)
    notes(source, total)
    killed = interrupted("parent", source, store, tmp_path, writes=6)
    assert killed.returncode == -signal.SIGKILL
    if not first:
        assert rows(store) == (N, N), "a stream cut short leaves the database as the ledger says"
    again = add(source, store, home)
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        counts = b.counts()
        assert counts["entry"] == total and counts["chunk"] == total, counts
        assert again["skipped"] + sum(again["details"]["sent"].values()) == sum(counts.values())
        out = b.export(tmp_path / "out")  # its edges implied by entries are no ledger rows
        held = {t: n - (out.derived if t == "edge" else 0) for t, n in out.counts.items()}
        assert {t: n for t, n in held.items() if n} == counts
    assert rows(store) == (total, total)
    rerun = memdock("add", str(source), "-f", "jsonl", "--data-dir", str(store), home=home)
    assert "unchanged since the last add" in rerun.stdout, rerun.stdout + rerun.stderr


def test_a_second_add_refused_late_leaves_no_record_in_the_database_that_ledger_and_journal_lack(tmp_path):
    """The adapter has committed groups of the stream by the time the pass refuses a record near its end: they
    must not stay in the database (searchable, and never pruned) while the ledger and journal know nothing of
    them."""
    home, store = tmp_path / "home", tmp_path / "store"
    source = notes(tmp_path / "notes.jsonl", N)
    add(source, store, home)
    notes(source, 4 * N, bad=4 * N - 10)
    done = interrupted("bad", source, store, tmp_path, writes=2)
    assert done.returncode == 4, done.stderr
    assert rows(store) == (N, N)
    assert not said_about(store, "note 7777")
    add(notes(source, N), store, home)
    assert rows(store) == (N, N)


def said_about(store: Path, query: str) -> list[str]:
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        return [h.text for h in b.query(query, limit=3).hits if "note 7777 " in h.text]
