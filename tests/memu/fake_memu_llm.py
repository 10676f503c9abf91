"""A deterministic stand-in for the LLM MemU calls, behind `openai_loopback.OpenAILoopback(chat=...)`.

MemU 1.5.1 memorizing a document (its preprocessing prompt off) makes one chat call per memory type, each a
"User Memory Extractor" prompt holding the text in `<resource>...</resource>` and asking for
`<item><memory><content/><categories><category/></categories></memory></item>`; then one call per category it
linked items to, a summary prompt with `Topic:` and `Original content:`. The stand-in answers the `event` prompt
with one memory per sentence (at most three) in the `experiences` category, every other type with an empty
`<item></item>`, and a summary with the topic and the new items. `malformed = True` makes extraction answers
prose, as a broken model would; `fail_summaries = True` makes summary calls answer HTTP 500 (through the
loopback's `fail_with`, set by the test) after extraction succeeded.
"""

from __future__ import annotations

import re
from typing import Any

EXTRACTOR_MARK = "User Memory Extractor"
EVENT_MARK = "events and experiences"


def sentences(text: str, limit: int = 3) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if p.strip()]
    return [p for p in parts if len(p) >= 8][:limit] or ([text.strip()[:300]] if text.strip() else [])


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages") or [])


class MemUStandIn:
    """Callable responder; counts extraction and summary calls and can be told to answer garbage."""

    def __init__(self) -> None:
        self.extractions = 0
        self.summaries = 0
        self.malformed = False

    @staticmethod
    def answers(body: dict[str, Any]) -> bool:
        """Whether BODY is one of MemU's prompts (for a loopback shared with other frameworks' stand-ins)."""
        prompt = _prompt(body)
        return EXTRACTOR_MARK in prompt or ("Topic:" in prompt and "Original content:" in prompt)

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = _prompt(body)
        if EXTRACTOR_MARK in prompt:
            self.extractions += 1
            if self.malformed:
                return "Sure! The user fixed a pump, I think."
            found = re.findall(r"<resource>\n(.*?)\n</resource>", prompt, re.S)
            if EVENT_MARK not in prompt or not found:
                return "<item></item>"
            memories = "".join(
                f"<memory><content>{_escape(s)}</content><categories><category>experiences</category>"
                "</categories></memory>"
                for s in sentences(found[-1])
            )
            return f"<item>{memories}</item>"
        if "Original content:" in prompt:
            self.summaries += 1
            topic = re.findall(r"Topic:\n(.*?)\n", prompt)
            return f"# {topic[-1] if topic else 'category'}\n- updated"
        return "the MemU stand-in only answers extraction and category summary prompts"
