"""The progress display, seen through a real terminal (a pty): percent, rate and ETA that move within one
large file; nothing of it off a terminal."""

import json
import os
import pty
import re
import select
import subprocess
import sys

from memdock.cli.output import Progress


def big_jsonl(path, entries: int) -> None:
    with open(path, "w") as f:
        for i in range(entries):
            text = f"note {i} about the kite festival " * 8
            row = {"id": f"m{i}", "thread": f"t{i // 50}", "author": "a", "time": "2025-01-01T00:00:00Z", "text": text}
            f.write(json.dumps(row) + "\n")


def on_a_terminal(argv: list[str], env: dict) -> tuple[int, str]:
    """Run ARGV with stdout and stderr on a pty; everything it drew, and its exit status."""
    main, child = pty.openpty()
    proc = subprocess.Popen(argv, stdout=child, stderr=child, stdin=subprocess.DEVNULL, env=env, close_fds=True)
    os.close(child)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            proc.kill()
            raise AssertionError(f"no output for 120 s; so far: {bytes(seen[-500:])!r}")
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    return proc.wait(timeout=120), seen.decode(errors="replace")


def test_import_progress_moves_within_one_file_on_a_terminal(tmp_path):
    source = tmp_path / "big.jsonl"
    big_jsonl(source, 60_000)
    env = {"MEMDOCK_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "TERM": "xterm"}
    code, drawn = on_a_terminal(
        [sys.executable, "-m", "memdock", "import", str(source), "-f", "jsonl", "-o", str(tmp_path / "corpus")], env
    )
    assert code == 0, drawn
    frames = [f for f in drawn.split("\r") if f.strip().startswith("\x1b[2Kimporting:")]
    percents = sorted({float(m) for f in frames for m in re.findall(r"(\d+\.\d)%", f)})
    assert len(percents) >= 3 and percents[0] < 100.0, f"the bar moved within the one file: {frames[:5]}"
    assert any("MB/s" in f and "ETA" in f for f in frames), frames[:5]
    assert "imported 1 file(s)" in drawn


def test_no_progress_off_a_terminal(tmp_path):
    source = tmp_path / "big.jsonl"
    big_jsonl(source, 2_000)
    out = subprocess.run(
        [sys.executable, "-m", "memdock", "import", str(source), "-f", "jsonl", "-o", str(tmp_path / "corpus")],
        capture_output=True,
        text=True,
        env={"MEMDOCK_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert out.returncode == 0 and "\r" not in out.stderr and "%" not in out.stderr


def test_the_line_says_percent_amount_rate_and_eta():
    bar = Progress("indexing", unit="records")
    assert bar.line(250, 1000, 5.0) == "indexing:  25.0% 250 records/1,000 records · 50 records/s · ETA 15s"
    assert bar.line(1000, 1000, 5.0) == "indexing: 100.0% 1,000 records/1,000 records · 200 records/s"
    assert bar.line(7, None, 2.0, "a.md") == "indexing: 7 records · 4 records/s a.md"
    assert Progress("importing", unit="B").line(3_000_000, 12_000_000, 60.0).endswith("· 0.1 MB/s · ETA 3m00s")


def test_the_first_frames_show_no_eta_until_the_rate_means_something():
    from memdock.cli.output import Progress

    bar = Progress("indexing", total=1_000_000, quiet=True)
    assert "ETA" not in bar.line(40, 1_000_000, 0.002)
    assert "ETA" not in bar.line(5_000, 1_000_000, 3.0), "0.5% done: too little to tell"
    assert "ETA 10s" in bar.line(500_000, 1_000_000, 10.0)


def test_a_silent_bar_gives_the_import_no_progress_to_follow(tmp_path, monkeypatch):
    """`memdock add` off a terminal, or with -q, gives its import no on_bytes: the import then neither counts each
    file's lines nor looks at each thread's entries for a bar that draws nothing; on a terminal it does."""
    import argparse

    from memdock.cli import output
    from memdock.cli.pipeline import _feed
    from memdock.engine.sources import Plan

    args = argparse.Namespace(
        sources=[str(tmp_path)], format="jsonl", max_tokens=900, overlap=100, tokenizer="approx", header="auto"
    )
    quiet = Progress("importing", quiet=True)
    assert _feed(args, Plan("o"), quiet).on_bytes is None
    monkeypatch.setattr(output, "is_tty", lambda stream: True)
    drawn = Progress("importing")
    assert drawn.enabled and _feed(args, Plan("o"), drawn).on_bytes == drawn.update
