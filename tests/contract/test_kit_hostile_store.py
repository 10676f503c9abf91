"""The kit reads what adapters wrote to their stores as hostile: a FIFO, a link to /dev/zero and a sparse 64 GiB
file planted in the data dir neither hang it nor fill its memory (before, `secrets_never_leak` blocked for ever
on the FIFO)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdock.conformance import KitOptions, run_kit
from memdock.conformance.checks import SCAN_CAP, _scan_stores

HERE = Path(__file__).resolve().parents[1] / "adapters"
HOSTILE = HERE / "hostile-fifo-in-store"


@pytest.mark.timeout(300)
def test_secrets_never_leak_finishes_over_a_store_full_of_traps():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "memdock",
            "conformance",
            str(HOSTILE),
            "--check",
            "secrets_never_leak",
            "--idle",
            "2",
            "--timeout",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS  secrets_never_leak" in out.stdout
    for said in ("trap.fifo is a FIFO", "zero is a symbolic link", f"only the first {SCAN_CAP} bytes read of"):
        assert said in out.stdout, out.stdout


@pytest.mark.timeout(600)
def test_the_whole_kit_finishes_over_a_store_full_of_traps():
    report = run_kit(HOSTILE, KitOptions(idle=2, timeout=20))
    assert not report.failed(), [(r.name, r.detail) for r in report.results if r.status == "fail"]


def test_a_secret_across_two_pieces_is_found_and_a_link_to_one_is_not_followed(tmp_path):
    secret = b"s3cret-value-planted-by-the-kit"
    (tmp_path / "big").write_bytes(b"x" * ((1 << 20) - 10) + secret + b"y" * 100)
    (tmp_path / "outside").write_bytes(secret)
    store = tmp_path / "store"
    store.mkdir()
    os.replace(tmp_path / "big", store / "big")
    os.symlink(tmp_path / "outside", store / "link")
    scan = _scan_stores([store], [secret])
    assert scan.found == [str(store / "big")]
    assert scan.skipped == ["link is a symbolic link"]
