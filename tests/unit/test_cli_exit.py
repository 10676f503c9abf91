"""The `memdock` program ends as an adapter does (`memdock.exiting.end`): after the atexit handlers, the threads
that are not daemons and the flushed streams, without the interpreter's teardown (objects still alive are not
finalized one by one); its exit code is main's, and an exception main lets out ends it as Python would."""

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent(
    """
    import atexit, os, sys, threading
    out = sys.argv[1]
    sys.argv = ["memdock", *sys.argv[2:]]

    def mark(name):
        with open(os.path.join(out, name), "w") as f:
            f.write(name)

    class Finalized:
        def __del__(self):
            mark("finalized")

    alive = Finalized()
    atexit.register(mark, "atexit")
    threading.Thread(target=lambda: (__import__("time").sleep(0.2), mark("thread"))).start()
    print("printed without a newline", end="")
    from memdock.cli.main import run
    run()
    """
)


def _run(tmp_path, *argv):
    return subprocess.run([sys.executable, "-c", PROGRAM, str(tmp_path), *argv], capture_output=True, text=True)


def test_the_program_ends_after_what_python_promises_without_the_teardown(tmp_path):
    done = _run(tmp_path, "--version")
    assert done.returncode == 0
    assert done.stdout.startswith("printed without a newline") and "memdock " in done.stdout
    assert (tmp_path / "atexit").exists() and (tmp_path / "thread").exists()
    assert not (tmp_path / "finalized").exists()  # the teardown would have finalized it


def test_the_exit_code_is_mains(tmp_path):
    done = _run(tmp_path, "status", "--data-dir", str(tmp_path / "no-such-store"))
    assert done.returncode not in (0, None)
    assert (tmp_path / "atexit").exists()


def test_python_m_memdock_runs_it(tmp_path):
    done = subprocess.run([sys.executable, "-m", "memdock", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("memdock ")


def test_output_that_cannot_be_written_at_the_end_fails_the_program_as_python_does(tmp_path):
    """stdout block-buffered to a full disk: the write fails only at the last flush. Python's teardown then says so
    on stderr and exits 120; swallowing it would report success with the output lost (`memdock export > f`)."""
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-c", PROGRAM, str(tmp_path), "--version"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    assert done.returncode == 120
    assert "No space left on device" in done.stderr
