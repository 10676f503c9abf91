"""The kit's check that deleting a thread leaves nothing that answers as the thread's.

A chunk names its thread as well as its entry, and the two may differ (golden.CROSSED): the thread's entries may have
chunks sent with another thread, and another thread's entry a chunk sent with this one. After the thread is deleted,
no hit may name it or one of its entries, unfiltered or under a filter on it, nor may get_node answer one as its;
the other thread keeps its own entry. A cascade that follows only entries, or only the chunks' thread ids,
leaves one of the crossed chunks behind."""

from __future__ import annotations

from collections.abc import Iterable

from ..records import Hit
from ..runner.backend import SubprocessBackend
from . import golden
from .harness import Fail, Harness, Skip

GONE_ENTRIES = {eid for eid, thread, _, _ in golden.CROSSED if thread == golden.CROSSED_GONE}
KEPT_ENTRY = next(eid for eid, thread, sent, _ in golden.CROSSED if thread == sent == golden.CROSSED_KEEP)
GONE_IDS = GONE_ENTRIES | {golden.crossed_chunk_id(e) for e in GONE_ENTRIES}


def _names_gone(hit: Hit) -> bool:
    """HIT answers as the deleted thread's: it names the thread, or is (or comes from) one of its entries."""
    prov = hit.provenance or {}
    return prov.get("thread_id") == golden.CROSSED_GONE or prov.get("entry_id") in GONE_ENTRIES or hit.id in GONE_IDS


def _ask(b: SubprocessBackend, threads: list[str] | None = None) -> Iterable[tuple[str, Hit]]:
    """Every hit for every CROSSED text, as (text, hit), filtered to THREADS when given."""
    filters = {"thread_ids": threads} if threads else None
    for _eid, _thread, _sent, text in golden.CROSSED:
        for hit in b.query(text, limit=10, filters=filters).hits:
            yield text, hit


def _left(b: SubprocessBackend) -> list[str]:
    found = [f"{hit.id} for {text!r}" for text, hit in _ask(b) if _names_gone(hit)]
    found += [f"{hit.id} under a filter on it" for _, hit in _ask(b, [golden.CROSSED_GONE]) if _names_gone(hit)]
    return sorted(set(found))


def check_delete_thread(h: Harness) -> str:
    caps = h.capabilities()
    if not (caps.has("delete") and caps.supports("delete")):
        raise Skip("adapter does not declare delete")
    if not caps.supports("query") or caps.features.get("retrieval", True) is False:
        raise Skip("adapter declares no retrieval (features.retrieval=false or no query)")
    b = h.backend()
    b.index(golden.write_crossed(h.root / "golden-crossed"))
    with h.reader(b.store) as r:
        before = sum(_names_gone(hit) for _, hit in _ask(r))
    if not before:
        raise Fail(f"before the delete, no query found anything of {golden.CROSSED_GONE}")
    result = b.delete([golden.CROSSED_GONE])
    if golden.CROSSED_GONE not in result.deleted:
        raise Fail(f"delete did not report {golden.CROSSED_GONE} as deleted: {result}")
    with h.reader(b.store) as r:
        _judge_after(r, caps.supports("get_node"))
    return f"{before} hits named the thread before its delete, none after ({len(result.deleted)} ids deleted)"


def _judge_after(b: SubprocessBackend, get_node: bool) -> None:
    """Fail where anything on B still answers as the deleted thread's, or the kept thread lost its entry."""
    left = _left(b)
    if left:
        raise Fail(f"after deleting {golden.CROSSED_GONE}, queries still return what answers as its: {left}")
    if get_node:
        asked = sorted(GONE_ENTRIES) + [golden.crossed_chunk_id(eid) for eid, *_ in golden.CROSSED]
        answered = [i for i in asked if (item := b.get_node(i).item) is not None and _names_gone(item)]
        if answered:
            raise Fail(f"after deleting {golden.CROSSED_GONE}, get_node still answers {answered} as its")
    kept = next(text for eid, _, _, text in golden.CROSSED if eid == KEPT_ENTRY)
    if not any(KEPT_ENTRY in (hit.id, hit.provenance.get("entry_id")) for hit in b.query(kept, limit=10).hits):
        raise Fail(f"deleting {golden.CROSSED_GONE} took {KEPT_ENTRY} of {golden.CROSSED_KEEP} with it")
