"""A deterministic stand-in for the LLM mem0 calls, behind `openai_loopback.OpenAILoopback(chat=...)`.

mem0 2.2.1 makes one chat call per `add(..., infer=True)`: a system prompt that opens as a
"Memory Extractor" and a user prompt whose `## New Messages` section holds the messages as JSON;
it parses `{"memory": [{"text": ...}]}` from the answer. The stand-in answers with one memory per
sentence of the new messages (at most three), each prefixed by the speaker's name when the message
has one. `MemoryExtractor.malformed = True` makes it answer text that is not JSON, as a broken model would.
"""

from __future__ import annotations

import json
import re
from typing import Any

EXTRACTOR_MARK = "Memory Extractor"


def _section(prompt: str, title: str) -> str:
    m = re.search(rf"## {re.escape(title)}\n(.*?)(?:\n\n## |\Z)", prompt, re.S)
    return m.group(1).strip() if m else ""


def sentences(text: str, limit: int = 3) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if p.strip()]
    return [p for p in parts if len(p) >= 8][:limit] or ([text.strip()[:300]] if text.strip() else [])


class MemoryExtractor:
    """Callable responder; counts extraction calls and can be told to answer garbage."""

    def __init__(self) -> None:
        self.calls = 0
        self.malformed = False

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        system = str(messages[0].get("content", "")) if messages else ""
        if EXTRACTOR_MARK not in system:
            return json.dumps({"error": "the mem0 stand-in only answers the extraction prompt"})
        self.calls += 1
        if self.malformed:
            return "Sure! Here are the memories: - the pump was fixed"
        raw = _section(str(messages[-1].get("content", "")), "New Messages")
        try:
            new = json.loads(raw)
        except ValueError:
            new = [{"role": "user", "content": raw}]
        memories = []
        for msg in new if isinstance(new, list) else []:
            speaker = msg.get("name")
            for s in sentences(str(msg.get("content", ""))):
                memories.append({"text": f"{speaker}: {s}" if speaker else s})
        return json.dumps({"memory": memories[:3]})
