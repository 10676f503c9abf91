"""`text_once.Held` compares a chunk that is its entry's whole body (every short note) as text instead of by digest
(ingest speed, issue 31): which entries are stored without their body must not move. Each case is checked against
the rule as first written (every chunk body digested, the digests compared in position order)."""

from __future__ import annotations

import json

from tantivy_support import gate, in_adapter

pytestmark = gate

SCRIPT = r"""
import json
from memdock_tantivy import text_once

def by_digests(body, chunks):
    parts = sorted(chunks, key=lambda c: c["position"])
    at = 0
    for c in parts:
        piece = text_once.chunk_body(c)
        if text_once._digest(body[at : at + len(piece)]) != text_once._digest(piece):
            return False
        at += len(piece)
    return at == len(body)

B = "a short note, one chunk"
cases = {
    "one chunk, the body": [{"text": B}],
    "one chunk, header and the body": [{"header": "H", "text": "H\n" + B}],
    "one chunk, another text": [{"text": B[:-1] + "!"}],
    "one chunk, the body less its end": [{"text": B[:-1]}],
    "the body twice": [{"text": B}, {"text": B}],
    "the body and an empty chunk": [{"text": B}, {"text": ""}],
    "an empty chunk first": [{"text": ""}, {"text": B}],
    "two halves": [{"text": B[:7]}, {"text": B[7:]}],
    "two halves, out of order": [{"text": B[7:]}, {"text": B[:7]}],
    "the body, then a half": [{"text": B}, {"text": B[7:]}],
}
out = {}
for name, chunks in cases.items():
    decided = []
    for early in (False, True):  # early: `ready` after each chunk (the entry to the spool once they hold it)
        held = text_once.Held(True, spool_above=0 if early else None)
        entry = {"id": "entry:e", "thread_id": "thread:t", "body": B}
        assert held.keep(entry)
        for k, c in enumerate(chunks):
            held.saw({"id": f"chunk:{k}", "entry_id": "entry:e", "thread_id": "thread:t", "position": k, **c})
            if early:
                held.ready()
        ((got, how, crossed),) = [x for part in held.release(lambda ids: []) for x in part]
        assert got == entry and not crossed
        decided.append(how == text_once.JOINED)
    out[name] = [*decided, by_digests(B, [{"position": k, **c} for k, c in enumerate(chunks)])]
print(json.dumps(out))
"""


def test_a_whole_body_chunk_compared_as_text_decides_as_digests_do() -> None:
    out = json.loads(in_adapter(SCRIPT))
    assert all(got == early == want for got, early, want in out.values()), out
    assert out["one chunk, the body"] == [True] * 3 and out["two halves"] == [True] * 3
    assert out["the body twice"][0] is False and out["the body, then a half"][0] is False
