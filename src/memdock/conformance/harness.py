"""What a conformance check works with: the adapter, scratch space, planted secrets, and the backends it opens.

A Session lives for one run of the kit over one adapter. Each check gets its
own Harness on that session: the backends it opens, and so the calls it can
judge, are its own. What several checks may share (the capabilities answer, a
full exercise of the adapter) is built on demand by `Harness.shared`, so a
check run alone builds it itself and never judges calls that did not happen.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..contract import Capabilities
from ..engine.store import Store
from ..operations import OPERATIONS
from ..registry import AdapterDescriptor
from ..runner.backend import SubprocessBackend
from ..runner.launch import CallRecord

T = TypeVar("T")


class Skip(Exception):
    """The check does not apply to this adapter; the message says why."""


class Fail(Exception):
    """The adapter broke the contract; the message says how."""


@dataclass
class KitOptions:
    timeout: float = 120.0
    idle: float = 30.0
    config: dict[str, Any] = field(default_factory=dict)
    only: list[str] | None = None
    keep: bool = False
    # filler entries behind the golden ones in the resume check; fewer for backends that call an LLM per record
    resume_filler: int = 1500
    sandbox: str = "writes"  # or "strict": every check except writes_confined runs with reads confined too


class Session:
    """One kit run over one adapter: a scratch root, planted secrets, and what checks share."""

    def __init__(self, descriptor: AdapterDescriptor, options: KitOptions):
        self.descriptor, self.options = descriptor, options
        self.root = Path(tempfile.mkdtemp(prefix=f"memdock-kit-{descriptor.name}-"))
        self.home = self.root / "home"
        self.home.mkdir()
        self.secrets = {
            name: f"planted-secret-{name.lower()}-{os.getpid()}-7f3a9c" for name in descriptor.secret_env_names()
        }
        self.undeclared_secret = f"planted-undeclared-{os.getpid()}-c41d"
        self.shared: dict[str, Any] = {}
        self.stores = 0

    def new_store(self) -> Store:
        self.stores += 1
        return Store(self.root / f"store-{self.stores}")

    def close(self) -> None:
        if not self.options.keep:
            shutil.rmtree(self.root, ignore_errors=True)


class Harness:
    """One check's view of a Session. Backends opened here are closed when the check ends."""

    def __init__(self, session: Session):
        self.session = session
        self.descriptor, self.options, self.root, self.home = (
            session.descriptor,
            session.options,
            session.root,
            session.home,
        )
        self.secrets, self.undeclared_secret = session.secrets, session.undeclared_secret
        self.backends: list[SubprocessBackend] = []

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.secrets)
        env["MEMDOCK_CONFORMANCE_UNDECLARED"] = self.undeclared_secret
        env["HOME"] = str(self.home)
        return env

    def backend(
        self,
        *,
        sandbox: bool = True,
        config: dict[str, Any] | None = None,
        store: Store | None = None,
        workers: int = 0,
    ) -> SubprocessBackend:
        """A backend on a fresh store (or STORE), one-shot unless WORKERS > 0."""
        b = SubprocessBackend(
            self.descriptor,
            store or self.session.new_store(),
            config=self.options.config if config is None else config,
            env=self.env(),
            retries=0,
            retry_crashed=False,
            workers=workers,
            timeouts={"idle": self.options.idle, **{op: self.options.timeout for op in OPERATIONS}},
            sandbox=self.options.sandbox if sandbox else False,
        )
        self.backends.append(b)
        return b

    @contextmanager
    def reader(self, store: Store) -> Iterator[SubprocessBackend]:
        """A backend on STORE whose reads share one worker (one-shot where the adapter runs none), closed when the
        block ends. Opened after a write and closed before the next, it reads what the write left on disk, as a
        one-shot call would, for one process start instead of one per question (an adapter's start is seconds
        where it imports an LLM framework). stdout_clean and no_survivors judge one-shot and worker calls alike."""
        b = self.backend(store=store, workers=1 if self.descriptor.supports_worker else 0)
        try:
            yield b
        finally:
            b.close()

    def call_records(self) -> Iterator[CallRecord]:
        """Every call this check's backends made (one-shot and worker)."""
        for b in self.backends:
            yield from b.calls

    def store_dirs(self) -> list[Path]:
        return [b.store.root for b in self.backends]

    def capabilities(self) -> Capabilities:
        """The adapter's capabilities, asked once per session (for skip decisions; `handshake` asks afresh)."""
        return self.shared("capabilities", lambda h: h.backend().get_capabilities())

    def shared(self, key: str, build: Callable[[Harness], T]) -> T:
        """What BUILD returns, built once per session on a Harness of its own (its backends are closed once built;
        their stores stay until the session ends)."""
        if key not in self.session.shared:
            fixture = Harness(self.session)
            try:
                self.session.shared[key] = build(fixture)
            finally:
                fixture.close()
        built: T = self.session.shared[key]
        return built

    def close(self) -> None:
        for b in self.backends:
            b.close()
