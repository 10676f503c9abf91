"""Removing an episode and what only it supported.

graphiti's own `remove_episode` deletes every fact the episode created first, even when later
episodes support it too, and runs on the default graph. This keeps a fact that other episodes still
support (it just loses the episode), deletes entities no other episode mentions, and runs on the
graph of the episode's group.
"""

from __future__ import annotations

from typing import Any

from graphiti_core import Graphiti
from graphiti_core.edges import Edge, EntityEdge
from graphiti_core.errors import NodeNotFoundError
from graphiti_core.nodes import EpisodicNode, Node
from graphiti_core.search.search_utils import get_mentioned_nodes


async def remove_episode(g: Graphiti, uuid: str) -> bool:
    """False when the graph has no such episode (nothing to do)."""
    driver = g.driver
    try:
        episode = await EpisodicNode.get_by_uuid(driver, uuid)
    except NodeNotFoundError:
        return False
    drop: list[Any] = []
    keep: list[Any] = []
    for edge in await EntityEdge.get_by_uuids(driver, episode.entity_edges):
        others = [e for e in edge.episodes if e != uuid]
        (keep if others else drop).append((edge.uuid, others))
    for edge_uuid, others in keep:
        await driver.execute_query(
            "MATCH ()-[e:RELATES_TO {uuid: $uuid}]->() SET e.episodes = $episodes", uuid=edge_uuid, episodes=others
        )
    orphans = []
    for node in await get_mentioned_nodes(driver, [episode]):
        records, _, _ = await driver.execute_query(
            "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity {uuid: $uuid}) RETURN count(*) AS episode_count", uuid=node.uuid
        )
        if all(r["episode_count"] <= 1 for r in records):
            orphans.append(node.uuid)
    if drop:
        await Edge.delete_by_uuids(driver, [u for u, _ in drop])
    if orphans:
        await Node.delete_by_uuids(driver, orphans)
    await episode.delete(driver)
    return True
