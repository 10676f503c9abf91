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
