"""A deterministic stand-in for the LLM behind LeanRAG, answering its prompts in the formats its parsers read.

Each prompt is recognised by a short marker of our choosing, and answered from the text it carries:
- entity extraction (the prompt ends with the entity types and the chunk text): records
  `("entity"<|>"NAME"<|>"type"<|>"description")` joined by `##` and closed by `<|COMPLETE|>`, one per
  distinctive word of the text, each described by the sentence it came from;
- relation extraction (it lists the entities found): `("relationship"<|>"A"<|>"B"<|>"description"<|>weight)`
  records between consecutive entities;
- the gleaning follow-up (history present): only the completion marker, i.e. nothing more;
- an entity summary (it carries merged descriptions, then worked examples): the first words of the merged ones;
- an aggregation (it carries a CSV table of entities): a JSON object with entity_name, entity_description
  and findings;
- a cluster-to-cluster relation (it carries relation lines): one sentence.
Anything else gets "ok". `calls` counts answers by kind; `fail` makes one kind answer badly.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from typing import Any

STOP = {
    "about",
    "after",
    "again",
    "their",
    "there",
    "these",
    "those",
    "which",
    "while",
    "would",
    "could",
    "should",
    "where",
    "other",
    "being",
    "until",
    "through",
    "because",
    "before",
    "under",
    "since",
    "every",
    "still",
}
TD, RD, DONE = "<|>", "##", "<|COMPLETE|>"


def _clean(text: str) -> str:
    return " ".join(text.replace("#", " ").replace("<|", " ").replace("|>", " ").replace('"', "'").split())


def _words(text: str, n: int = 4) -> list[str]:
    seen: dict[str, None] = {}
    for w in re.findall(r"[A-Za-z][A-Za-z_]{4,}", text):
        if w.lower() not in STOP:
            seen.setdefault(w.upper(), None)
    return sorted(seen, key=lambda w: -len(w))[:n]


def _after(prompt: str, label: str) -> str:
    return prompt.rsplit(label, 1)[1].split("\n#", 1)[0].strip()


class FakeLLM:
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.fail: dict[str, str] = {}  # kind -> "empty" | "malformed"
        self.lock = threading.Lock()

    def kind(self, body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if len(body["messages"]) > 1 and body["messages"][0]["role"] != "system" and "missed" in prompt:
            return "glean"
        label = prompt.rsplit("Text:", 1)[0].rstrip().rsplit("\n", 1)[-1] if "Text:" in prompt else ""
        if label.startswith("Entity_types:"):
            return "entities"
        if label.startswith("Entities:"):
            return "relations"
        if "Entity Descriptions:" in prompt:
            return "summary"
        if "-----Entities-----" in prompt:  # first: its relationship table may hold relation lines
            return "aggregation"
        if "relationship<|>" in prompt:
            return "cluster_relation"
        return "other"

    def __call__(self, body: dict[str, Any]) -> str:
        kind = self.kind(body)
        with self.lock:
            self.calls[kind] += 1
        bad = self.fail.get(kind)
        if bad == "empty":
            return ""
        if bad == "malformed":
            return "I could not decide on a name, sorry {not json"
        prompt = body["messages"][-1]["content"]
        return getattr(self, f"_{kind}")(prompt)

    def _entities(self, prompt: str) -> str:
        text = _clean(_after(prompt, "Text:"))
        sentence = text[:300]
        recs = [f'("entity"{TD}"{w}"{TD}"concept"{TD}"{w.lower()} as mentioned: {sentence}")' for w in _words(text)]
        return RD.join(recs) + DONE

    def _relations(self, prompt: str) -> str:
        names = [
            n.strip().strip('"') for n in prompt.rsplit("\nEntities:", 1)[1].split("\n", 1)[0].split(",") if n.strip()
        ]
        text = _clean(_after(prompt, "Text:"))[:200]
        recs = [
            f'("relationship"{TD}"{a}"{TD}"{b}"{TD}"{a.lower()} relates to {b.lower()}: {text}"{TD}5)'
            for a, b in zip(names, names[1:])
        ]
        return RD.join(recs) + DONE

    def _glean(self, prompt: str) -> str:
        return DONE

    def _summary(self, prompt: str) -> str:
        desc = prompt.split("Entity Descriptions:", 1)[1].split("\n\n", 1)[0]  # the first: later ones are examples
        return " ".join(desc.replace("|", " ").split()[:40])

    def _aggregation(self, prompt: str) -> str:
        table = prompt.split("-----Entities-----", 1)[1].split("-----Relationships-----", 1)[0]
        names = re.findall(r'^"?\d+"?,\s*"([^"]+)"', table, re.M)
        digest = hashlib.sha1("|".join(sorted(names)).encode()).hexdigest()[:6]
        title = f"{' & '.join(n.title() for n in names[:2])} group {digest}"
        return json.dumps(
            {
                "entity_name": title.upper(),
                "entity_description": f"A group of {len(names)} related entities: "
                f"{', '.join(n.lower() for n in names[:8])}.",
                "findings": [
                    {"summary": f"{n.title()} belongs here", "explanation": f"{n.lower()} is one of the members"}
                    for n in names[:3]
                ],
            }
        )

    def _cluster_relation(self, prompt: str) -> str:
        return "The two groups are connected through entities that appear together in the same notes."

    def _other(self, prompt: str) -> str:
        return "ok"
