"""The conformance kit over the postgres adapter against a real Postgres, every check run but the streamed input
(the adapter reads its bundle from files)."""

import pytest
from postgres_support import gate

from memdock.conformance import KitOptions, run_kit

pytestmark = gate


@pytest.mark.timeout(900)
def test_postgres_passes_the_whole_kit(dsn):
    report = run_kit("postgres", KitOptions(config={"postgres_dsn": dsn}, timeout=120, idle=60))
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines
    assert [r.name for r in report.results if r.status == "skip"] == ["input_stream"], lines
