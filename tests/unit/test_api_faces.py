"""Memory and AsyncMemory are two faces of one table of verbs (memdock.verbs): the same names, signatures and
docstrings, one awaitable and one not."""

import inspect

from memdock import AsyncMemory, Memory

OWN = {"close", "aclose"}


def verbs_of(cls: type) -> dict[str, object]:
    return {n: m for n, m in vars(cls).items() if inspect.isfunction(m) and not n.startswith("_") and n not in OWN}


def test_both_faces_offer_the_same_verbs_with_the_same_signatures_and_docs():
    sync, async_ = verbs_of(Memory), verbs_of(AsyncMemory)
    assert set(sync) == set(async_) and "recall" in sync and "list" in sync
    for name in sync:
        assert str(inspect.signature(sync[name])) == str(inspect.signature(async_[name])), name
        assert inspect.getdoc(sync[name]) and inspect.getdoc(sync[name]) == inspect.getdoc(async_[name]), name
        assert inspect.iscoroutinefunction(async_[name]) and not inspect.iscoroutinefunction(sync[name]), name


def test_a_verb_signature_names_its_arguments_after_self():
    params = list(inspect.signature(Memory.recall).parameters)
    assert params[:3] == ["self", "query", "thread"]
    assert list(inspect.signature(Memory.recall.__get__(object())).parameters)[0] == "query"  # bound: no self
    assert inspect.signature(Memory.recall).return_annotation == "SearchResult"
