"""Running the checks against one adapter and collecting a report."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..registry import AdapterDescriptor, Registry
from ..runner.backend import SubprocessBackend
from ..runner.store import Store


@dataclass
class CheckResult:
    name: str
    status: str  # pass | fail | skip
    detail: str = ""
    seconds: float = 0.0


@dataclass
class KitOptions:
    timeout: float = 120.0
    idle: float = 30.0
    config: dict = field(default_factory=dict)
    only: list[str] | None = None
    keep: bool = False
    resume_filler: int = 1500  # filler entries behind the golden ones in the resume check; fewer for backends that call an LLM per record
    sandbox: str = "writes"  # or "strict": every check except writes_confined runs with reads confined too


@dataclass
class Report:
    adapter: str
    results: list[CheckResult] = field(default_factory=list)
    sandbox: str = ""

    @property
    def ok(self) -> bool:
        return all(r.status != "fail" for r in self.results)

    def status_of(self, name: str) -> str:
        return next(r.status for r in self.results if r.name == name)

    def failed(self) -> list[str]:
        return [r.name for r in self.results if r.status == "fail"]


class Skip(Exception):
    pass


class Fail(Exception):
    pass


class Harness:
    """What the checks share: the adapter, scratch space, and every backend the kit opened."""

    def __init__(self, descriptor: AdapterDescriptor, options: KitOptions, root: Path):
        self.descriptor, self.options, self.root = descriptor, options, root
        self.home = root / "home"
        self.home.mkdir()
        self.secrets = {name: f"planted-secret-{name.lower()}-{os.getpid()}-7f3a9c" for name in descriptor.secret_env_names()}
        self.undeclared_secret = f"planted-undeclared-{os.getpid()}-c41d"
        self.backends: list[SubprocessBackend] = []
        self._n = 0
        self.caps = None

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.secrets)
        env["MEMDOCK_CONFORMANCE_UNDECLARED"] = self.undeclared_secret
        env["HOME"] = str(self.home)
        return env

    def backend(self, *, sandbox: bool = True, config: dict | None = None, store: Store | None = None) -> SubprocessBackend:
        self._n += 1
        b = SubprocessBackend(
            self.descriptor, store or Store(self.root / f"store-{self._n}"),
            config=self.options.config if config is None else config, env=self.env(), retries=0,
            timeouts={"idle": self.options.idle, **{op: self.options.timeout for op in (
                "capabilities", "healthcheck", "prepare", "index", "query", "search_nodes", "search_facts",
                "search_episodes", "get_node", "get_edge", "delete")}},
            sandbox=self.options.sandbox if sandbox else False,
        )
        self.backends.append(b)
        return b

    def call_records(self):
        for b in self.backends:
            yield from b.calls

    def store_dirs(self) -> list[Path]:
        return [b.store.root for b in self.backends]


def run_kit(
    adapter: str | os.PathLike[str] | AdapterDescriptor,
    options: KitOptions | None = None,
    *,
    registry: Registry | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
) -> Report:
    """Run every check (or options.only) against ADAPTER (a name, a folder, or a descriptor)."""
    from . import checks
    from ..runner import landlock

    options = options or KitOptions()
    descriptor = adapter if isinstance(adapter, AdapterDescriptor) else (registry or Registry.default()).get(adapter)
    root = Path(tempfile.mkdtemp(prefix=f"memdock-kit-{descriptor.name}-"))
    report = Report(descriptor.name, sandbox=landlock.strict_status() if options.sandbox == "strict" else landlock.status())
    h = Harness(descriptor, options, root)
    try:
        for name, fn in checks.CHECKS:
            if options.only and name not in options.only:
                continue
            t = time.monotonic()
            try:
                detail = fn(h) or ""
                res = CheckResult(name, "pass", detail)
            except Skip as s:
                res = CheckResult(name, "skip", str(s))
            except Fail as f:
                res = CheckResult(name, "fail", str(f))
            except Exception as exc:  # an adapter error where none was expected is a failure of that check
                res = CheckResult(name, "fail", f"{type(exc).__name__}: {exc}")
            res.seconds = time.monotonic() - t
            report.results.append(res)
            if on_result:
                on_result(res)
    finally:
        for b in h.backends:
            b.close()
        if not options.keep:
            shutil.rmtree(root, ignore_errors=True)
    return report
