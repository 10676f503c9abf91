"""The model callables injected into LeanRAG: an OpenAI-compatible chat endpoint and an embedder, both timed.

LeanRAG's own LLM helper posts without auth and returns "" on any error, which its parsers then read as
"nothing found". Here every failure raises a memdock error instead (transient: unreachable, timed out,
HTTP 408/409/429/5xx; backend: anything else, including an empty answer), retries are left to the runner,
and the answer to a build-stage prompt (entity summaries, aggregations, cluster relations) may be served
from a cache keyed by the exact request, so rebuilding the hierarchy re-asks only what changed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from memdock.errors import BackendError, ConfigError
from memdock.sdk.kit.models import classify

from .settings import CLUSTER_DIM, Settings


class Timings:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()

    def add(self, what: str, seconds: float, calls: int = 1) -> None:
        with self.lock:
            self.seconds[what] += seconds
            self.calls[what] += calls

    def summary(self, wall: float) -> dict[str, Any]:
        out: dict[str, Any] = {"wall_s": round(wall, 3)}
        for k in sorted(self.seconds):
            out[f"{k}_s"] = round(self.seconds[k], 3)
            out[f"{k}_calls"] = self.calls[k]
        return out


class LLM:
    """`complete(prompt, system_prompt=, history_messages=)`, sync and async, in the shapes LeanRAG calls."""

    def __init__(self, settings: Settings, timings: Timings, cache: Cache | None = None):
        import openai

        self.settings, self.timings, self.cache = settings, timings, cache
        self.url = (settings.llm_base_url or "").rstrip("/")
        self.client = openai.OpenAI(
            base_url=self.url, api_key=settings.llm_api_key or "unused", timeout=settings.llm_timeout_s, max_retries=0
        )
        self.purpose = "llm"
        self.cached_answers = 0
        self.fresh: list[str] = []  # digests of answers cached by this client (dropped again if the build fails)

    def _messages(
        self, prompt: str, system_prompt: str | None, history: list[dict[str, str]] | None
    ) -> list[dict[str, str]]:
        msgs = [{"role": "system", "content": system_prompt}] if system_prompt else []
        return msgs + list(history or []) + [{"role": "user", "content": prompt}]

    def complete(
        self, prompt: str, system_prompt: str | None = None, history_messages: list | None = None, **_: Any
    ) -> str:
        messages = self._messages(prompt, system_prompt, history_messages)
        key = None
        if self.cache is not None:
            key = hashlib.sha256(json.dumps([self.settings.llm_model, messages]).encode()).hexdigest()
            hit = self.cache.get(key)
            if hit is not None:
                self.cached_answers += 1
                return hit
        started = time.monotonic()
        try:
            resp = self.client.chat.completions.create(
                model=self.settings.llm_model, messages=messages, max_tokens=self.settings.llm_max_tokens, temperature=0
            )
        except Exception as exc:
            raise classify(exc, self.settings.llm_endpoint(), self.purpose) from None
        finally:
            self.timings.add("llm", time.monotonic() - started)
        choices = getattr(resp, "choices", None) or []
        text = (choices[0].message.content or "") if choices else ""
        if not text.strip():
            raise BackendError(
                f"{self.purpose}: the model endpoint {self.url} answered with empty text "
                f"(model {self.settings.llm_model}); LeanRAG would read that as nothing found",
                details={"endpoint": self.url},
                retryable=True,
            )
        if key is not None:
            self.cache.put(key, text)  # type: ignore[union-attr]
            self.fresh.append(key)
        return text

    async def acomplete(
        self, prompt: str, system_prompt: str | None = None, history_messages: list | None = None, **kw: Any
    ) -> str:
        return await asyncio.to_thread(self.complete, prompt, system_prompt, history_messages)


class Cache:
    """Build-stage answers by request digest, in the catalog (get/put are the catalog's)."""

    def __init__(
        self, get: Callable[[str], str | None], put: Callable[[str, str], None], drop: Callable[[list[str]], None]
    ):
        self.get, self.put, self.drop = get, put, drop


class Embedder:
    """Texts to float32 vectors of the model's own dimension; `for_clustering` pads them to LeanRAG's 1024."""

    def __init__(self, settings: Settings, timings: Timings):
        self.settings, self.timings = settings, timings
        self._model: Any = None
        self._client: Any = None
        self.memo: dict[str, np.ndarray] = {}

    def _load(self) -> None:
        s = self.settings
        if s.embedding_provider == "sentence-transformers":
            if self._model is None:
                from sentence_transformers import SentenceTransformer

                from memdock.sdk.local_models import resolve_model_path

                self._model = SentenceTransformer(str(resolve_model_path(s.embedding_model)), device="cpu")
        elif self._client is None:
            import openai

            self._client = openai.OpenAI(
                base_url=s.embedding_url,
                api_key=s.embedding_api_key or s.llm_api_key or "unused",
                timeout=s.embedding_timeout_s,
                max_retries=0,
            )

    def embed(self, texts: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if todo:
            started = time.monotonic()
            try:
                self._load()
                if self._model is not None:
                    vecs = self._model.encode(todo, batch_size=32, convert_to_numpy=True, show_progress_bar=False)
                else:
                    vecs = []
                    for i in range(0, len(todo), 64):
                        resp = self._client.embeddings.create(
                            model=self.settings.embedding_model, input=todo[i : i + 64]
                        )
                        vecs.extend(d.embedding for d in resp.data)
            except ConfigError:
                raise
            except Exception as exc:
                raise classify(exc, self.settings.embedding_endpoint(), "embedding") from None
            finally:
                self.timings.add("embedding", time.monotonic() - started)
            for t, v in zip(todo, np.asarray(vecs, dtype=np.float32)):
                self.memo[t] = v
        return np.stack([self.memo[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    @property
    def dim(self) -> int:
        return int(self.embed(["dimension probe"]).shape[1])

    def for_clustering(self, text: str | list[str]) -> np.ndarray:
        """LeanRAG's embeddings_func: one text to a (1, 1024) array, zeros after the model's own dimensions."""
        texts = [text] if isinstance(text, str) else list(text)
        return pad(self.embed(texts))


def pad(vecs: np.ndarray) -> np.ndarray:
    if vecs.shape[1] > CLUSTER_DIM:
        raise ConfigError(
            f"leanrag: the embedder gives {vecs.shape[1]}-d vectors; LeanRAG's clustering takes at most {CLUSTER_DIM}"
        )
    out = np.zeros((vecs.shape[0], CLUSTER_DIM), dtype=np.float64)
    out[:, : vecs.shape[1]] = vecs
    return out
