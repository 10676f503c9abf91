"""serve() ends an adapter's process without the interpreter's teardown, but after everything Python promises
at exit: the threading module's exit hooks (a ThreadPoolExecutor's workers), threads that are not daemons, the
atexit handlers, and the standard streams flushed (also the original stdout, which a logger may have kept; the SDK
points its fd at stderr)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from memdock.protocol import build_request

PROGRAM = textwrap.dedent(
    """
    import atexit, os, sys, threading
    from concurrent.futures import ThreadPoolExecutor
    from memdock.sdk import Adapter, serve

    OUT = sys.argv[sys.argv.index("--out") + 1]

    def mark(name):
        with open(os.path.join(OUT, name), "w") as f:
            f.write(name)

    class Probe(Adapter):
        def healthcheck(self, ctx):
            self.closed = threading.Event()
            threading.Thread(target=lambda: (self.closed.wait(), mark("thread"))).start()
            self.pool = ThreadPoolExecutor(1)
            self.pool.submit(lambda: (self.closed.wait(), mark("pool")))
            atexit.register(mark, "atexit")
            print("printed without a newline", end="", file=sys.__stdout__)
            return {"ok": True, "backend": "probe", "checks": {}}

        def close(self):
            if hasattr(self, "closed"):
                self.closed.set()

    serve(Probe())
    """
)


@pytest.mark.parametrize("mode", ["one-shot", "worker"])
def test_exit_hooks_threads_and_streams_are_done_before_the_process_ends(tmp_path, mode):
    program = tmp_path / "probe.py"
    program.write_text(PROGRAM)
    out = tmp_path / "out"
    out.mkdir()
    request = build_request(
        "healthcheck",
        data_dir=str(tmp_path),
        work_dir=str(tmp_path),
        config={},
        params={},
        result_path=str(tmp_path / "result.json"),
    )
    (tmp_path / "request.json").write_text(json.dumps(request))
    args = ["--request", str(tmp_path / "request.json")] if mode == "one-shot" else ["--worker"]
    proc = subprocess.run(
        [sys.executable, str(program), *args, "--out", str(out)],
        input=json.dumps(request) + "\n" if mode == "worker" else "",
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},  # buffered, as outside the runner
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["atexit", "pool", "thread"]
    assert proc.stderr.endswith("printed without a newline")
    if mode == "one-shot":
        assert json.loads((tmp_path / "result.json").read_text())["ok"] is True
    else:
        assert '"ok":true' in proc.stdout
