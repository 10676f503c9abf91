"""`index`: staged episodes into graphiti one at a time, in event-time order, each checkpointed once committed.

An episode is written under its deterministic uuid: the catalog marks it `pending`, the episode node
is saved with that uuid, graphiti extracts entities and facts into the group's graph, and the
catalog marks it `committed` before the checkpoint names its records. A run killed midway leaves at
most one `pending` episode; the next run removes whatever of it reached the graph and writes it again.
Content already committed unchanged is skipped; changed content replaces its episode.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from graphiti_core.nodes import EpisodeType, EpisodicNode
from graphiti_core.search.search_utils import RELEVANT_SCHEMA_LIMIT

from memdock.bundle import BundleReader
from memdock.sdk import Context
from memdock.sdk.kit.staging import Checkpoints
from memdock.times import parse_datetime

from .removal import remove_episode
from .runtime import Runtime
from .staging import stage


def _time(value: str | None) -> datetime:
    if not value:
        return datetime.now(UTC)
    return parse_datetime(value)


async def _write(rt: Runtime, ep: dict[str, Any]) -> tuple[int, int]:
    g = await rt.graph(ep["group_id"])
    source = EpisodeType.message if ep["source"] == "message" else EpisodeType.text
    when = _time(ep["event_time"])
    node = EpisodicNode(
        uuid=ep["uuid"],
        name=ep["name"],
        group_id=ep["group_id"],
        labels=[],
        source=source,
        content=ep["body"],
        source_description=ep["source_description"],
        created_at=datetime.now(UTC),
        valid_at=when,
    )
    await node.save(g.driver)
    previous = rt.catalog.previous(ep["group_id"], ep["event_time"], ep["uuid"], RELEVANT_SCHEMA_LIMIT)
    result = await g.add_episode(
        name=ep["name"],
        episode_body=ep["body"],
        source_description=ep["source_description"],
        reference_time=when,
        source=source,
        group_id=ep["group_id"],
        uuid=ep["uuid"],
        previous_episode_uuids=previous,
    )
    return len(result.nodes), len(result.edges)


def index(rt: Runtime, ctx: Context) -> dict[str, Any]:
    rt.settings.require_models()
    rt.timings.reset()
    reader: BundleReader = ctx.input_bundle()
    checkpoint = Checkpoints(ctx)
    staged = stage(reader, rt.catalog, rt.settings)
    checkpoint(staged.ready)
    rt.connect()
    total = rt.catalog.staged_count()
    added = replaced = unchanged = 0
    for done, ep in enumerate(rt.catalog.staged(), 1):
        ids = rt.catalog.staged_members(ep["uuid"])
        state = rt.catalog.episode_state(ep["uuid"])
        if state == ("committed", ep["content_hash"]):
            unchanged += 1
            checkpoint(ids)
            ctx.progress(done, total, f"{ep['source_id']}: unchanged")
            continue
        t = time.monotonic()
        if state is not None:
            g = rt.run(rt.graph(ep["group_id"]), f"index {ep['source_id']}")
            rt.run(remove_episode(g, ep["uuid"]), f"index {ep['source_id']}: removing the earlier version")
            replaced += 1
        with rt.catalog.transaction():
            rt.catalog.mark(ep, "pending")
        nodes, edges = rt.run(_write(rt, ep), f"index {ep['source_id']} (group {ep['group_id']})")
        with rt.catalog.transaction():
            rt.catalog.mark(ep, "committed")
        added += 1
        checkpoint(ids)
        ctx.progress(done, total, f"{ep['source_id']}: {nodes} entities, {edges} facts in {time.monotonic() - t:.2f}s")
    with rt.catalog.transaction():
        rt.catalog.clear_staged()
    wall = checkpoint.seconds()
    details = {
        "episodes_added": added - replaced,
        "episodes_replaced": replaced,
        "episodes_unchanged": unchanged,
        "episode_source": rt.settings.episode_source,
        "ignored": staged.ignored,
        "time": rt.timings.summary(wall),
        "falkordb": rt.server.address if rt.server else None,
    }
    return checkpoint.result(staged.counts, details, wall)
