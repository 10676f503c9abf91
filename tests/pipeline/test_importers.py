import os
import weakref

import orjson

from memdock.bundle import BundleReader
from memdock.cli.main import main
from memdock.importers.base import ImportContext
from memdock.importers.jsonl import JsonlImporter
from memdock.importers.pipeline import import_corpus


def records(bundle, rtype):
    return list(BundleReader(bundle).records(rtype))


WC = """# demo — Thread
Status: OPEN
Ball: Codex (ana)
Topic: demo
Created: 2025-12-09T02:35:37Z

---
Entry: Claude (ana) 2025-12-09T02:35:37Z
Role: planner
Type: Plan
Title: First

Body one mentions @bob and src/app/main.py and `Parser.parse()` and #42 at https://example.org/x.

```yaml
---
not: a separator
```
<!-- Entry-ID: 01KAAAAAAAAAAAAAAAAAAAAAAA -->

---
Entry: Codex (ana) 2025-12-09T03:00:00Z
Type: Decision
Title: Second

Second body.
"""


def test_watercooler_fields_fences_and_entities(tmp_path):
    (tmp_path / "demo.md").write_text(WC)
    s = import_corpus([tmp_path / "demo.md"], "watercooler", tmp_path / "c")
    (t,) = records(tmp_path / "c", "thread")
    assert (t["title"], t["status"], t["ball"], t["topic"]) == ("demo", "OPEN", "Codex (ana)", "demo")
    e1, e2 = records(tmp_path / "c", "entry")
    assert e1["id"] == "entry:01KAAAAAAAAAAAAAAAAAAAAAAA"
    assert (e1["role"], e1["entry_type"], e1["title"], e1["event_time"]) == (
        "planner",
        "Plan",
        "First",
        "2025-12-09T02:35:37Z",
    )
    assert "---\nnot: a separator" in e1["body"] and "Entry-ID" not in e1["body"]
    assert e2["entry_type"] == "Decision" and e2["body"] == "Second body."
    names = {(x["entity_type"], x["name"]) for x in records(tmp_path / "c", "entity")}
    assert {
        ("person", "bob"),
        ("file", "src/app/main.py"),
        ("symbol", "Parser.parse"),
        ("issue", "#42"),
        ("url", "https://example.org/x"),
        ("agent", "Claude"),
        ("person", "ana"),
    } <= names
    edges = {(e["type"], e["source_id"], e["target_id"]) for e in records(tmp_path / "c", "edge")}
    assert ("follows", e2["id"], e1["id"]) in edges and ("contains", t["id"], e1["id"]) in edges
    assert not s.warnings


def test_every_shared_watercooler_file_imports(shared_data, tmp_path):
    src = shared_data / "watercooler_threads"
    s = import_corpus([src], "watercooler", tmp_path / "c")
    files = list(src.rglob("*.md"))
    assert s.files == len(files) and not s.failed
    entries = records(tmp_path / "c", "entry")
    expected = sum(f.read_text().count("\nEntry: ") for f in files)
    assert len(entries) == expected
    assert {e.get("entry_type") for e in entries} >= {"Note", "Plan", "Decision", "Closure", "analysis"}


def test_ids_are_deterministic(tmp_path):
    (tmp_path / "demo.md").write_text(WC)
    import_corpus([tmp_path / "demo.md"], "watercooler", tmp_path / "a")
    import_corpus([tmp_path / "demo.md"], "watercooler", tmp_path / "b")
    for rtype in ("thread", "entry", "edge", "entity"):
        assert [r["id"] for r in records(tmp_path / "a", rtype)] == [r["id"] for r in records(tmp_path / "b", rtype)]


def test_malformed_entry_line_is_a_warning_naming_file_and_line(tmp_path):
    bad = WC.replace("Entry: Codex (ana) 2025-12-09T03:00:00Z", "Entry: Codex without a time")
    (tmp_path / "bad.md").write_text(bad)
    s = import_corpus([tmp_path / "bad.md"], "watercooler", tmp_path / "c")
    assert any("bad.md:22: malformed entry line" in w for w in s.warnings)
    assert len(records(tmp_path / "c", "entry")) == 2


