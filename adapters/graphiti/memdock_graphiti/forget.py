"""`delete`: forget threads, entries, chunks or episodes by id, cascading to what only they supported.

An entry or chunk id removes the episodes standing for it (and with them every record id they
stood for: an entry's chunks); a thread id removes all its episodes and drops its group's graph.
"""

from __future__ import annotations

from typing import Any

from memdock.errors import InvalidInputError

from .removal import remove_episode
from .runtime import Runtime


def _ids(params: dict[str, Any]) -> list[str]:
    ids = params.get("ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("params.ids must be a non-empty list of ids")
    return list(dict.fromkeys(ids))


def delete(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    ids = _ids(params)
    deleted: list[str] = []
    not_found: list[str] = []
    cascaded = 0
    for record_id in ids:
        episodes = rt.catalog.resolve(record_id)
        thread = rt.catalog.thread(record_id)
        if not episodes and thread is None:
            not_found.append(record_id)
            continue
        rt.connect()
        gone = {record_id}
        for uuid, gid in episodes:
            g = rt.run(rt.graph(gid), f"delete {record_id}")
            rt.run(remove_episode(g, uuid), f"delete {record_id}: episode {uuid}")
            gone.update(rt.catalog.members(uuid))
            with rt.catalog.transaction():
                rt.catalog.forget(uuid)
        if thread is not None:
            group_id = thread[0]
            rt.run(rt.drop_graph(group_id), f"delete {record_id}: dropping graph {group_id}")
            with rt.catalog.transaction():
                gone.update(rt.catalog.forget_thread(record_id))
        new = sorted(gone - set(deleted) - {record_id})
        cascaded += len(new)
        deleted.extend([record_id, *new])
    return {"deleted": deleted, "not_found": not_found, "cascaded": cascaded}
