"""Query filters (thread ids, time range, authors, roles, entry types) as SQL over a chunks or nodes alias."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from memdock.errors import InvalidInputError

from . import db
from .ingest import timestamp


def _time(filters: dict[str, Any], key: str) -> float:
    try:
        return timestamp(filters[key])  # type: ignore[return-value]
    except (TypeError, ValueError):
        raise InvalidInputError(f"filters.{key}: not an RFC 3339 date-time: {filters[key]!r}") from None


def with_metadata(filters: dict[str, Any] | None, matching: Any) -> dict[str, Any] | None:
    """FILTERS with params.where (the metadata filter: {key: [values, any of which matches]}) folded in."""
    if matching is None:
        return filters
    if not isinstance(matching, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and v for k, v in matching.items()
    ):
        raise InvalidInputError("params.where must be an object of key: [value, ...]")
    return {**(filters or {}), "metadata": matching}


NULL_VALUE = "X'00'"  # a JSON null's value where values are compared: json_extract and json_each never give a BLOB


def _metadata(matching: dict[str, list[Any]], alias: str) -> tuple[list[str], list[Any]]:
    """Each key's value (from the record's attrs, where ingest keeps `metadata`) one of the values given. JSON
    compares by type: the string "1" is not the number 1, and true is not 1 (a JSON null, NULL in SQL, is read as
    NULL_VALUE, which no JSON value is, so that it matches a null given).

    A record's attrs are read once a record (chunks' are rebuilt from what is stored, chunk_attrs.py), and looked up
    among the values given, which SQLite gathers once a query: where every value given is a string, the value alone
    (a JSON string is the only value json_extract gives as that text but an array or object, so the type is read
    where the value is found); else the pair of type and value, read in a subquery SQLite does not flatten (its
    LIMIT). Read beside each value given instead (json_type and json_extract in a subquery of the values), as
    before schema 11, they were rebuilt twice a value given: bench/sqlite_attrs.py."""
    conds, args = [], []
    for key, values in matching.items():
        path = "$.metadata." + json.dumps(key)
        if all(isinstance(v, str) for v in values):  # the type is read only where the value is one of them
            conds.append(
                f"json_extract({alias}.attrs, ?) IN (SELECT value FROM json_each(?)) "
                f"AND json_type({alias}.attrs, ?) = 'text'"
            )
            args.extend([path, json.dumps(values), path])
            continue
        conds.append(
            f"(SELECT json_type(a.attrs, ?), coalesce(json_extract(a.attrs, ?), {NULL_VALUE}) "
            f"FROM (SELECT {alias}.attrs AS attrs LIMIT 1) a) "
            f"IN (SELECT type, coalesce(value, {NULL_VALUE}) FROM json_each(?))"
        )
        args.extend([path, path, json.dumps(values)])
    return conds, args


def where(
    filters: dict[str, Any] | None, alias: str, conn: sqlite3.Connection | None = None
) -> tuple[list[str], list[Any]]:
    """SQL conditions and their parameters. Authors match case-insensitively, and "Codex (lee)" matches
    "codex" or "lee" as well as itself, because watercooler authors are written as "agent (user)"."""
    if not filters:
        return [], []
    if not isinstance(filters, dict):
        raise InvalidInputError("filters must be an object")
    conds: list[str] = []
    args: list[Any] = []
    if filters.get("thread_ids"):
        threads = json.dumps(list(filters["thread_ids"]))
        if alias == "c":  # chunks: their own thread or their entry's (db.THREAD)
            conds.append(f"c.rowid IN ({db.in_threads(conn)})")
            args += [threads, threads]
        else:
            conds.append(f"{alias}.thread_id IN (SELECT value FROM json_each(?))")
            args.append(threads)
    if filters.get("time_from"):
        conds.append(f"{alias}.event_ts >= ?")
        args.append(_time(filters, "time_from"))
    if filters.get("time_to"):
        conds.append(f"{alias}.event_ts <= ?")
        args.append(_time(filters, "time_to"))
    if filters.get("authors"):
        # one json_each for any number of authors: an OR per author hits SQLite's expression depth limit (1000)
        author = f"lower({alias}.author)"
        conds.append(
            f"EXISTS (SELECT 1 FROM json_each(?) a WHERE {author} = a.value OR {author} LIKE a.value || ' (%' "
            f"OR {author} LIKE '%(' || a.value || ')')"
        )
        args.append(json.dumps([str(name).lower() for name in filters["authors"]]))
    for key, column in (("roles", "role"), ("entry_types", "entry_type")):
        if filters.get(key):
            conds.append(f"lower({alias}.{column}) IN (SELECT lower(value) FROM json_each(?))")
            args.append(json.dumps([str(v) for v in filters[key]]))
    if filters.get("metadata"):
        more, values = _metadata(filters["metadata"], alias)
        conds += more
        args += values
    return conds, args
