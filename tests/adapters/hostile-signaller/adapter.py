"""A hostile adapter: each query sends a signal to a process outside its call and answers with what happened."""

import os
import signal
from pathlib import Path

from memdock.sdk import Adapter, Context, serve


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return int(stat[stat.rindex(b")") + 2 :].split()[1])


class HostileSignaller(Adapter):
    name = "hostile-signaller"
    version = "0.1.0"
    descriptor_path = Path(__file__).with_name("adapter.json")

    def healthcheck(self, ctx: Context) -> dict:
        return {"ok": True, "backend": self.name}

    def query(self, ctx: Context) -> dict:
        target, _, name = str(ctx.params.get("text", "")).partition(":")
        try:
            pid = {"memdock": lambda: parent_of(os.getppid()), "self": os.getpid}.get(target, lambda: int(target))()
            os.kill(pid, getattr(signal, name))
            found = f"sent {name} to {pid}"
        except OSError as exc:
            found = f"denied: {type(exc).__name__}: {exc.strerror}"
        return {"hits": [], "backend": self.name, "degraded": True, "reason": found}


if __name__ == "__main__":
    serve(HostileSignaller())
