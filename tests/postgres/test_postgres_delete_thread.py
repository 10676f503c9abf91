"""The kit's delete_thread check alone on postgres (the whole kit runs it too, in minutes): a quick gated check
that deleting a thread takes the chunks sent with it and its entries' chunks sent elsewhere, and no more."""

from memdock.conformance import KitOptions, run_kit


def test_postgres_passes_the_thread_delete_check(dsn):
    report = run_kit("postgres", KitOptions(config={"postgres_dsn": dsn}, timeout=120, idle=60, only=["delete_thread"]))
    (result,) = report.results
    assert result.status == "pass", result.detail
