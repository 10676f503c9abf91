"""Tantivy queries built from parts, never parsed from user text: words become term queries, filters become
zero-scored required clauses, so no operator, quote, `*` or `:` a user types can be syntax."""

from __future__ import annotations

from typing import Any

import tantivy

from memdock.errors import InvalidInputError

from . import store
from .docs import timestamp
from .keys import Keys

MAX_TERMS = 64
HEADER_BOOST = 2.0
SET_FROM = 128

Occur = tantivy.Occur
Query = tantivy.Query


class Words:
    """User text to the index's terms: the index analyser, with English stopwords dropped unless none are left."""

    def __init__(self) -> None:
        self.plain = store.analyzer()
        self.content = store.analyzer(stopwords=True)

    def terms(self, text: str) -> list[str]:
        found = self.content.analyze(text) or self.plain.analyze(text)
        return list(dict.fromkeys(found))[:MAX_TERMS]


def text_query(schema: tantivy.Schema, terms: list[str], fields: dict[str, float]) -> tantivy.Query:
    """BM25 over FIELDS (name -> boost), any term may match: a disjunction tantivy prunes to the top k."""
    clauses = []
    for term in terms:
        for field, boost in fields.items():
            q = Query.term_query(schema, field, term)
            clauses.append((Occur.Should, q if boost == 1.0 else Query.boost_query(q, boost)))
    return Query.boolean_query(clauses)


def key(keys: Keys, field: str, values: list[str]) -> tantivy.Query:
    """Any of VALUES, exactly, as the store's KEYS index them. Up to SET_FROM values as term queries: a term set
    query over ten ids took about six times as long (it walks the field's term dictionary)."""
    terms, schema = [keys.term(field, v) for v in values], keys.schema
    if len(terms) == 1:
        return Query.term_query(schema, field, terms[0])
    if len(terms) < SET_FROM:
        return Query.boolean_query([(Occur.Should, Query.term_query(schema, field, t)) for t in terms])
    return Query.term_set_query(schema, field, terms)


def _strings(filters: dict[str, Any], name: str) -> list[str]:
    value = filters[name]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInputError(f"filters.{name} must be a list of strings")
    return value


def _time(filters: dict[str, Any], name: str) -> float:
    try:
        return timestamp(filters[name])  # type: ignore[return-value]
    except (TypeError, ValueError, AttributeError):
        raise InvalidInputError(f"filters.{name}: not an RFC 3339 date-time: {filters[name]!r}") from None


def filter_clauses(keys: Keys, filters: dict[str, Any] | None) -> list[tantivy.Query]:
    """Thread ids, time range, authors, roles and entry types, as sqlite reads them (case-insensitive values)."""
    if not filters:
        return []
    if not isinstance(filters, dict):
        raise InvalidInputError("filters must be an object")
    out = []
    if filters.get("thread_ids"):
        out.append(key(keys, "thread_id", _strings(filters, "thread_ids")))
    lo = _time(filters, "time_from") if filters.get("time_from") else None
    hi = _time(filters, "time_to") if filters.get("time_to") else None
    if lo is not None or hi is not None:
        out.append(Query.range_query(keys.schema, "ts", tantivy.FieldType.Float, lo, hi))
    for name, field in (("authors", "author"), ("roles", "role"), ("entry_types", "etype")):
        if filters.get(name):
            out.append(key(keys, field, [v.strip().lower() for v in _strings(filters, name)]))
    return out


def combine(scored: tantivy.Query | None, required: list[tantivy.Query]) -> tantivy.Query:
    """SCORED must match and decides the score; each of REQUIRED must match and adds nothing to it."""
    if scored is not None and not required:
        return scored
    clauses = [(Occur.Must, Query.const_score_query(q, 0.0)) for q in required]
    if scored is not None:
        clauses.insert(0, (Occur.Must, scored))
    return Query.boolean_query(clauses)


def score(raw: float) -> float:
    """BM25 is >= 0 and unbounded; s/(1+s) maps it monotonically into [0, 1)."""
    s = max(0.0, raw)
    return s / (1.0 + s)
