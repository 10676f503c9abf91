"""memdock.testing as an adapter author uses it: their own pytest, one test per check, skips with the kit's reason."""

import subprocess
import sys
from pathlib import Path

import pytest

ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"


def test_importing_memdock_does_not_import_pytest():
    code = (
        "import sys, memdock, memdock.api, memdock.conformance, memdock.testing, memdock.cli.main;"
        "print('pytest' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def run_author_pytest(tmp_path, body):
    (tmp_path / "test_my_adapter.py").write_text("from memdock.testing import conformance_tests\n" + body)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider", "test_my_adapter.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_an_authors_pytest_runs_one_test_per_check_and_shows_skip_reasons(tmp_path):
    out = run_author_pytest(
        tmp_path, 'TestNull = conformance_tests("null", checks=["handshake", "index_query", "stdout_clean"])\n'
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "TestNull::test_conformance[handshake] PASSED" in out.stdout
    assert "TestNull::test_conformance[stdout_clean] PASSED" in out.stdout
    assert "TestNull::test_conformance[index_query] SKIPPED" in out.stdout
    assert "adapter declares no retrieval" in out.stdout
    assert "2 passed, 1 skipped" in out.stdout


def test_an_authors_pytest_fails_the_broken_check_with_the_kits_detail(tmp_path):
    out = run_author_pytest(
        tmp_path,
        f"TestLeaky = conformance_tests({str(ADAPTERS / 'faulty-leak-secret')!r}, idle=2, timeout=20,"
        ' checks=["handshake", "secrets_never_leak"])\n',
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "TestLeaky::test_conformance[handshake] PASSED" in out.stdout
    assert "TestLeaky::test_conformance[secrets_never_leak] FAILED" in out.stdout
    assert "faulty-leak-secret fails secrets_never_leak: secret value written to output" in out.stdout


def test_a_check_that_must_run_fails_instead_of_skipping(tmp_path):
    out = run_author_pytest(
        tmp_path, 'TestNull = conformance_tests("null", checks=["index_query"], must_run=["index_query"])\n'
    )
    assert out.returncode == 1
    assert "index_query must run for null, but the kit skipped it: adapter declares no retrieval" in out.stdout


def test_unknown_check_names_are_refused():
    from memdock.testing import conformance_tests

    with pytest.raises(ValueError, match="unknown conformance checks \\['handshak'\\]"):
        conformance_tests("null", checks=["handshak"])
