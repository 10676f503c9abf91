"""bench/realtalk_data.py: REALTALK chats rewritten into the LoCoMo layout for bench/realtalk.py; bad input is named
by file and field, and a question whose evidence names no turn is counted and left out, not scored as a miss."""

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import locomo
from realtalk_data import RealtalkError, chat_time, clean_evidence, find_chats, to_locomo

from memdock.importers.chat import parse_chat_time


def turn(dia: str, text: str, speaker: str = "Ann") -> dict:
    return {"clean_text": text, "speaker": speaker, "date_time": "29.12.2023, 22:42:04", "img_file": [], "dia_id": dia}


def chat(**over) -> dict:
    base = {
        "name": {"speaker_1": "Ann", "speaker_2": "Bo"},
        "session_1": [turn("D1:1", "I took a pasta class"), turn("D1:2", "Nice!", "Bo")],
        "session_1_date_time": "29.12.2023, 22:42:04",
        "session_2": [turn("D1:3", "Skiing in Colorado next week")],
        "session_2_date_time": "30.12.2023, 09:05:00",
        "qa": [
            {"question": "What class did Ann take?", "answer": "pasta", "evidence": ["D1:1."], "category": 1},
            {"question": "Where will Ann ski?", "answer": "Colorado", "evidence": ["D9:9"], "category": 2},
        ],
    }
    return base | over


def write(tmp_path: Path, data: dict, name: str = "Chat_1_Ann_Bo.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_a_chat_becomes_a_locomo_sample_the_chat_importer_reads(tmp_path):
    sample = to_locomo(write(tmp_path, chat()), defaultdict(int))
    conv = sample["conversation"]
    assert sample["sample_id"] == "Chat_1_Ann_Bo"
    assert (conv["speaker_a"], conv["speaker_b"]) == ("Ann", "Bo")
    assert conv["session_1"][0] == {"speaker": "Ann", "dia_id": "D1:1", "text": "I took a pasta class"}
    assert str(parse_chat_time(conv["session_2_date_time"])) == "2023-12-30 09:05:00+00:00"
    assert [q["evidence"] for q in sample["qa"]] == [["D1:1"], ["D9:9"]]


def test_a_question_whose_evidence_names_no_turn_keeps_no_evidence():
    stats: dict[str, int] = defaultdict(int)
    known = {"D1:1", "D1:2", "D1:3"}
    assert locomo.evidence_turns(clean_evidence(["D9:9"], stats), known, stats) == []
    assert stats["dropped_missing_turn"] == 1
    assert locomo.evidence_turns(clean_evidence(["D1:1", "D9:9"], stats), known, stats) == ["D1:1"]


@pytest.mark.parametrize(
    ("raw", "turns"),
    [
        ("D5:3.", ["D5:3"]),
        ("D 2:18", ["D2:18"]),
        ("D12:3-D12:5", ["D12:3", "D12:4", "D12:5"]),
        ("D14:8-D14:9;D15:16-D15:17", ["D14:8", "D14:9", "D15:16", "D15:17"]),
        ("D13:45:D20:19", ["D13:45", "D20:19"]),
        ("D13:4. D14:4", ["D13:4", "D14:4"]),
        ("D3:9-D4:2", ["D3:9", "D4:2"]),
    ],
)
def test_evidence_slips_are_undone(raw, turns):
    stats: dict[str, int] = defaultdict(int)
    known = {f"D{s}:{t}" for s in range(1, 21) for t in range(1, 50)}
    assert locomo.evidence_turns(clean_evidence([raw], stats), known, stats) == turns
    assert stats["realtalk_repaired"] == 1


def test_unreadable_evidence_is_dropped_not_guessed():
    stats: dict[str, int] = defaultdict(int)
    known = {"D17:39", "D23:29"}
    assert locomo.evidence_turns(clean_evidence(["D17;39", "23:29", ""], stats), known, stats) == []
    assert stats["dropped_malformed"] == 3  # "D17", "39", "23:29"


def test_a_missing_path_is_named(tmp_path):
    with pytest.raises(RealtalkError, match="nowhere: not found"):
        find_chats(tmp_path / "nowhere")
    with pytest.raises(RealtalkError, match="no Chat_"):
        find_chats(tmp_path)


def test_a_checkout_or_its_data_folder_lists_the_chats_in_number_order(tmp_path):
    (tmp_path / "data").mkdir()
    for n in (10, 2, 1):
        write(tmp_path / "data", chat(), f"Chat_{n}_A_B.json")
    names = [p.name for p in find_chats(tmp_path)]
    assert names == ["Chat_1_A_B.json", "Chat_2_A_B.json", "Chat_10_A_B.json"]
    assert find_chats(tmp_path / "data") == find_chats(tmp_path)


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"name": "Ann"}, "field 'name'"),
        ({"session_2": [{"speaker": "Ann", "dia_id": "D1:3"}]}, "session_2 turn 0: field 'clean_text'"),
        ({"session_2": "hello"}, "field 'session_2' is not a list"),
        ({"session_2_date_time": "30/12/2023"}, "session_2_date_time: date '30/12/2023'"),
        ({"qa": [{"question": "Q?", "evidence": "D1:1", "category": 1}]}, r"qa\[0\]: field 'evidence'"),
        ({"qa": [{"question": "Q?", "evidence": [], "category": "1"}]}, r"qa\[0\]: field 'category'"),
        ({"qa": None}, "field 'qa'"),
    ],
)
def test_bad_fields_are_named_with_the_file(tmp_path, over, message):
    path = write(tmp_path, chat(**over))
    with pytest.raises(RealtalkError, match=f"Chat_1_Ann_Bo.json: {message}"):
        to_locomo(path, defaultdict(int))


def test_invalid_json_and_a_chat_without_sessions_are_named(tmp_path):
    bad = tmp_path / "Chat_1_A_B.json"
    bad.write_text("{not json")
    with pytest.raises(RealtalkError, match="Chat_1_A_B.json"):
        to_locomo(bad, defaultdict(int))
    empty = write(tmp_path, {"name": {"speaker_1": "A", "speaker_2": "B"}, "qa": []})
    with pytest.raises(RealtalkError, match="no session_N fields"):
        to_locomo(empty, defaultdict(int))


def test_chat_time_rejects_another_layout():
    assert chat_time("01.01.2024, 00:00:01", "x") == "12:00 AM on 01 January, 2024"
    with pytest.raises(RealtalkError, match="here: date"):
        chat_time("2024-01-01 00:00", "here")


def test_the_bench_loads_a_checkout_and_leaves_out_a_question_without_evidence(tmp_path, monkeypatch):
    import realtalk

    monkeypatch.setattr(locomo, "DATA", locomo.DATA)  # load() points it at the rewritten chats; restored after
    (tmp_path / "data").mkdir()
    write(tmp_path / "data", chat())
    work = tmp_path / "work"
    work.mkdir()
    stats: dict[str, int] = defaultdict(int)
    corpus, questions = realtalk.load(tmp_path, work, stats)
    assert [q["text"] for q in questions] == ["What class did Ann take?"]
    assert questions[0]["evidence"] == {corpus.entry_of[("Chat_1_Ann_Bo", "D1:1")]}
    assert stats["questions_without_evidence"] == 1 and stats["dropped_missing_turn"] == 1
    assert len(corpus.entry_of) == 3
