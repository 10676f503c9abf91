"""The kit must fail each deliberately broken adapter on the check that names its fault."""

from pathlib import Path

import pytest

from memdock.conformance import KitOptions, run_kit

HERE = Path(__file__).resolve().parents[1] / "adapters"
FAST = KitOptions(idle=2, timeout=20)


def kit(name, **kw):
    return run_kit(HERE / name, KitOptions(idle=kw.get("idle", 2), timeout=kw.get("timeout", 20), only=kw.get("only")))


def test_the_working_twin_passes():
    report = kit("faulty-none")
    assert report.ok, [(r.name, r.detail) for r in report.results if r.status == "fail"]
    assert report.status_of("resume_after_kill") == "pass"
    assert report.status_of("delete_cascade") == "pass"


@pytest.mark.parametrize(
    "adapter,check,words",
    [
        ("faulty-stdout", "stdout_clean", "stray stdout line"),
        ("faulty-leak-secret", "secrets_never_leak", "secret"),
        ("faulty-write-outside", "writes_confined", "faulty-cache.txt"),
        ("faulty-hang", "index_query", "went silent"),
        ("faulty-crash-mid-index", "index_query", "exited with code 1"),
        ("faulty-false-capability", "delete_cascade", "still return"),
        ("faulty-bad-schema", "index_query", "breaks response.schema.json"),
    ],
)
def test_kit_reports_the_fault(adapter, check, words):
    report = kit(adapter)
    result = next(r for r in report.results if r.name == check)
    assert result.status == "fail", f"{check} did not fail for {adapter}: {result.detail}"
    assert words in result.detail
    assert not report.ok


@pytest.mark.parametrize(
    "adapter,check,words,failed",
    [
        # the daemon breaks no call, so only the check for it fails
        ("faulty-daemon", "no_survivors", "left processes running after it exited, which memdock had to kill: 1 after healthcheck",
         {"no_survivors"}),
        # a linked result is refused by the runner, so every check that calls healthcheck fails too
        ("faulty-result-symlink", "result_file_hygiene", "result.json is a symbolic link; memdock never follows one",
         {"healthcheck", "writes_confined", "no_survivors", "result_file_hygiene"}),
    ],
)
def test_kit_reports_the_boundary_faults(adapter, check, words, failed):
    report = kit(adapter)
    result = next(r for r in report.results if r.name == check)
    assert result.status == "fail", f"{check} did not fail for {adapter}: {result.detail}"
    assert words in result.detail
    assert set(report.failed()) == failed, [(r.name, r.detail) for r in report.results if r.status == "fail"]
