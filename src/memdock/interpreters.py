"""Which Python runs an adapter: adapter.json `runtime.python`, a version range, matched against the interpreters
this machine has.

Candidates, in the order they are tried (the first one in range wins): the paths listed under
`python_interpreters` in memdock.toml, the interpreter running memdock, `python3.N`/`python3`/`python` on PATH,
then every `versions/*/bin/python` under pyenv's root (PYENV_ROOT, else `pyenv root`, else ~/.pyenv). Each is asked
for its version once per process. When none is in range the error names the range and every place looked at, with
what was found there.

A range is comma-separated clauses, each an operator (`>=`, `>`, `<=`, `<`, `==`, `!=`, `~=`) and a version, where
`==`/`!=` may end in `.*`; a bare version means `==` that version's series (`3.13` is `==3.13.*`). This is the
subset of PEP 440 that names Python versions; the core may not depend on `packaging`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from .config import check_project_config, config_file, load_file
from .errors import ConfigError

Version = tuple[int, ...]
_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|~=|>|<)?\s*(\d+(?:\.\d+)*)(\.\*)?\s*$")
_PROBE = "import sys; print('.'.join(map(str, sys.version_info[:3]))); print(sys.executable)"


@dataclass(frozen=True)
class Clause:
    op: str
    version: Version
    wildcard: bool

    def accepts(self, v: Version) -> bool:
        if self.op in ("==", "!="):
            n = len(self.version)
            same = v[:n] == self.version if self.wildcard else _pad(v, n) == _pad(self.version, len(v))
            return same if self.op == "==" else not same
        if self.op == "~=":
            return v >= self.version and v[: len(self.version) - 1] == self.version[:-1]
        padded = _pad(self.version, len(v))
        return {">=": v >= padded, ">": v > padded, "<=": v <= padded, "<": v < padded}[self.op]


def _pad(v: Version, n: int) -> Version:
    return v + (0,) * (n - len(v))


def parse_range(text: str, where: str = "runtime.python") -> list[Clause]:
    """The clauses of a version range; a ConfigError naming WHERE and the bad clause otherwise."""
    clauses = []
    for part in text.split(","):
        m = _CLAUSE.match(part)
        if not m or (m.group(3) and m.group(1) not in (None, "==", "!=")):
            raise ConfigError(
                f"{where}: {part.strip()!r} in {text!r} is not a version clause (e.g. '>=3.13', '<3.14', '==3.12.*')"
            )
        version = tuple(int(x) for x in m.group(2).split("."))
        if m.group(1) == "~=" and len(version) < 2:
            raise ConfigError(f"{where}: '~=' needs at least two version parts, got {part.strip()!r}")
        op = m.group(1) or "=="
        clauses.append(Clause(op, version, bool(m.group(3)) or m.group(1) is None))
    return clauses


def parse_version(text: str) -> Version:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def in_range(version: str | Version, spec: str | None) -> bool:
    if not spec:
        return True
    v = parse_version(version) if isinstance(version, str) else version
    return all(c.accepts(v) for c in parse_range(spec))


@dataclass(frozen=True)
class Interpreter:
    path: str
    version: str
    source: str

    def describe(self) -> str:
        return f"Python {self.version} at {self.path} ({self.source})"


@cache
def probe(path: str) -> tuple[str, str] | None:
    """(version, sys.executable) of the interpreter at PATH, or None when it does not run."""
    try:
        out = subprocess.run([path, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = out.stdout.split()
    if out.returncode != 0 or len(lines) != 2:
        return None
    return lines[0], lines[1] or path


def pyenv_root(env: Mapping[str, str] = os.environ) -> Path | None:
    if env.get("PYENV_ROOT"):
        return Path(env["PYENV_ROOT"]).expanduser()
    exe = shutil.which("pyenv", path=env.get("PATH"))
    if exe:
        try:
            out = subprocess.run([exe, "root"], capture_output=True, text=True, timeout=30)
            if out.returncode == 0 and out.stdout.strip():
                return Path(out.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    home = Path.home() / ".pyenv"
    return home if home.is_dir() else None


def configured(env: Mapping[str, str] = os.environ) -> tuple[str, list[str]]:
    """(where, paths) of memdock.toml's `python_interpreters`."""
    path = config_file(env)
    cfg = load_file(path)
    check_project_config(path, cfg, env)
    listed = cfg.get("python_interpreters", [])
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise ConfigError(f"{path}: python_interpreters must be a list of interpreter paths")
    return f"{path} python_interpreters" if path else "memdock.toml python_interpreters (no memdock.toml)", listed


@dataclass
class Search:
    """Where candidates come from, kept so a refusal can say where memdock looked."""

    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    looked: dict[str, list[str]] = field(default_factory=dict)

    def _places(self) -> Iterator[tuple[str, list[str]]]:
        where, listed = configured(self.env)
        yield where, [str(Path(p).expanduser()) for p in listed]
        yield "the interpreter running memdock", [sys.executable]
        dirs = [d for d in self.env.get("PATH", "").split(os.pathsep) if d]
        names = [f"python3.{n}" for n in range(20, 7, -1)] + ["python3", "python"]
        yield "PATH", [str(Path(d) / n) for d in dirs for n in names if (Path(d) / n).is_file()]
        root = pyenv_root(self.env)
        versions = sorted((root / "versions").glob("*/bin/python")) if root else []
        yield f"pyenv ({root / 'versions' if root else 'no pyenv root'})", [str(p) for p in versions]

    def candidates(self) -> Iterator[Interpreter]:
        for where, paths in self._places():
            seen = self.looked.setdefault(where, [])
            for p in paths:
                found = probe(p)
                seen.append(f"{p}: Python {found[0]}" if found else f"{p}: does not run")
                if found:
                    yield Interpreter(found[1] if Path(found[1]).is_file() else p, found[0], where)

    def find(self, spec: str | None, who: str) -> Interpreter:
        """The first candidate in SPEC; a ConfigError naming WHO, the range and every place looked otherwise."""
        for interp in self.candidates():
            if in_range(interp.version, spec):
                return interp
        lines = [f"  {where}: {'; '.join(seen) or 'nothing'}" for where, seen in self.looked.items()]
        raise ConfigError(
            f"{who} needs Python {spec} (adapter.json runtime.python) and no interpreter in that range was found. "
            "Looked at:\n" + "\n".join(lines) + "\nInstall one (e.g. `pyenv install 3.13`) or list its path under "
            "python_interpreters in memdock.toml"
        )


def running() -> Interpreter:
    return Interpreter(sys.executable, ".".join(map(str, sys.version_info[:3])), "the interpreter running memdock")


def find_interpreter(spec: str | None, who: str, env: Mapping[str, str] = os.environ) -> Interpreter:
    """The interpreter for WHO's runtime.python SPEC; without one, the interpreter running memdock (not probed)."""
    if not spec:
        return running()
    parse_range(spec, f"{who}: adapter.json runtime.python")
    return Search(env).find(spec, who)
