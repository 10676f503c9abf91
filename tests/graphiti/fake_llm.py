"""A deterministic stand-in for an LLM behind an OpenAI-compatible API, for graphiti's structured-output calls.

graphiti asks for JSON matching a schema (`response_format.json_schema`) about the text between
tags in its prompt (`<CURRENT MESSAGE>`, `<ENTITIES>`, `<EXISTING ENTITIES>`, ...). The answer is
derived from that text: entities are the capitalised words and the longest other words of the
current message, facts join consecutive entities with the message's first sentence, duplicates are
exact name matches; a reranker's True/False question is answered with log-probabilities from the share
of query words the passage contains. Any other schema is filled with empty values of the right types. Served with
`openai_loopback.OpenAILoopback(chat=respond)`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

STOP = {
    "the",
    "a",
    "an",
    "we",
    "i",
    "it",
    "this",
    "that",
    "and",
    "or",
    "but",
    "yes",
    "no",
    "our",
    "they",
    "he",
    "she",
    "you",
    "decision",
    "after",
    "until",
    "with",
    "from",
    "for",
    "of",
    "in",
    "on",
    "at",
    "to",
    "is",
    "are",
    "was",
}


def respond(body: dict[str, Any]) -> str | dict[str, Any]:
    if body.get("logprobs"):
        return _relevance(body)
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or _schema_in_prompt(body)
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    props = set((schema or {}).get("properties", {}))
    for keys, fn in ANSWERS:
        if keys <= props:
            return json.dumps(fn(prompt))
    return json.dumps(_fill(schema or {"type": "object"}, schema or {}))


def _schema_in_prompt(body: dict[str, Any]) -> dict[str, Any] | None:
    """json_object mode puts the schema at the end of the last message."""
    text = str((body.get("messages") or [{}])[-1].get("content", ""))
    start = text.rfind("following format:")
    if start < 0:
        return None
    try:
        return json.loads(text[start + len("following format:") :].strip())
    except ValueError:
        return None


def _section(prompt: str, *names: str) -> str:
    for name in names:
        m = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", prompt, re.S)
        if m:
            return m.group(1)
    return ""


def _json_section(prompt: str, *names: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(_section(prompt, *names) or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def current_message(prompt: str) -> str:
    return _section(prompt, "CURRENT MESSAGE", "CURRENT_MESSAGE", "TEXT", "JSON")


def entity_names(text: str, limit: int = 6) -> list[str]:
    """Capitalised words (a speaker prefix included), then the longest other words, in order of appearance."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9_']+", text)
    names: list[str] = []
    for w in words:
        if w[0].isupper() and w.lower() not in STOP and w not in names:
            names.append(w)
    rest = sorted(
        {w.lower() for w in words if len(w) >= 6 and w.lower() not in STOP} - {n.lower() for n in names},
        key=lambda w: (-len(w), w),
    )
    return (names + rest)[:limit]


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    m = re.match(r"(.{20,300}?[.!?])(\s|$)", text)
    return (m.group(1) if m else text[:300]).strip()


def _entities(prompt: str) -> dict[str, Any]:
    return {
        "extracted_entities": [
            {"name": n, "entity_type_id": 0, "episode_indices": [0]} for n in entity_names(current_message(prompt))
        ]
    }


def _resolutions(prompt: str) -> dict[str, Any]:
    new = _json_section(prompt, "ENTITIES")
    existing = _json_section(prompt, "EXISTING ENTITIES")
    by_name = {str(e.get("name", "")).lower(): e.get("candidate_id", -1) for e in existing}
    return {
        "entity_resolutions": [
            {
                "id": e.get("id", i),
                "name": e.get("name", ""),
                "duplicate_candidate_id": by_name.get(str(e.get("name", "")).lower(), -1),
            }
            for i, e in enumerate(new)
        ]
    }


def _edges(prompt: str) -> dict[str, Any]:
    names = [str(e.get("name")) for e in _json_section(prompt, "ENTITIES") if e.get("name")]
    fact = first_sentence(current_message(prompt))
    return {
        "edges": [
            {
                "source_entity_name": a,
                "target_entity_name": b,
                "relation_type": "MENTIONED_WITH",
                "fact": fact,
                "valid_at": None,
                "invalid_at": None,
            }
            for a, b in zip(names, names[1:])
        ]
    }


def _summary(prompt: str) -> dict[str, Any]:
    return {"summary": first_sentence(current_message(prompt) or prompt[-400:])}


ANSWERS = [
    ({"extracted_entities"}, _entities),
    ({"entity_resolutions"}, _resolutions),
    ({"edges"}, _edges),
    ({"duplicate_facts", "contradicted_facts"}, lambda p: {"duplicate_facts": [], "contradicted_facts": []}),
    ({"summaries"}, lambda p: {"summaries": []}),
    ({"summary"}, _summary),
    ({"description"}, lambda p: {"description": first_sentence(p[-400:])}),
]


def _relevance(body: dict[str, Any]) -> dict[str, Any]:
    prompt = str(body["messages"][-1]["content"])
    words = lambda t: set(re.findall(r"\w+", t.lower())) - STOP
    query, passage = words(_section(prompt, "QUERY")), words(_section(prompt, "PASSAGE"))
    p = min(0.99, max(0.01, len(query & passage) / max(1, len(query))))
    token, logprob = ("True", math.log(p)) if p >= 0.5 else ("False", math.log(1 - p))
    top = [{"token": token, "logprob": logprob, "bytes": None}]
    return {
        "content": token,
        "logprobs": {"content": [{"token": token, "logprob": logprob, "bytes": None, "top_logprobs": top}]},
    }


def _fill(node: dict[str, Any], root: dict[str, Any]) -> Any:
    if "$ref" in node:
        return _fill(root.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[1], {}), root)
    if "anyOf" in node:
        return None if any(o.get("type") == "null" for o in node["anyOf"]) else _fill(node["anyOf"][0], root)
    if "default" in node:
        return node["default"]
    t = node.get("type")
    if t == "object":
        return {k: _fill(v, root) for k, v in node.get("properties", {}).items()}
    return {"array": [], "string": "", "integer": 0, "number": 0.0, "boolean": False}.get(t)


if __name__ == "__main__":  # a standalone server for trying the adapter by hand: python fake_llm.py
    import sys
    import time as _time
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=respond) as server:
        print(server.base_url, flush=True)
        while True:
            _time.sleep(3600)
