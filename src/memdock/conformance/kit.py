"""Running the checks against one adapter and collecting a report."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..installs import install_state
from ..registry import AdapterDescriptor, Registry
from ..runner import landlock
from .checks import CHECKS
from .harness import Fail, Harness, KitOptions, Session, Skip

__all__ = ["CheckResult", "KitOptions", "Report", "check_names", "open_session", "run_check", "run_kit", "unavailable"]


@dataclass
class CheckResult:
    name: str
    status: str  # pass | fail | skip
    detail: str = ""
    seconds: float = 0.0


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


def check_names() -> list[str]:
    return [name for name, _ in CHECKS]


def unavailable(descriptor: AdapterDescriptor) -> str | None:
    """Why this adapter cannot run on this machine (its runtime is missing or not installed), or None."""
    kind = descriptor.runtime["kind"]
    if kind == "node" and not shutil.which("node"):
        return "Node.js is not installed"
    if kind == "python" and descriptor.runtime.get("requirements"):
        state = install_state(descriptor)
        if not state.ok:
            return f"{descriptor.name} {state.reason}; install it with: memdock adapters install {descriptor.name}"
    return None


def open_session(
    adapter: str | os.PathLike[str] | AdapterDescriptor,
    options: KitOptions | None = None,
    *,
    registry: Registry | None = None,
) -> Session:
    """A Session over ADAPTER (a name, a folder, or a descriptor); close() it to remove its scratch space."""
    descriptor = adapter if isinstance(adapter, AdapterDescriptor) else (registry or Registry.default()).get(adapter)
    return Session(descriptor, options or KitOptions())


def run_check(session: Session, name: str) -> CheckResult:
    """Run the check NAME on its own Harness; an unexpected adapter error fails it."""
    fn = dict(CHECKS)[name]
    h = Harness(session)
    t = time.monotonic()
    try:
        res = CheckResult(name, "pass", fn(h) or "")
    except Skip as s:
        res = CheckResult(name, "skip", str(s))
    except Fail as f:
        res = CheckResult(name, "fail", str(f))
    except Exception as exc:  # an adapter error where none was expected is a failure of that check
        res = CheckResult(name, "fail", f"{type(exc).__name__}: {exc}")
    finally:
        h.close()
    res.seconds = time.monotonic() - t
    return res


def run_kit(
    adapter: str | os.PathLike[str] | AdapterDescriptor,
    options: KitOptions | None = None,
    *,
    registry: Registry | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
) -> Report:
    """Run every check (or options.only) against ADAPTER (a name, a folder, or a descriptor)."""
    session = open_session(adapter, options, registry=registry)
    report = Report(
        session.descriptor.name,
        sandbox=landlock.strict_status() if session.options.sandbox == "strict" else landlock.status(),
    )
    try:
        for name in check_names():
            if session.options.only and name not in session.options.only:
                continue
            res = run_check(session, name)
            report.results.append(res)
            if on_result:
                on_result(res)
    finally:
        session.close()
    return report
