"""The query's filters (thread, time, author, role, type, and params.where over metadata) as SQL conditions.

Metadata is matched on the chunk's own record (`rec->'metadata'`, kept whole in jsonb), as the sqlite adapter
matches it: each key's value one of the values given, compared as JSON (the string "1" is not the number 1, and
true is not 1)."""

from __future__ import annotations

from typing import Any

from memdock_entries.filters import Filters

from memdock.errors import InvalidInputError


def metadata(matching: Any) -> dict[str, list[Any]]:
    """params.where checked: {key: [value, ...]}, each list non-empty; {} when absent."""
    if matching is None:
        return {}
    if not isinstance(matching, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and v for k, v in matching.items()
    ):
        raise InvalidInputError("params.where must be an object of key: [value, ...]")
    return matching


def _metadata(matching: dict[str, list[Any]], alias: str, args: dict[str, Any]) -> list[str]:
    from psycopg.types.json import Jsonb

    conds = []
    for i, (key, values) in enumerate(sorted(matching.items())):
        value = f"{alias}.rec->'metadata'->%(mk{i})s"
        conds.append(f"EXISTS (SELECT 1 FROM jsonb_array_elements(%(mv{i})s) w(v) WHERE w.v = {value})")
        args[f"mk{i}"], args[f"mv{i}"] = key, Jsonb(values)
    return conds


def where(params: dict[str, Any], alias: str, args: dict[str, Any]) -> str:
    """SQL conditions (each led by AND) for the query's filters over a chunks or entries ALIAS; values into ARGS."""
    f = Filters.parse(params)
    conds = []
    if f.threads:
        conds.append(f"{alias}.thread_id = ANY(%(threads)s)")
        args["threads"] = list(f.threads)
    if f.since is not None:
        conds.append(f"{alias}.ts >= %(since)s")
        args["since"] = f.since
    if f.until is not None:
        conds.append(f"{alias}.ts <= %(until)s")
        args["until"] = f.until
    if f.authors:  # any of the author's keys: "Codex (lee)" is found as itself, codex or lee
        conds.append(f"{alias}.author_keys && %(authors)s")
        args["authors"] = [v.strip() for v in f.authors]
    for key, column, values in (("roles", "role", f.roles), ("types", "entry_type", f.types)):
        if values:
            conds.append(f"{alias}.{column} = ANY(%({key})s)")
            args[key] = [v.strip() for v in values]
    conds += _metadata(metadata(params.get("where")), alias, args)
    return "".join(f" AND {c}" for c in conds)
