"""Nothing of the user's is lost: `import` and `chunk` (through the CLI) never clear a directory that is not a
memdock bundle, and never write over, around or inside their input."""

import json
import os
from pathlib import Path

import pytest

from memdock.atomic import temp_name
from memdock.bundle import BundleReader
from memdock.cli.main import main

THREAD = """# t — Thread
Status: OPEN

---
Entry: Ana 2025-01-01T00:00:00Z
Title: one

alpha apples
"""
OTHER = THREAD.replace("alpha apples", "bravo bananas").replace("# t —", "# u —")


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file, directory and link under ROOT with its bytes (or link target)."""
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = p.read_bytes()
    return out


@pytest.fixture
def docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "onboarding.md").write_text(THREAD)
    (d / "thesis.docx").write_bytes(b"PK\x03\x04 four years of work")
    return d


def test_import_into_the_folder_holding_the_source_is_refused_and_deletes_nothing(tmp_path, docs, capsys):
    before = snapshot(tmp_path)
    code = main(["import", str(docs / "onboarding.md"), "-f", "watercooler", "-o", str(docs), "--force", "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(docs) in err and str(docs / "onboarding.md") in err and "contains" in err
    assert snapshot(tmp_path) == before


def test_output_containing_a_source_folder_is_refused(tmp_path, capsys):
    src = tmp_path / "work" / "threads"
    src.mkdir(parents=True)
    (src / "t.md").write_text(THREAD)
    before = snapshot(tmp_path)
    code = main(["import", str(src), "-f", "watercooler", "-o", str(tmp_path / "work"), "--force", "-q"])
    assert code == 2
    assert "contains the input" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_output_inside_a_source_folder_is_refused_and_not_created(tmp_path, capsys):
    src = tmp_path / "threads"
    src.mkdir()
    (src / "t.md").write_text(THREAD)
    before = snapshot(tmp_path)
    code = main(["import", str(src), "-f", "watercooler", "-o", str(src / "corpus"), "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(src / "corpus") in err and "lies inside the input" in err and str(src) in err
    assert snapshot(tmp_path) == before


def _corpus(tmp_path: Path, name: str = "C", text: str = THREAD) -> Path:
    src = tmp_path / f"src-{name}"
    src.mkdir()
    (src / "t.md").write_text(text)
    assert main(["import", str(src), "-f", "watercooler", "-o", str(tmp_path / name), "-q"]) == 0
    return tmp_path / name


def test_chunk_onto_its_own_corpus_is_refused_and_the_corpus_survives(tmp_path, capsys):
    corpus = _corpus(tmp_path)
    capsys.readouterr()
    before = snapshot(corpus)
    code = main(["chunk", str(corpus), "-o", str(corpus), "--force", "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"output {corpus} is the input {corpus}" in err
    assert snapshot(corpus) == before
    assert BundleReader(corpus).verify() == []


def test_chunk_into_its_own_corpus_is_refused(tmp_path, capsys):
    corpus = _corpus(tmp_path)
    before = snapshot(corpus)
    assert main(["chunk", str(corpus), "-o", str(corpus / "chunks"), "-q"]) == 2
    assert "lies inside the input" in capsys.readouterr().err
    assert snapshot(corpus) == before


@pytest.mark.parametrize(
    "foreign",
    [
        "plain folder",
        "bundle plus a foreign file",
        "bundle plus a subfolder",
        "bundle whose manifest lists a foreign file",
    ],
)
def test_force_refuses_a_directory_that_is_not_a_memdock_bundle_and_leaves_it_byte_identical(tmp_path, capsys, foreign):
    src = tmp_path / "src"
    src.mkdir()
    (src / "t.md").write_text(THREAD)
    out = tmp_path / "out"
    if foreign == "plain folder":
        out.mkdir()
        (out / "notes.txt").write_text("mine")
        (out / "sub").mkdir()
        (out / "sub" / "more.txt").write_text("also mine")
        why = "it has no manifest.json and 'notes.txt' is not a file memdock writes"
    else:
        assert main(["import", str(src), "-f", "watercooler", "-o", str(out), "-q"]) == 0
        if foreign == "bundle plus a foreign file":
            (out / "thesis.docx").write_bytes(b"PK\x03\x04")
            why = "'thesis.docx' is not listed in its manifest.json"
        elif foreign == "bundle whose manifest lists a foreign file":
            (out / "thesis.docx").write_bytes(b"PK\x03\x04")
            manifest = json.loads((out / "manifest.json").read_text())
            manifest["files"].append(
                {"path": "thesis.docx", "type": "chunk", "count": 0, "bytes": 4, "sha256": "sha256:" + "0" * 64}
            )
            (out / "manifest.json").write_text(json.dumps(manifest))
            why = "'thesis.docx' is listed in its manifest.json but is not a file memdock writes"
        else:
            (out / "figures").mkdir()
            (out / "figures" / "plot.png").write_bytes(b"\x89PNG")
            why = "'figures' is not a regular file"
    capsys.readouterr()
    before = snapshot(tmp_path)
    code = main(["import", str(src), "-f", "watercooler", "-o", str(out), "--force", "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"refusing to replace {out}: it is not a memdock bundle ({why})" in err
    assert snapshot(tmp_path) == before


def test_force_replaces_a_real_bundle_and_leaves_nothing_beside_it(tmp_path, capsys):
    out = _corpus(tmp_path, "out")
    src = tmp_path / "src-new"
    src.mkdir()
    (src / "u.md").write_text(OTHER)
    assert main(["import", str(src), "-f", "watercooler", "-o", str(out), "-q"]) == 4
    assert "not empty" in capsys.readouterr().err
    assert main(["import", str(src), "-f", "watercooler", "-o", str(out), "--force", "-q"]) == 0
    bodies = [e["body"] for e in BundleReader(out).records("entry")]
    assert len(bodies) == 1 and "bravo bananas" in bodies[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "src-new", "src-out"]
    chunks = tmp_path / "chunks"
    assert main(["chunk", str(out), "-o", str(chunks), "-q"]) == 0
    assert main(["chunk", str(out), "-o", str(chunks), "--force", "--max-tokens", "50", "--overlap", "10", "-q"]) == 0
    assert BundleReader(chunks).manifest["chunker"]["params"]["max_tokens"] == 50


@pytest.mark.parametrize("manifest", [True, False], ids=["complete bundle", "killed before its manifest"])
def test_a_leftover_manifest_temp_file_does_not_stop_force_replacing_a_bundle(tmp_path, capsys, manifest):
    corpus = _corpus(tmp_path)
    out = tmp_path / "chunks"
    assert main(["chunk", str(corpus), "-o", str(out), "-q"]) == 0
    if not manifest:
        (out / "manifest.json").unlink()
    leftover = out / temp_name("manifest.json")  # what write_atomic leaves when the writer is killed mid-write
    leftover.write_bytes(b'{"kind": "ch')
    capsys.readouterr()
    assert main(["chunk", str(corpus), "-o", str(out), "--force", "-q"]) == 0, capsys.readouterr().err
    assert not leftover.exists() and BundleReader(out).verify() == []


def test_a_symlinked_output_pointing_at_an_input_is_refused(tmp_path, capsys):
    corpus = _corpus(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(corpus)
    capsys.readouterr()
    before = snapshot(tmp_path)
    assert main(["chunk", str(corpus), "-o", str(link), "--force", "-q"]) == 2
    err = capsys.readouterr().err
    assert f"output {link} (resolves to {corpus}) is the input {corpus}" in err
    src = tmp_path / "src-C"
    (tmp_path / "srclink").symlink_to(src)
    assert (
        main(["import", str(src / "t.md"), "-f", "watercooler", "-o", str(tmp_path / "srclink"), "--force", "-q"]) == 2
    )
    assert "contains the input" in capsys.readouterr().err
    assert snapshot(tmp_path) == {**before, "srclink": f"-> {src}"}


def test_a_symlinked_output_pointing_elsewhere_is_written_through(tmp_path):
    corpus = _corpus(tmp_path)
    target = tmp_path / "real-chunks"
    target.mkdir()
    link = tmp_path / "chunks"
    link.symlink_to(target)
    assert main(["chunk", str(corpus), "-o", str(link), "-q"]) == 0
    assert main(["chunk", str(corpus), "-o", str(link), "--force", "-q"]) == 0
    assert link.is_symlink() and BundleReader(target).count("chunk") == 1
