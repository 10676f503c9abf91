"""graphiti's three clients, built from settings, each timed: the LLM, the embedder and the cross-encoder.

All three are always passed to graphiti explicitly; left out, it builds OpenAI clients of its own that
fail without a key. Without a reranker key the cross-encoder is a pass-through and the search recipes
are the RRF ones, so it is never asked to rank.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import Any

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.config import LLMConfig
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
from openai import AsyncOpenAI

from memdock.errors import ConfigError
from memdock.sdk.local_models import resolve_model_path

from .settings import Settings

NO_KEY = "not-needed"  # the openai client insists on some key; local servers ignore it


@dataclass
class Timings:
    """Seconds spent in each kind of call, summed over calls (concurrent calls overlap, so the sum may exceed wall
    time)."""

    seconds: dict[str, float] = field(default_factory=lambda: {"llm": 0.0, "embedding": 0.0, "database": 0.0})
    calls: dict[str, int] = field(default_factory=lambda: {"llm": 0, "embedding": 0, "database": 0})

    def add(self, kind: str, seconds: float) -> None:
        self.seconds[kind] += seconds
        self.calls[kind] += 1

    def reset(self) -> None:
        for kind in self.seconds:
            self.seconds[kind], self.calls[kind] = 0.0, 0

    def summary(self, wall: float) -> dict[str, Any]:
        return {
            "wall_s": round(wall, 3),
            **{f"{k}_s": round(v, 3) for k, v in self.seconds.items()},
            **{f"{k}_calls": v for k, v in self.calls.items()},
        }


class TimedLLM(OpenAIGenericClient):
    def __init__(self, *args: Any, timings: Timings, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.timings = timings

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        t = time.perf_counter()
        try:
            return await super()._generate_response(*args, **kwargs)
        finally:
            self.timings.add("llm", time.perf_counter() - t)


class TimedEmbedder(EmbedderClient):
    def __init__(self, inner: EmbedderClient, timings: Timings):
        self.inner, self.timings = inner, timings

    async def create(self, input_data: Any) -> list[float]:
        t = time.perf_counter()
        try:
            return await self.inner.create(input_data)
        finally:
            self.timings.add("embedding", time.perf_counter() - t)

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        t = time.perf_counter()
        try:
            return await self.inner.create_batch(input_data_list)
        finally:
            self.timings.add("embedding", time.perf_counter() - t)


class LocalEmbedder(EmbedderClient):
    """A sentence-transformers model on this machine (a directory, or a gt-<name> package)."""

    def __init__(self, model: str, dim: int | None):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ConfigError(
                "embedding_provider sentence-transformers needs sentence-transformers in the adapter's venv: "
                "memdock adapters install graphiti --with 'torch==2.13.0' --with sentence-transformers"
            ) from None
        self.model = SentenceTransformer(str(resolve_model_path(model)), device="cpu")
        self.dim = dim

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors = self.model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
        return [v[: self.dim].tolist() if self.dim else v.tolist() for v in vectors]

    async def create(self, input_data: Any) -> list[float]:
        text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))  # graphiti passes [query]
        return (await asyncio.to_thread(self._encode, [text]))[0]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._encode, list(input_data_list))


class PassThroughReranker(CrossEncoderClient):
    """Keeps the given order; the RRF recipes never call it, it is here so graphiti builds no OpenAI reranker."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        n = len(passages)
        return [(p, 1.0 - i / max(n, 1)) for i, p in enumerate(passages)]


def _openai(base_url: str, key: str | None, timeout: float) -> AsyncOpenAI:
    """Retries belong to memdock's runner (one retry of a transient error), not to the client."""
    return AsyncOpenAI(base_url=base_url, api_key=key or NO_KEY, timeout=timeout, max_retries=0)


def llm(settings: Settings, timings: Timings) -> OpenAIGenericClient:
    config = LLMConfig(
        api_key=settings.llm_api_key or NO_KEY,
        model=settings.llm_model,
        small_model=settings.small_model,
        base_url=settings.llm_url,
    )
    return TimedLLM(
        config,
        client=_openai(settings.llm_url, settings.llm_api_key, settings.llm_timeout_s),
        max_tokens=settings.llm_max_tokens,
        structured_output_mode=settings.llm_structured_output,
        timings=timings,
    )


def embedder(settings: Settings, timings: Timings) -> EmbedderClient:
    if settings.embedding_provider == "sentence-transformers":
        inner: EmbedderClient = LocalEmbedder(settings.embedding_model or "", settings.embedding_dim)
    else:
        from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig

        kw: dict[str, Any] = {"embedding_model": settings.embedding_model or "text-embedding-3-small"}
        if settings.embedding_dim:
            kw["embedding_dim"] = settings.embedding_dim
        inner = OpenAIEmbedder(
            OpenAIEmbedderConfig(api_key=settings.embedding_key or NO_KEY, base_url=settings.embedding_url, **kw),
            client=_openai(settings.embedding_url, settings.embedding_key, settings.llm_timeout_s),
        )
    return TimedEmbedder(inner, timings)


def cross_encoder(settings: Settings) -> CrossEncoderClient:
    if not settings.rerank:
        return PassThroughReranker()
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient

    url = (settings.reranker_base_url or settings.llm_url).rstrip("/")
    config = LLMConfig(
        api_key=settings.reranker_api_key, model=settings.reranker_model or settings.small_model, base_url=url
    )
    return OpenAIRerankerClient(config=config, client=_openai(url, settings.reranker_api_key, settings.llm_timeout_s))