def test_missing_and_unreadable_files_make_a_partial_import(tmp_path, capsys):
    (tmp_path / "ok.md").write_text(WC)
    locked = tmp_path / "locked.md"
    locked.write_text(WC)
    locked.chmod(0)
    code = main(
        [
            "import",
            str(tmp_path / "ok.md"),
            str(tmp_path / "missing.md"),
            str(locked),
            "-f",
            "watercooler",
            "-o",
            str(tmp_path / "c"),
        ]
    )
    err = capsys.readouterr().err
    assert "missing.md: no such file or directory" in err
    if os.geteuid() != 0:  # root reads any file
        assert "locked.md: cannot read" in err
    assert code == 10
    assert len(records(tmp_path / "c", "thread")) >= 1


def test_wrong_encoding_decoded_with_replacement_and_warned(tmp_path):
    (tmp_path / "latin.md").write_bytes(WC.encode().replace(b"Second body.", "Caf\xe9 cr\xe8me.".encode("latin-1")))
    s = import_corpus([tmp_path / "latin.md"], "watercooler", tmp_path / "c")
    assert any("not valid UTF-8" in w for w in s.warnings)
    assert "Caf\ufffd" in records(tmp_path / "c", "entry")[1]["body"]


def test_empty_entries_kept_and_warned(tmp_path):
    (tmp_path / "e.md").write_text(WC.replace("Second body.", ""))
    s = import_corpus([tmp_path / "e.md"], "watercooler", tmp_path / "c")
    assert records(tmp_path / "c", "entry")[1]["body"] == ""
    assert any("empty body" in w for w in s.warnings)


