"""graphiti search recipes per operation, and their scores mapped into [0, 1].

With a reranker: graphiti's cross-encoder recipes (BM25, cosine and breadth-first search, then
OpenAI's reranker, whose scores are probabilities). Without one: the RRF recipes, whose score is a
sum of 1/rank over the search methods; divided by the number of methods it lies in (0, 1].
"""

from __future__ import annotations

from graphiti_core.search.search_config import (
    EdgeReranker,
    EdgeSearchConfig,
    EdgeSearchMethod,
    EpisodeReranker,
    EpisodeSearchConfig,
    EpisodeSearchMethod,
    NodeReranker,
    NodeSearchConfig,
    NodeSearchMethod,
    SearchConfig,
)

LAYERS = ("edges", "nodes", "episodes")
OPERATIONS = {"query": LAYERS, "search_facts": ("edges",), "search_nodes": ("nodes",), "search_episodes": ("episodes",)}


def _edges(rerank: bool) -> EdgeSearchConfig:
    methods = [EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity] + ([EdgeSearchMethod.bfs] if rerank else [])
    return EdgeSearchConfig(search_methods=methods, reranker=EdgeReranker.cross_encoder if rerank else EdgeReranker.rrf)


def _nodes(rerank: bool) -> NodeSearchConfig:
    methods = [NodeSearchMethod.bm25, NodeSearchMethod.cosine_similarity] + ([NodeSearchMethod.bfs] if rerank else [])
    return NodeSearchConfig(search_methods=methods, reranker=NodeReranker.cross_encoder if rerank else NodeReranker.rrf)


def _episodes(rerank: bool) -> EpisodeSearchConfig:
    return EpisodeSearchConfig(
        search_methods=[EpisodeSearchMethod.bm25],
        reranker=EpisodeReranker.cross_encoder if rerank else EpisodeReranker.rrf,
    )


def config(operation: str, limit: int, rerank: bool) -> SearchConfig:
    layers = OPERATIONS[operation]
    return SearchConfig(
        edge_config=_edges(rerank) if "edges" in layers else None,
        node_config=_nodes(rerank) if "nodes" in layers else None,
        episode_config=_episodes(rerank) if "episodes" in layers else None,
        limit=limit,
    )


def normalise(layer: str, raw: float, rerank: bool) -> float:
    if rerank:
        return max(0.0, min(1.0, float(raw)))
    methods = 1 if layer == "episodes" else 2
    return max(0.0, min(1.0, float(raw) / methods))


SCORE_SEMANTICS = (
    "without a reranker: graphiti's reciprocal-rank fusion (sum of 1/rank over BM25 and cosine) "
    "divided by the number of methods fused; with OpenAI's reranker: its relevance probability"
)
