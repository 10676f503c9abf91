"""The kit's resume_after_kill on the streamed index of a bundle (`engine/index.py`, `IndexRun.streamed`): a
one-shot adapter that reads a stream gets the bundle's records on stdin, its checkpoints reach the ledger once the
segment is sealed, and the kit's kill (its `after_checkpoint` raising) lands there. The check must still fail an
engine that breaks the resume: one whose ledger loses the checkpoints before the kill, and one whose streamed run
swallows the kill and goes on."""

from pathlib import Path

import memdock.engine.index as index_module
from memdock.conformance import KitOptions, run_kit
from memdock.engine.index import IndexRun

TWIN = Path(__file__).resolve().parents[1] / "adapters" / "faulty-none"
OPTIONS = {"idle": 20, "timeout": 120, "resume_filler": 300}


def resume_alone():
    report = run_kit(TWIN, KitOptions(only=["resume_after_kill"], **OPTIONS))
    (result,) = report.results
    return result


def test_the_kill_lands_after_a_checkpoint_of_the_streamed_run_and_the_rerun_resumes():
    result = resume_alone()
    assert result.status == "pass", result.detail
    assert "(streamed)" in result.detail


def test_the_file_path_is_still_killed_and_resumed(monkeypatch):
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", "0")
    result = resume_alone()
    assert result.status == "pass", result.detail
    assert "(from its files)" in result.detail


def test_an_engine_whose_ledger_loses_the_checkpoints_fails_it(monkeypatch):
    def checkpoint(self, ids):  # the adapter's checkpoint never reaches the ledger
        self.committed = True
        if self.opts.after_checkpoint is not None:
            self.opts.after_checkpoint(ids)

    monkeypatch.setattr(IndexRun, "checkpoint", checkpoint)
    result = resume_alone()
    assert result.status == "fail", result.detail
    assert "the second run sent" in result.detail and "were committed before the kill" in result.detail


def test_an_engine_whose_streamed_run_swallows_the_kill_fails_it(monkeypatch):
    drain = index_module.drain

    def swallowing(stream, on_checkpoint, on_progress):
        def quiet(ids):
            try:
                on_checkpoint(ids)
            except Exception:
                pass

        drain(stream, quiet, on_progress)

    monkeypatch.setattr(index_module, "drain", swallowing)
    result = resume_alone()
    assert result.status == "fail", result.detail
    assert "went on to succeed after its after_checkpoint callback stopped it" in result.detail
