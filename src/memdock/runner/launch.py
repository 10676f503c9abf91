"""Everything needed to start one adapter process: argv, environment, writable dirs, secrets to redact."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..descriptor import AdapterDescriptor
from ..engine.store import Store
from ..errors import ConfigError
from ..installs import adapter_argv
from ..operations import DEFAULT_TIMEOUTS as OPERATION_TIMEOUTS
from ..operations import IDLE_TIMEOUT
from ..protocol import Event
from . import landlock
from .channel import DEFAULT_MAX_EVENT_BYTES
from .redact import Redactor
from .result_file import DEFAULT_MAX_RESULT_BYTES

DEFAULT_TIMEOUTS = {**OPERATION_TIMEOUTS, "idle": IDLE_TIMEOUT}
DEFAULT_EXIT_GRACE = 2.0


@dataclass
class CallRecord:
    """What the runner saw during one call, for reports and the conformance kit."""

    operation: str
    request_id: str
    pid: int | None = None
    seconds: float = 0.0
    exit_code: int | None = None
    quarantined: int = 0
    quarantine_samples: list[str] = field(default_factory=list)
    redactions: int = 0
    stderr_tail: str = ""
    work_dir: str | None = None
    events: int = 0
    checkpoints: int = 0
    mode: str = "one-shot"  # or "worker"
    overlong: int = 0  # stdout lines longer than the event cap, dropped
    dropped_bytes: int = 0  # bytes of quarantined and over-long stdout lines
    survivors: int = 0  # descendants still alive after the adapter exited and its grace ran out, killed

    def count_event(
        self,
        ev: Event,
        on_progress: Callable[[dict[str, Any]], None] | None,
        on_checkpoint: Callable[[list[str]], None] | None,
    ) -> None:
        """Count one event of this call and hand a progress or a checkpoint to the caller's callback."""
        self.events += 1
        if ev.kind == "progress" and on_progress:
            on_progress(ev.data)
        elif ev.kind == "checkpoint":
            self.checkpoints += 1
            if on_checkpoint:
                on_checkpoint(ev.data["ids"])


SANDBOX_MODES = ("off", "writes", "strict")


def sandbox_mode(value: bool | str | None) -> str:
    """off (no Landlock), writes (the default: writes confined) or strict (reads confined too)."""
    if value is None or value is True:
        return "writes"
    if value is False:
        return "off"
    if value in SANDBOX_MODES:
        return str(value)
    raise ConfigError(f"sandbox must be one of {', '.join(SANDBOX_MODES)}, got {value!r}")


@dataclass
class Launch:
    descriptor: AdapterDescriptor
    store: Store
    config: dict[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    sandbox: bool | str = True
    timeouts: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        secrets = [self.env[n] for n in self.descriptor.secret_env_names() if self.env.get(n)]
        self.redactor = Redactor(secrets)
        self.mode = sandbox_mode(self.sandbox)
        if self.strict and landlock.abi_version() < 1:
            raise ConfigError(
                f"the strict sandbox was asked for, but this kernel offers no Landlock to confine reads with; "
                f"refusing to run {self.descriptor.name} unconfined (use the default sandbox, or a kernel with "
                "Landlock)",
                details={"sandbox": "strict", "landlock_abi": 0},
            )

    @property
    def strict(self) -> bool:
        return self.mode == "strict"

    @property
    def sandboxed(self) -> bool:
        return self.mode != "off" and landlock.abi_version() > 0

    def timeout(self, operation: str) -> float:
        return float(
            self.timeouts.get(operation)
            or self.descriptor.timeouts.get(operation)
            or DEFAULT_TIMEOUTS.get(operation, 300.0)
        )

    def idle(self) -> float:
        return float(self.timeouts.get("idle") or self.descriptor.timeouts.get("idle") or DEFAULT_TIMEOUTS["idle"])

    def max_result_bytes(self) -> int:
        return int(self.descriptor.limits.get("max_result_bytes", DEFAULT_MAX_RESULT_BYTES))

    def max_event_bytes(self) -> int:
        return int(self.descriptor.limits.get("max_event_bytes", DEFAULT_MAX_EVENT_BYTES))

    def exit_grace(self) -> float:
        """Seconds the adapter's leftover children may live after it exits (timeouts["exit_grace"] overrides)."""
        value = self.timeouts.get("exit_grace", self.descriptor.limits.get("exit_grace_seconds", DEFAULT_EXIT_GRACE))
        return float(value)

    @property
    def python_script(self) -> bool:
        """The command is `{python} [FLAGS] SCRIPT ...`: the shepherd may run the script in its own interpreter."""
        return bool(self.descriptor.runtime["kind"] == "python" and self.descriptor.raw["command"][0] == "{python}")

    def argv(self, *extra: str) -> list[str]:
        return adapter_argv(self.descriptor) + list(extra)

    def child_env(self, tmpdir: Path) -> dict[str, str]:
        from .process import adapter_env

        return adapter_env(self.env, self.descriptor.env_names(), tmpdir)

    def writable(self, work_dir: Path) -> list[Path] | None:
        dirs = [self.store.data_dir, work_dir]
        if not self.strict or self.descriptor.raw.get("sandbox", {}).get("shared_memory"):
            dirs.append(Path(landlock.SHARED_MEMORY))
        if self.strict:
            return dirs  # never None: without Landlock the child fails to start
        return dirs if self.sandboxed else None

    def readable(self, params: Mapping[str, Any] | None = None) -> list[str] | None:
        """The read allowlist under the strict sandbox (None: reads are not confined)."""
        if not self.strict:
            return None
        from .readset import strict_readable

        return strict_readable(self.descriptor, self.argv(), self.env, self.config, params, store_root=self.store.root)
