"""The kit must fail each deliberately broken adapter on the check that names its fault, with that check run
alone (no check may judge calls another check made), and pass the same check on the working twin."""

import subprocess
import sys
from pathlib import Path

import pytest

from memdock.conformance import KitOptions, run_kit
from memdock.testing import conformance_tests

HERE = Path(__file__).resolve().parents[1] / "adapters"
TWIN = "faulty-none"  # the same program as every faulty-* adapter, with no fault switched on

TestWorkingTwin = conformance_tests(
    HERE / TWIN, idle=2, timeout=20, must_run=("resume_after_kill", "delete_cascade", "delete_thread")
)

FAULTS = [
    ("faulty-stdout", "stdout_clean", "stray stdout line"),
    ("faulty-leak-secret", "secrets_never_leak", "secret value written to output"),
    ("faulty-write-outside", "writes_confined", "faulty-cache.txt"),
    ("faulty-hang", "index_query", "went silent"),
    ("faulty-crash-mid-index", "index_query", "exited with code 1"),
    # crashes on its first question only: a retry on a fresh worker would answer it, so the kit retries nothing
    ("faulty-crash-on-query", "index_query", "exited during query (exit code 1)"),
    ("faulty-false-capability", "delete_cascade", "still return"),
    # a thread's delete that follows only its entries (sqlite before the fix) or only its chunks' thread ids
    ("faulty-thread-by-entries", "delete_thread", "chunk:kit-x-0 under a filter on it"),
    ("faulty-thread-by-chunks", "delete_thread", "chunk:kit-x-3 for"),
    ("faulty-bad-schema", "index_query", "breaks response.schema.json"),
    (
        "faulty-daemon",
        "no_survivors",
        "left processes running after it exited, which memdock had to kill: 1 after healthcheck",
    ),
    ("faulty-ignores-where", "metadata_filter", "ignored the where filter"),
    ("faulty-result-symlink", "result_file_hygiene", "result.json is a symbolic link; memdock never follows one"),
    ("faulty-ignores-end", "input_stream", "a stream cut without its end line was not refused"),
]


def alone(adapter: str, check: str):
    report = run_kit(HERE / adapter, KitOptions(idle=2, timeout=20, only=[check]))
    (result,) = report.results
    return result


def test_every_faulty_adapter_is_covered():
    assert {p.name for p in HERE.glob("faulty-*") if p.is_dir()} == {a for a, _, _ in FAULTS} | {TWIN}


@pytest.mark.parametrize("adapter,check,words", FAULTS, ids=[a for a, _, _ in FAULTS])
def test_the_check_alone_fails_the_fault_and_passes_the_twin(adapter, check, words):
    result = alone(adapter, check)
    assert result.status == "fail", f"{check} alone did not fail {adapter}: {result.status} {result.detail}"
    assert words in result.detail
    twin = alone(TWIN, check)
    assert twin.status == "pass", f"{check} alone did not pass {TWIN}: {twin.status} {twin.detail}"


def test_the_cli_check_alone_fails_the_leaking_adapter():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "memdock",
            "conformance",
            str(HERE / "faulty-leak-secret"),
            "--check",
            "secrets_never_leak",
            "--idle",
            "2",
            "--timeout",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "FAIL  secrets_never_leak" in out.stdout and "healthcheck (one-shot)" in out.stdout
    assert "0 passed, 1 failed, 0 skipped" in out.stdout


@pytest.mark.parametrize(
    "adapter,failed",
    [
        ("faulty-daemon", {"no_survivors"}),  # the daemon breaks no call, so only the check for it fails
        # a linked result is refused by the runner, so every check that calls healthcheck fails too
        ("faulty-result-symlink", {"healthcheck", "writes_confined", "no_survivors", "result_file_hygiene"}),
    ],
)
def test_the_whole_kit_fails_a_boundary_fault_only_where_it_shows(adapter, failed):
    report = run_kit(HERE / adapter, KitOptions(idle=2, timeout=20))
    assert set(report.failed()) == failed, [(r.name, r.detail) for r in report.results if r.status == "fail"]
