"""An export may not be written inside a store: `--force` onto a journal segment would replace the memory itself."""

import orjson
import pytest

from memdock.cli.main import main
from memdock.engine.journal import Journal

LINES = [{"id": f"n{i}", "thread": f"t{i % 4}", "text": f"the heron count {i} rose at dawn"} for i in range(12)]


@pytest.mark.parametrize("where", ["journal/00000001", "data/out", "."])
def test_an_export_into_a_store_is_refused_and_the_journal_is_untouched(tmp_path, capsys, where):
    src = tmp_path / "notes.jsonl"
    src.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in LINES))
    store = tmp_path / "store"
    assert main(["add", str(src), "-f", "jsonl", "--data-dir", str(store), "-q"]) == 0
    (segment,) = Journal(store / "journal").segments()
    before = {p.name: p.read_bytes() for p in segment.iterdir()}
    capsys.readouterr()

    out = store / where
    code = main(["export", "-o", str(out), "--force", "--data-dir", str(store), "--thread", "t1"])
    assert code != 0
    assert f"{out} is inside the memdock store {store}" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in segment.iterdir()} == before

    assert main(["export", "-o", str(tmp_path / "out"), "--data-dir", str(store), "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["counts"]["entry"] == len(LINES)
