"""A hostile adapter: it answers every request with a valid, empty result, and attacks the runner on the way.

Written against the wire protocol with the standard library only (no SDK), as an attacker would. The attack
is picked by --attack (one folder beside this file per attack); config fields tune it.

  tmp-symlink      plants .result.json.tmp-<pid> links (for every ancestor pid) to config.victim, and puts
                   the secret HOSTILE_TOKEN in its result, so the runner rewrites the result redacted
  result-symlink   result.json is a symlink to config.target
  result-fifo      result.json is a FIFO
  result-sparse    result.json is a sparse file of config.size bytes
  result-big       result.json is a valid result of about config.size bytes
  daemon           leaves a daemon (fork, setsid, fork, close fds) whose pid is in <data>/daemon.pid
  stdout-holder    leaves a child holding stdout and stderr open (pid in <data>/holder.pid), then exits 0
  stdout-flood     writes config.garbage_mb MB of short garbage lines and one line of config.long_bytes bytes
                   on stdout before its result (or, with config.fail, exits 7 without one)
  worker-big-line  (worker mode) answers with a result line of about config.size bytes
  plant-log        (worker mode) replaces the stderr.log in its work dir by a link to config.victim, for the
                   next worker to append to
"""

from __future__ import annotations

import json
import os
import sys
import time

ATTACK = sys.argv[sys.argv.index("--attack") + 1]


def response(request: dict, result: dict | None = None) -> dict:
    return {
        "protocol_version": "1.0",
        "request_id": request["request_id"],
        "operation": request["operation"],
        "ok": True,
        "result": result if result is not None else {"hits": [], "backend": "hostile"},
    }


def ancestors() -> list[int]:
    pids, pid = [], os.getppid()
    while pid > 1:
        pids.append(pid)
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        pid = int(stat[stat.rindex(b")") + 2 :].split()[1])
    return pids


def daemonize() -> int:
    """Start a daemon; return its pid (sent up a pipe before it closes every fd)."""
    r, w = os.pipe()
    if os.fork():
        os.close(w)
        with os.fdopen(r) as f:
            return int(f.read())
    os.close(r)
    os.setsid()
    if os.fork():
        os._exit(0)
    os.write(w, str(os.getpid()).encode())
    for fd in range(256):
        try:
            os.close(fd)
        except OSError:
            pass
    while True:
        time.sleep(3600)


def emit(event: dict) -> None:
    os.write(1, json.dumps(event).encode() + b"\n")


def one_shot(request_path: str) -> int:
    with open(request_path) as f:
        request = json.load(f)
    config, data, result = request.get("config", {}), request["data_dir"], request["result_path"]
    work = os.path.dirname(result)
    body = json.dumps(response(request))
    if ATTACK == "tmp-symlink":
        for pid in ancestors():
            os.symlink(config["victim"], os.path.join(work, f".result.json.tmp-{pid}"))
        body = json.dumps(response(request, {"hits": [], "backend": "hostile", "reason": os.environ["HOSTILE_TOKEN"]}))
    elif ATTACK == "result-symlink":
        os.symlink(config["target"], result)
        body = None
    elif ATTACK == "result-fifo":
        os.mkfifo(result)
        body = None
    elif ATTACK == "result-sparse":
        with open(result, "wb") as f:
            f.truncate(int(config["size"]))
        body = None
    elif ATTACK == "result-big":
        text = "x" * int(config["size"])
        body = json.dumps(response(request, {"hits": [], "backend": "hostile", "reason": text}))
    elif ATTACK == "daemon":
        with open(os.path.join(data, "daemon.pid"), "w") as f:
            f.write(str(daemonize()))
    elif ATTACK == "stdout-holder":
        child = os.fork()
        if child == 0:
            time.sleep(3600)
            os._exit(0)
        with open(os.path.join(data, "holder.pid"), "w") as f:
            f.write(str(child))
    elif ATTACK == "stdout-flood":
        block = b"garbage line\n" * 80_000  # 1,040,000 bytes
        for _ in range(int(config["garbage_mb"])):
            os.write(1, block)
        long_line = b"y" * (1 << 20)
        for _ in range(int(config["long_bytes"]) >> 20):
            os.write(1, long_line)
        os.write(1, b"\n")
        if config.get("fail"):
            os._exit(7)
    if body is not None:
        with open(result, "w") as f:
            f.write(body)
    emit({"event": "result", "path": result})
    return 0


def worker() -> int:
    for line in sys.stdin:
        request = json.loads(line)
        result = None
        if ATTACK == "worker-big-line":
            result = {"hits": [], "backend": "hostile", "reason": "x" * int(request["config"]["size"])}
        if ATTACK == "daemon":
            with open(os.path.join(request["data_dir"], "daemon.pid"), "w") as f:
                f.write(str(daemonize()))
        if ATTACK == "plant-log":
            sys.stderr.write("written by a worker\n")
            sys.stderr.flush()
            if not os.path.islink("stderr.log"):
                os.unlink("stderr.log")
                os.symlink(request["config"]["victim"], "stderr.log")
        emit({"event": "result", "request_id": request["request_id"], "response": response(request, result)})
    return 0


if __name__ == "__main__":
    sys.exit(worker() if "--worker" in sys.argv else one_shot(sys.argv[sys.argv.index("--request") + 1]))
