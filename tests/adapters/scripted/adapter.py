"""A test adapter that misbehaves on request: config.behavior picks what query (or index) does."""

import os
import subprocess
import sys
import time
from pathlib import Path

from memdock.errors import TransientError
from memdock.sdk import Adapter, Context, serve


class Scripted(Adapter):
    name = "scripted"
    version = "0.1.0"
    descriptor_path = Path(__file__).with_name("adapter.json")

    def capabilities(self, ctx):
        caps = super().capabilities(ctx)
        if ctx.config.get("protocols"):
            caps["protocol_versions"] = ctx.config["protocols"]
        return caps

    def healthcheck(self, ctx):
        return {"ok": True, "backend": self.name}

    def index(self, ctx):
        if ctx.config.get("behavior") == "checkpoint_then_hang_once":
            return self.checkpointing(ctx)
        self.query(ctx)
        return {"indexed": {}}

    def checkpointing(self, ctx):
        """Checkpoint the chunks 100 at a time; the first run (no marker yet) hangs after its first checkpoint
        until it is killed."""
        marker = ctx.data_dir / "marker-hung"
        first = not marker.exists()
        marker.write_text("1")
        (ctx.data_dir / "adapter.pid").write_text(str(os.getpid()))
        ids = [rec["id"] for rec in ctx.input_bundle().records("chunk")]
        for k in range(0, len(ids), 100):
            ctx.checkpoint(ids[k : k + 100])
            if first:
                time.sleep(1000)
        return {"indexed": {"records": len(ids)}}

    def delete(self, ctx):
        self.query(ctx)
        return {"deleted": [], "not_found": list(ctx.params.get("ids", []))}

    def query(self, ctx: Context):
        b = ctx.config.get("behavior", "ok")
        secs = float(ctx.config.get("seconds", 1))
        marker = ctx.data_dir / f"marker-{b}"
        if b == "spawn_and_hang":
            child = subprocess.Popen(["sleep", "1000"])
            (ctx.data_dir / "grandchild.pid").write_text(str(child.pid))
            (ctx.data_dir / "adapter.pid").write_text(str(os.getpid()))
            time.sleep(1000)
        if b == "silent":
            time.sleep(secs)
        if b == "slow_progress":
            end = time.monotonic() + secs
            i = 0
            while time.monotonic() < end:
                i += 1
                ctx.progress(i)
                time.sleep(0.2)
        if b == "exit0_no_result":
            os._exit(0)
        if b == "bad_schema":
            return {"hits": [{"id": "x", "kind": "chunk"}]}
        if b == "stderr_flood":
            block = b"x" * 65536 + b"\n"
            for _ in range(int(secs)):
                sys.stderr.buffer.write(block)
            sys.stderr.flush()
            os._exit(7)
        if b == "echo_secret":
            token = os.environ.get("SCRIPTED_TOKEN", "")
            sys.stderr.write(f"token is {token}\n")
            raise TransientError(f"auth failed with {token}", retryable=False)
        if b == "stray":
            ctx._out.stream.write(b"hello from a library\n")
        if b == "transient_once" and not marker.exists():
            marker.write_text("1")
            raise TransientError("flaky backend")
        if b == "crash_once" and not marker.exists():
            marker.write_text("1")
            os._exit(1)
        if b == "exit_4":
            os._exit(4)
        if b == "write_outside":
            Path(os.environ["HOME"], "scripted-outside.txt").write_text("x")
        if b == "report_env":
            return {"hits": [], "backend": self.name, "reason": ",".join(sorted(os.environ))}
        return {"hits": [], "backend": self.name}


if __name__ == "__main__":
    serve(Scripted())
