"""Running the `memdock` command line in a child process, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

CLEAN_PATH = "/usr/bin:/bin"
PROJECT_CONFIG = ("MEMDOCK_CONFIG", "MEMDOCK_TRUST_PROJECT_CONFIG")


def run_memdock(
    *args: str | os.PathLike[str],
    env: Mapping[str, str],
    cwd: Path | None = None,
    stdin: bytes | None = None,
    text: bool = True,
    timeout: float = 300,
) -> subprocess.CompletedProcess:
    """`python -m memdock ARGS` with exactly ENV, its output captured (str, or bytes when TEXT is false)."""
    return subprocess.run(
        [sys.executable, "-m", "memdock", *map(str, args)],
        capture_output=True,
        text=text,
        input=stdin,
        env=dict(env),
        cwd=cwd,
        timeout=timeout,
    )


def memdock(*args: str, home: Path, stdin: bytes | None = None, text: bool = True) -> subprocess.CompletedProcess:
    """The command as a new user runs it: nothing in the environment but MEMDOCK_HOME=HOME and a plain PATH."""
    return run_memdock(*args, env={"MEMDOCK_HOME": str(home), "PATH": CLEAN_PATH}, stdin=stdin, text=text)


def inherited_env(**overrides: str) -> dict[str, str]:
    """This process's environment without a project config (memdock.toml trust, MEMDOCK_CONFIG), plus OVERRIDES."""
    return {**{k: v for k, v in os.environ.items() if k not in PROJECT_CONFIG}, **overrides}
