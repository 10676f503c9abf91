import subprocess
import sys

import orjson
from support.records_factory import entry, thread

from memdock.bundle import BundleWriter
from memdock.cli.main import main


def make(tmp_path, n=3):
    b = tmp_path / "b"
    with BundleWriter(b, "corpus") as w:
        w.write("thread", thread())
        for i in range(n):
            w.write("entry", entry(i))
    return b


def test_version_flag_runs_as_console_script():
    out = subprocess.run([sys.executable, "-m", "memdock", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("memdock ")


def test_valid_bundle_exits_zero(tmp_path, capsys):
    b = make(tmp_path)
    assert main(["validate", str(b)]) == 0
    assert "valid corpus bundle" in capsys.readouterr().out


def test_invalid_bundle_prints_every_error_capped_with_total(tmp_path, capsys):
    b = make(tmp_path, n=30)
    part = b / "entry-00001.jsonl"
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(line.replace(b'"thread:0"', b'"thread 0"') for line in lines))
    assert main(["validate", str(b), "--max-errors", "5"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 6
    assert all("$.thread_id" in line for line in out[:5])
    assert out[0].startswith(f"{part}:1: id=entry:0 $.thread_id: ")
    assert "31 error(s) (showing 5)" in out[-1]  # 30 schema errors + the checksum


def test_incomplete_bundle_is_invalid(tmp_path, capsys):
    b = make(tmp_path)
    (b / "manifest.json").unlink()
    assert main(["validate", str(b), "--json"]) == 1
    report = orjson.loads(capsys.readouterr().out)
    assert report["valid"] is False and "incomplete bundle" in report["messages"][0]
