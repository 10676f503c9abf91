"""The conformance kit as pytest tests, for adapter authors (as the Singer SDK offers its tap tests).

In a test module of your adapter::

    from memdock.testing import conformance_tests

    TestMyAdapter = conformance_tests("path/to/my-adapter", config={"endpoint": "http://127.0.0.1:9000"})

`pytest` then runs one test per check, `TestMyAdapter::test_conformance[handshake]` and so on; a check the
adapter's capabilities rule out is reported as skipped with the kit's reason, and a failure shows the kit's
detail. The checks of one class share one kit session (one scratch directory, planted secrets, and what
several checks judge alike, such as one exercise of every operation), so the tests cost what
`memdock conformance` costs. pytest is imported only when `conformance_tests` is called.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from .conformance.harness import KitOptions
from .conformance.kit import check_names, open_session, run_check, unavailable
from .registry import AdapterDescriptor, Registry


def conformance_tests(
    adapter: str | os.PathLike[str] | AdapterDescriptor,
    *,
    config: dict[str, Any] | None = None,
    timeout: float = 120.0,
    idle: float = 30.0,
    resume_filler: int = 1500,
    checks: Iterable[str] | None = None,
    must_run: Iterable[str] = (),
    skip: str | None = None,
    skip_unavailable: bool = False,
    registry: Registry | None = None,
) -> type:
    """A pytest test class with one test per conformance check of ADAPTER (a folder, a name, or a descriptor).

    CONFIG is the adapter config (secrets come from the environment, as in production); TIMEOUT and IDLE are
    seconds per operation and without progress; RESUME_FILLER shrinks the resume check for slow backends;
    CHECKS limits the checks (default all, in kit order); a check in MUST_RUN fails where the kit would skip
    it (say, bad_payload for an adapter you know indexes). SKIP, when given, skips every test with that reason.
    An adapter whose runtime is missing here (Node.js absent, or its virtualenv not installed) fails every
    test saying so, or skips them with SKIP_UNAVAILABLE.
    """
    import pytest

    names = list(checks) if checks is not None else check_names()
    must = set(must_run)
    unknown = sorted((set(names) | must) - set(check_names()))
    if unknown:
        raise ValueError(f"unknown conformance checks {unknown}; the kit has {check_names()}")
    options = KitOptions(timeout=timeout, idle=idle, config=dict(config or {}), resume_filler=resume_filler)

    class ConformanceTests:
        @pytest.fixture(scope="class")
        @classmethod
        def conformance_session(cls):
            if skip:
                pytest.skip(skip)
            session = open_session(adapter, options, registry=registry)
            try:
                reason = unavailable(session.descriptor)
                if reason:
                    if skip_unavailable:
                        pytest.skip(reason)
                    pytest.fail(reason, pytrace=False)
                yield session
            finally:
                session.close()

        @pytest.mark.parametrize("check", names)
        def test_conformance(self, conformance_session, check: str) -> None:
            result = run_check(conformance_session, check)
            if result.status == "skip" and check in must:
                pytest.fail(
                    f"{check} must run for {conformance_session.descriptor.name}, but the kit skipped it: "
                    f"{result.detail}",
                    pytrace=False,
                )
            if result.status == "skip":
                pytest.skip(result.detail)
            if result.status == "fail":
                pytest.fail(f"{conformance_session.descriptor.name} fails {check}: {result.detail}", pytrace=False)

    label = getattr(adapter, "name", None) or os.path.basename(str(adapter).rstrip("/")) or "adapter"
    ConformanceTests.__name__ = ConformanceTests.__qualname__ = f"TestConformance_{label}"
    return ConformanceTests
