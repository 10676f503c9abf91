"""The shepherd (runner/shepherd.py) passes the adapter's exit status through and runs a Python script inline
exactly as `python SCRIPT` would."""

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from memdock.runner.process import SHEPHERD, SHEPHERD_PROGRAM, shepherd_argv, spawn


def run(argv, *, python=False, tmp_path, module_path=()):
    proc = spawn(
        argv,
        env={"PATH": os.environ["PATH"]},
        cwd=tmp_path,
        writable=None,
        exit_grace=0,
        python=python,
        module_path=module_path,
    )
    out, err = proc.communicate(timeout=120)
    assert proc.survivors() == 0
    return proc, out, err


def test_python_scripts_run_inline_anything_else_is_execed(tmp_path):
    script = tmp_path / "a.py"
    script.write_text("")
    inline = shepherd_argv([sys.executable, "-I", str(script), "--worker"], True, "2", "1", "9")
    assert inline == [sys.executable, "-I", *SHEPHERD_PROGRAM, "2", "1", "9", "inline", "--", str(script), "--worker"]
    module = shepherd_argv(
        [sys.executable, "-I", "-m", "pkg", "--worker"], True, "2", "1", "9", module_path=["/a", "/b"]
    )
    assert module == [
        sys.executable,
        "-I",
        *SHEPHERD_PROGRAM,
        "2",
        "1",
        "9",
        "module",
        "/a:/b",
        "--",
        "pkg",
        "--worker",
    ]
    for argv, python in (
        ([sys.executable, "-X", "dev", str(script)], True),
        (["node", str(script)], False),
        ([sys.executable, "-m", "pkg"], False),
    ):
        assert shepherd_argv(argv, python, "2", "1", "9")[-len(argv) - 2 :] == ["exec", "--", *argv]


def test_a_package_runs_inline_as_python_m_would(tmp_path):
    """`-m PACKAGE`: its __main__ runs as __main__, with argv[0] its file, found through module_path (the adapter's
    python_path) and not through the shepherd's own folder; a sibling package on the path imports too."""
    (tmp_path / "folder" / "pkg").mkdir(parents=True)
    (tmp_path / "shared" / "helper").mkdir(parents=True)
    (tmp_path / "shared" / "helper" / "__init__.py").write_text("VALUE = 'from the shared folder'\n")
    (tmp_path / "folder" / "pkg" / "__init__.py").write_text("")
    main = tmp_path / "folder" / "pkg" / "__main__.py"
    main.write_text(
        f"RUNNER = {str(SHEPHERD.parent)!r}\n"
        "import json, sys\n"
        "import helper\n"
        "from . import __name__ as package\n"
        "print(json.dumps({'name': __name__, 'package': package, 'argv': sys.argv, 'helper': helper.VALUE,"
        " 'leaked': [n for n in ('main', 'shepherd', 'descendants') if n in globals()],"
        " 'shepherd_module': 'shepherd' in sys.modules, 'runner_on_path': RUNNER in sys.path}))\n"
        "raise SystemExit(4)\n"
    )
    proc, out, err = run(
        [sys.executable, "-I", "-m", "pkg", "--worker"],
        python=True,
        tmp_path=tmp_path,
        module_path=[tmp_path / "folder", tmp_path / "shared"],
    )
    assert proc.returncode == 4, err
    assert json.loads(out) == {
        "name": "__main__",
        "package": "pkg",
        "argv": [str(main), "--worker"],
        "helper": "from the shared folder",
        "leaked": [],
        "shepherd_module": False,
        "runner_on_path": False,
    }


@pytest.mark.parametrize("python", [True, False])
def test_inline_script_sees_what_python_script_would(tmp_path, python):
    script = tmp_path / "probe.py"
    script.write_text(
        f"RUNNER = {str(SHEPHERD.parent)!r}\n"
        "import json, sys\n"
        "print(json.dumps({'name': __name__, 'file': __file__, 'argv': sys.argv, 'path0': sys.path[0],"
        " 'leaked': [n for n in ('main', 'shepherd', 'descendants') if n in globals()],"
        " 'shepherd_module': 'shepherd' in sys.modules, 'runner_on_path': RUNNER in sys.path}))\n"
        "raise SystemExit(3)\n"
    )
    proc, out, _err = run([sys.executable, str(script), "x", "--y"], python=python, tmp_path=tmp_path)
    seen = json.loads(out)
    assert proc.returncode == 3
    assert seen == {
        "name": "__main__",
        "file": str(script),
        "argv": [str(script), "x", "--y"],
        "path0": str(tmp_path),
        "leaked": [],
        "shepherd_module": False,
        "runner_on_path": False,
    }


@pytest.mark.parametrize("python", [True, False])
def test_death_by_signal_is_passed_through(tmp_path, python):
    script = tmp_path / "die.py"
    script.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")
    proc, _out, _err = run([sys.executable, str(script)], python=python, tmp_path=tmp_path)
    assert proc.returncode == -signal.SIGTERM


def test_missing_program_is_exit_127_with_a_message(tmp_path):
    proc, _out, err = run(["/nonexistent/adapter-binary"], tmp_path=tmp_path)
    assert proc.returncode == 127
    assert b"memdock: cannot run /nonexistent/adapter-binary: No such file or directory" in err


def test_uncaught_exception_in_an_inline_script_exits_1_with_its_traceback(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text("raise RuntimeError('boom')\n")
    proc, _out, err = run([sys.executable, str(script)], python=True, tmp_path=tmp_path)
    assert proc.returncode == 1
    assert b"RuntimeError: boom" in err and str(Path(script)).encode() in err
