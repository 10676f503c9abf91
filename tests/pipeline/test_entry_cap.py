"""An entry over the importers' size cap is skipped with a warning naming file and line; under a raised cap, a
long entry with no newline chunks in memory bounded by the window, not by the entry."""

import json
import os
import subprocess
import sys
from pathlib import Path

from memdock.bundle import BundleReader
from memdock.chunking import Splitter
from memdock.chunking.splitter import MAX_CHARS_PER_TOKEN
from memdock.chunking.tokenizers import ApproxTokenizer

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    """This test's environment, read when it runs (the suite sets MEMDOCK_HOME after collection: an environment
    read at import made memdock's home the user's own, and left a seal key there)."""
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def memdock(*args, cwd):
    out = subprocess.run(
        [sys.executable, "-m", "memdock", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env(),
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_a_30_megabyte_single_line_entry_is_skipped_with_its_file_and_line(tmp_path):
    lines = [
        {"thread_id": "t", "id": "small-1", "body": "The release moves to Friday."},
        {"thread_id": "t", "id": "huge", "body": "word " * 6_000_000},
        {"thread_id": "t", "id": "small-2", "body": "The migration is done."},
    ]
    (tmp_path / "big.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = memdock("import", tmp_path / "big.jsonl", "-f", "jsonl", "-o", tmp_path / "corpus", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (
        "big.jsonl:2: entry entry:huge is 30,000,000 bytes, over the 5,000,000-byte limit (--max-entry-bytes); skipped"
    ) in out.stderr
    ids = [e["id"] for e in BundleReader(tmp_path / "corpus").records("entry")]
    assert ids == ["entry:small-1", "entry:small-2"]


def test_the_cap_applies_to_every_format_with_its_own_line(tmp_path):
    (tmp_path / "notes.md").write_text("# Small\n\nfine\n\n# Large\n\n" + "x" * 2_000 + "\n")
    out = memdock(
        "import",
        tmp_path / "notes.md",
        "-f",
        "text",
        "-o",
        tmp_path / "corpus",
        "--max-entry-bytes",
        "1000",
        cwd=tmp_path,
    )
    assert (
        out.returncode == 0 and "notes.md:5: entry entry:" in out.stderr and "over the 1,000-byte limit" in out.stderr
    )
    assert [e.get("title") for e in BundleReader(tmp_path / "corpus").records("entry")] == ["Small"]


def test_a_cap_below_one_byte_is_refused(tmp_path):
    out = memdock(
        "import",
        ROOT / "fixtures" / "threads",
        "-f",
        "watercooler",
        "-o",
        tmp_path / "c",
        "--max-entry-bytes",
        "0",
        cwd=tmp_path,
    )
    assert out.returncode == 4 and "--max-entry-bytes must be an integer from 1 to 67,108,864, got 0" in out.stderr


def _peak_chunk_rss_kb(corpus: Path, out: Path) -> int:
    """Peak RSS of a `memdock chunk` process, read as RUSAGE_CHILDREN by a small wrapper that starts it (so the
    child does not inherit the test process's memory)."""
    wrapper = (
        "import resource, subprocess, sys; "
        "subprocess.run([sys.executable, '-m', 'memdock', 'chunk', sys.argv[1], '-o', sys.argv[2], '-q'], check=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    run = subprocess.run(
        [sys.executable, "-c", wrapper, str(corpus), str(out)], capture_output=True, text=True, timeout=600, env=env()
    )
    assert run.returncode == 0, run.stderr
    return int(run.stdout.split()[-1])


def test_chunking_a_5_megabyte_entry_without_newlines_stays_bounded(tmp_path):
    size = 5_000_000
    body = ("ab,cd.ef;" * (size // 9 + 1))[:size]  # no whitespace at all: the splitter has to cut inside the run
    (tmp_path / "big.jsonl").write_text(json.dumps({"thread_id": "t", "id": "big", "body": body}) + "\n")
    (tmp_path / "tiny.jsonl").write_text(json.dumps({"thread_id": "t", "id": "tiny", "body": "hello world"}) + "\n")
    for name in ("big", "tiny"):
        out = memdock(
            "import",
            tmp_path / f"{name}.jsonl",
            "-f",
            "jsonl",
            "-o",
            tmp_path / f"{name}-corpus",
            "-q",
            "--max-entry-bytes",
            "6000000",
            cwd=tmp_path,
        )
        assert out.returncode == 0, out.stderr
    baseline = _peak_chunk_rss_kb(tmp_path / "tiny-corpus", tmp_path / "tiny-chunks")
    peak = _peak_chunk_rss_kb(tmp_path / "big-corpus", tmp_path / "big-chunks")
    # the entry itself is read and written through (a few copies of it); the chunker adds only window-sized pieces.
    # Before, this entry took 177 MB (baseline 34 MB): about 28 times its size.
    assert (peak - baseline) * 1024 <= 8 * size, f"peak {peak // 1024} MB, baseline {baseline // 1024} MB"
    chunks = list(BundleReader(tmp_path / "big-chunks").records("chunk"))
    assert "".join(c["text"] for c in chunks) == body, "windows without overlap here: they tile the entry"
    assert max(c["token_count"] for c in chunks) <= 900


def test_a_run_counted_as_one_token_is_still_cut_into_windows():
    text = "a" * 1_000_000
    windows = Splitter(ApproxTokenizer(), max_tokens=900, overlap=100).split(text)
    assert max(w.end - w.start for w in windows) <= 900 * MAX_CHARS_PER_TOKEN
    assert windows[0].start == 0 and windows[-1].end == len(text)
    assert all(a.end >= b.start for a, b in zip(windows, windows[1:])), "no gap between windows"