def test_duplicate_entry_ids_across_files_first_keeps_it(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text(WC)
    (src / "b.md").write_text(WC)
    s = import_corpus([src], "watercooler", tmp_path / "c")
    ids = [e["id"] for e in records(tmp_path / "c", "entry")]
    assert ids.count("entry:01KAAAAAAAAAAAAAAAAAAAAAAA") == 1
    assert any(i.startswith("entry:01KAAAAAAAAAAAAAAAAAAAAAAA~") for i in ids)
    assert any("b.md:8: duplicate entry id entry:01KAAAAAAAAAAAAAAAAAAAAAAA" in w for w in s.warnings)


def test_timestamps_without_timezone_are_utc_and_warned(tmp_path):
    (tmp_path / "t.jsonl").write_text('{"thread": "x", "text": "hi", "time": "2025-01-02T03:04:05"}\n')
    s = import_corpus([tmp_path / "t.jsonl"], "jsonl", tmp_path / "c")
    assert records(tmp_path / "c", "entry")[0]["event_time"] == "2025-01-02T03:04:05Z"
    assert any("without a timezone" in w for w in s.warnings)


def test_jsonl_mapping_non_objects_and_replies(tmp_path):
    lines = [
        {"kind": "thread", "id": "t1", "title": "Planning"},
        {"msg_id": "m1", "thread": "t1", "who": "ana", "text": "first"},
        [1, 2],
        {"msg_id": "m2", "thread": "t1", "who": "bo", "text": "second", "replies_to": "m1"},
    ]
    (tmp_path / "x.jsonl").write_text("\n".join(orjson.dumps(x).decode() for x in lines) + "\n")
    s = import_corpus([tmp_path / "x.jsonl"], "jsonl", tmp_path / "c", mapping={"msg_id": "id", "who": "author"})
    assert any("x.jsonl:3: line is a JSON list, not an object" in w for w in s.warnings)
    (t,) = records(tmp_path / "c", "thread")
    assert t["title"] == "Planning"
    e1, e2 = records(tmp_path / "c", "entry")
    assert (e1["author"], e2["author"]) == ("ana", "bo")
    assert ("replies_to", e2["id"], e1["id"]) in {
        (e["type"], e["source_id"], e["target_id"]) for e in records(tmp_path / "c", "edge")
    }


def test_jsonl_replies_are_found_in_every_thread_that_has_one_and_an_unknown_parent_is_warned(tmp_path):
    """Only threads with an entry naming replies_to are searched for replies (the rest have none to find)."""
    lines = [
        {"id": "a1", "thread": "a", "text": "first in a"},
        {"id": "b1", "thread": "b", "text": "first in b"},
        {"id": "a2", "thread": "a", "text": "reply in a", "replies_to": "a1"},
        {"id": "c1", "thread": "c", "text": "alone in c"},
        {"id": "b2", "thread": "b", "text": "reply to nothing", "replies_to": "zz"},
        {"id": "b3", "thread": "b", "text": "reply in b", "replies_to": "b1"},
    ]
    (tmp_path / "r.jsonl").write_text("\n".join(orjson.dumps(x).decode() for x in lines) + "\n")
    s = import_corpus([tmp_path / "r.jsonl"], "jsonl", tmp_path / "c")
    ids = {e["metadata"]["source_id"]: e["id"] for e in records(tmp_path / "c", "entry")}
    replies = {(e["source_id"], e["target_id"]) for e in records(tmp_path / "c", "edge") if e["type"] == "replies_to"}
    assert replies == {(ids["a2"], ids["a1"]), (ids["b3"], ids["b1"])}
    warned = [w for w in s.warnings if "replies_to" in w]
    assert warned == [f"{tmp_path / 'r.jsonl'}:5: replies_to 'zz' names no entry of this thread"]


def test_the_jsonl_importer_lets_go_of_each_thread_it_has_yielded(tmp_path):
    """It reads the whole file before the first thread (a thread's lines may be anywhere in it), but holds neither
    the text nor the threads it has handed on while the run goes on with them."""
    lines = [{"thread": t, "text": f"{t} note {i}"} for i in range(3) for t in ("a", "b", "c")]
    (tmp_path / "t.jsonl").write_text("\n".join(orjson.dumps(x).decode() for x in lines) + "\n")
    threads = JsonlImporter().read(tmp_path / "t.jsonl", ImportContext())
    first = next(threads)
    assert [e["body"] for e in first.entries] == ["a note 0", "a note 1", "a note 2"]
    gone = weakref.ref(first)
    del first
    assert next(threads).thread["title"] == "b"
    assert gone() is None  # while the importer is still at work
    assert [pt.thread["title"] for pt in threads] == ["c"]


def test_a_five_megabyte_entry_under_a_raised_cap(tmp_path):
    body = ("word " * 200 + "\n\n") * 5200
    (tmp_path / "big.jsonl").write_text(orjson.dumps({"thread": "big", "text": body}).decode() + "\n")
    import_corpus([tmp_path / "big.jsonl"], "jsonl", tmp_path / "c", max_entry_bytes=6_000_000)
    (e,) = records(tmp_path / "c", "entry")
    assert len(e["body"]) > 5_000_000


def test_chat_sessions_dates_and_dia_ids(shared_data, tmp_path):
    s = import_corpus([shared_data / "locomo" / "locomo_dev.json"], "chat", tmp_path / "c")
    entries = records(tmp_path / "c", "entry")
    first = entries[0]
    assert first["metadata"]["dia_id"] == "D1:1"
    assert first["event_time"].endswith("Z") and first["author"]
    assert not s.failed


def test_chat_malformed_dates_and_turns(tmp_path):
    data = [
        {
            "sample_id": "s1",
            "conversation": {
                "speaker_a": "A",
                "speaker_b": "B",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hello"}, {"speaker": "B", "dia_id": "D1:2"}],
                "session_2_date_time": "sometime in spring",
                "session_2": [{"speaker": "B", "dia_id": "D2:1", "text": "later"}],
                "session_3_date_time": "no session for this date",
            },
            "qa": [],
        }
    ]
    (tmp_path / "chat.json").write_text(orjson.dumps(data).decode())
    s = import_corpus([tmp_path / "chat.json"], "chat", tmp_path / "c")
    e = records(tmp_path / "c", "entry")
    assert [x["body"] for x in e] == ["hello", "later"]
    assert e[0]["event_time"] == "2023-05-08T13:56:00Z" and "event_time" not in e[1]
    assert any("'sometime in spring' does not parse" in w for w in s.warnings)
    assert any("turn 1 has no text" in w for w in s.warnings)


def test_irc_with_annotations(shared_data, tmp_path):
    src = shared_data / "irc" / "dev"
    import_corpus([src / "2004-11-15_03.ascii.txt"], "irc", tmp_path / "c")
    entries = {e["source_line"]: e for e in records(tmp_path / "c", "entry")}
    assert entries[1000]["author"] == "LinuxJones" and entries[1000]["event_time"] == "2004-11-15T03:01:00Z"
    replies = {(e["source_id"], e["target_id"]) for e in records(tmp_path / "c", "edge") if e["type"] == "replies_to"}
    assert (entries[1003]["id"], entries[1002]["id"]) in replies


def test_text_folder_one_entry_per_heading(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text(
        "Intro line.\n\n# Alpha\nalpha text\n```\n# not a heading\n```\n## Beta\nbeta text\n"
    )
    import_corpus([tmp_path / "notes"], "text", tmp_path / "c")
    e = records(tmp_path / "c", "entry")
    assert [x.get("title") for x in e] == [None, "Alpha", "Beta"]
    assert "# not a heading" in e[1]["body"]
