"""REALTALK (github.com/danny911kr/REALTALK, data/Chat_*.json) read into the LoCoMo layout the chat importer takes.

REALTALK is 21 days of real messaging-app chats between ten pairs of people, by the LoCoMo authors, with memory
probing questions whose evidence names turns (`dia_id`, "D3:12"). Its files differ from LoCoMo's in ways the chat
importer would trip on: turns carry `clean_text` (not `text`), the sessions sit at the top level (not under
`conversation`), speakers are under `name`, and dates read "29.12.2023, 22:42:04". `to_locomo` rewrites one file
into a LoCoMo sample so bench/locomo.py's corpus, question and peer helpers run on it unchanged.

The evidence strings have slips of their own ("D5:3.", "D 2:18", "D12:3-D12:5", "D13:45:D20:19");
`clean_evidence` undoes those and leaves the rest (splitting on ';', dropping what names no turn) to
locomo.evidence_turns, which counts every repair and drop.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

_SESSION = re.compile(r"^session_(\d+)$")
_SPACED = re.compile(r"\bD\s+(\d)")
_GLUED = re.compile(r"(:\d+):(D\d)")
_RANGE = re.compile(r"D(\d+):(\d+)\s*-\s*D(\d+):(\d+)")
_DOTS = re.compile(r"(\d)\.(?=\s|$|;|,)")


class RealtalkError(ValueError):
    """A REALTALK file that cannot be read as the bench expects; the message names the file and the field."""


def find_chats(path: Path) -> list[Path]:
    """The Chat_*.json files under PATH: a checkout (its data/ folder), the data folder itself, or one file."""
    if not path.exists():
        raise RealtalkError(f"{path}: not found")
    if path.is_file():
        return [path]
    folder = path / "data" if (path / "data").is_dir() else path
    chats = sorted(folder.glob("Chat_*.json"), key=lambda p: int(p.stem.split("_")[1]))
    if not chats:
        raise RealtalkError(f"{folder}: no Chat_*.json files")
    return chats


def clean_evidence(raw: list[Any], stats: dict[str, int]) -> list[str]:
    """REALTALK's evidence slips undone: a trailing dot, a space after D, a range within one session (every turn
    of it), two references glued by ':'. What is left for locomo.evidence_turns to split and check."""
    out: list[str] = []
    for item in raw:
        text = str(item)
        fixed = _GLUED.sub(r"\1;\2", _SPACED.sub(r"D\1", _DOTS.sub(r"\1", text)))
        fixed = _RANGE.sub(lambda m: _expand(m, stats), fixed)
        if fixed != text:
            stats["realtalk_repaired"] += 1
        out.append(fixed)
    return out


def _expand(m: re.Match[str], stats: dict[str, int]) -> str:
    first, start, last, end = (int(g) for g in m.groups())
    if first != last or end < start:
        stats["realtalk_range_ends_only"] += 1
        return f"D{first}:{start};D{last}:{end}"
    return ";".join(f"D{first}:{n}" for n in range(start, end + 1))


def chat_time(text: str, where: str) -> str:
    """'29.12.2023, 22:42:04' as the chat importer's '10:42 pm on 29 December, 2023'."""
    try:
        when = datetime.strptime(text.strip(), "%d.%m.%Y, %H:%M:%S")
    except ValueError as exc:
        raise RealtalkError(f"{where}: date {text!r} is not DD.MM.YYYY, HH:MM:SS") from exc
    return when.strftime("%I:%M %p on %d %B, %Y")


def _turn(turn: Any, where: str) -> dict[str, str]:
    if not isinstance(turn, dict):
        raise RealtalkError(f"{where}: not an object")
    for field in ("clean_text", "speaker", "dia_id"):
        if not isinstance(turn.get(field), str):
            raise RealtalkError(f"{where}: field {field!r} missing or not a string")
    out = {"speaker": turn["speaker"], "dia_id": turn["dia_id"], "text": turn["clean_text"]}
    if turn.get("blip_caption"):
        out["blip_caption"] = str(turn["blip_caption"])
    return out


def _question(qa: Any, where: str, stats: dict[str, int]) -> dict[str, Any]:
    if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
        raise RealtalkError(f"{where}: field 'question' missing or not a string")
    if not isinstance(qa.get("category"), int):
        raise RealtalkError(f"{where}: field 'category' missing or not a whole number")
    evidence = qa.get("evidence")
    if not isinstance(evidence, list):
        raise RealtalkError(f"{where}: field 'evidence' missing or not a list")
    return {"question": qa["question"], "category": qa["category"], "evidence": clean_evidence(evidence, stats)}


def to_locomo(path: Path, stats: dict[str, int]) -> dict[str, Any]:
    """One REALTALK chat file as one LoCoMo sample (sample_id: the file's stem)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RealtalkError(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("name"), dict):
        raise RealtalkError(f"{path}: field 'name' (the two speakers) missing or not an object")
    conv: dict[str, Any] = {"speaker_a": data["name"].get("speaker_1"), "speaker_b": data["name"].get("speaker_2")}
    for key, turns in data.items():
        if not _SESSION.match(key):
            continue
        if not isinstance(turns, list):
            raise RealtalkError(f"{path}: field {key!r} is not a list of turns")
        conv[key] = [_turn(t, f"{path}: {key} turn {i}") for i, t in enumerate(turns)]
        when = data.get(f"{key}_date_time")
        if not isinstance(when, str):
            raise RealtalkError(f"{path}: field '{key}_date_time' missing or not a string")
        conv[f"{key}_date_time"] = chat_time(when, f"{path}: {key}_date_time")
    if len(conv) == 2:
        raise RealtalkError(f"{path}: no session_N fields")
    if not isinstance(data.get("qa"), list):
        raise RealtalkError(f"{path}: field 'qa' missing or not a list")
    qa = [_question(q, f"{path}: qa[{i}]", stats) for i, q in enumerate(data["qa"])]
    return {"sample_id": path.stem, "conversation": conv, "qa": qa}


def write_samples(chats: list[Path], out: Path, stats: dict[str, int]) -> Path:
    """Every chat as a LoCoMo sample, in one JSON list at OUT (what locomo.Corpus reads)."""
    out.write_text(json.dumps([to_locomo(p, stats) for p in chats]), encoding="utf-8")
    return out
