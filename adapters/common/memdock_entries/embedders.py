"""Optional text embedders: a local sentence-transformers model, or an OpenAI-compatible /v1/embeddings endpoint.

Both return L2-normalised float32 vectors as bytes (little-endian), so cosine similarity is a dot product.
Without an embedder configured, nothing here is imported and the adapter needs only the standard library.
The sqlite and postgres adapters share them: the same config fields (`embedding_*`) mean the same model.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import struct
import sys
from typing import Any, Protocol

from memdock.errors import BackendError, ConfigError, TransientError
from memdock.sdk.kit.settings import SchemaSettings
from memdock.sdk.local_models import resolve_model_path

from .mean_pooled import MeanPooled, plain_form


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> list[bytes]: ...

    def embed_query(self, text: str) -> bytes: ...


def _normalised(vec: list[float]) -> bytes:
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return struct.pack(f"<{len(vec)}f", *(x / norm for x in vec))


class SentenceTransformerEmbedder:
    """A local model: one of the plainest form runs on torch's own layers (mean_pooled.py), any other in
    sentence-transformers. With query_int8, a question is embedded by a sentence-transformers copy whose linear
    layers hold int8 weights (dynamic quantisation), built on the first question; the stored vectors stay the float
    model's."""

    def __init__(self, model: str, *, threads: int = 2, batch_size: int = 64, query_int8: bool = False):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        path = resolve_model_path(model)
        try:
            import torch

            torch.set_num_threads(threads)
            self.model = MeanPooled(path) if plain_form(path) else _sentence_model(path)
        except ImportError as exc:
            raise ConfigError(
                f"embedding_provider sentence-transformers needs the sentence-transformers package in {sys.executable} "
                f"({exc}); install it with: pip install 'torch==2.13.0' sentence-transformers"
            ) from None
        self.name = f"st:{path.name}"
        self.path, self.batch_size = path, batch_size
        self.query_int8 = query_int8
        self._query_model: Any = None

    def embed(self, texts: list[str]) -> list[bytes]:
        return _encode(self.model, texts, self.batch_size)

    def embed_query(self, text: str) -> bytes:
        if not self.query_int8:
            return self.embed([text])[0]
        if self._query_model is None:
            float_model = self.model if not isinstance(self.model, MeanPooled) else None
            self._query_model = quantised_copy(float_model or _sentence_model(self.path))
        return _encode(self._query_model, [text], 1)[0]


def _sentence_model(path: Any) -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu")


def _encode(model: Any, texts: list[str], batch_size: int) -> list[bytes]:
    vecs = model.encode(
        texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    return [v.astype("<f4").tobytes() for v in vecs]


def quantised_copy(model: Any) -> Any:
    """A copy of MODEL with int8 weights in its linear layers, activations quantised per call (torch's dynamic
    quantisation: no calibration data, no download). torch marks the API deprecated; its warnings are muted here."""
    import copy
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)


class HttpEmbedder:
    """POST {base_url}/embeddings, as OpenAI and the local servers that copy its API accept."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None, timeout: float = 30.0, batch_size: int = 64):
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model, self.api_key, self.timeout, self.batch_size = model, api_key, timeout, batch_size
        self.name = f"http:{model}"

    def embed(self, texts: list[str]) -> list[bytes]:
        out: list[bytes] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(self._post(texts[i : i + self.batch_size]))
        return out

    def embed_query(self, text: str) -> bytes:
        return self.embed([text])[0]

    def _post(self, texts: list[str]) -> list[bytes]:
        import urllib.error  # here, not at the top: a third of the adapter's start, for a store without HTTP
        import urllib.request

        body = json.dumps({"model": self.model, "input": texts}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.load(response)
        except urllib.error.HTTPError as exc:
            category = TransientError if exc.code in (408, 429) or exc.code >= 500 else BackendError
            raise category(
                f"embedding endpoint {self.url} answered HTTP {exc.code}", details={"endpoint": self.url}
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise TransientError(
                f"embedding endpoint {self.url} unreachable: {reason}", details={"endpoint": self.url}
            ) from None
        try:
            data = sorted(payload["data"], key=lambda d: d.get("index", 0))
            return [_normalised([float(x) for x in d["embedding"]]) for d in data]
        except (KeyError, TypeError, ValueError) as exc:
            raise BackendError(f"embedding endpoint {self.url} sent an unexpected answer ({exc})") from None


_CACHE: dict[tuple, Embedder] = {}
_SECRET = "embedding_api_key"  # not kept in the cache's keys


def from_config(config: dict[str, Any], api_key_env: str) -> Embedder | None:
    """The configured embedder (one per process and configuration), or None when embeddings are off. An
    openai key comes from config embedding_api_key, else from the environment variable named API_KEY_ENV."""
    provider = config.get("embedding_provider")
    if not provider:
        return None
    model = config.get("embedding_model")
    if not model:
        raise ConfigError("embedding_provider is set but embedding_model is not")
    query_int8 = bool(config.get("embedding_query_int8", False))
    if query_int8 and provider != "sentence-transformers":
        raise ConfigError(
            f"embedding_query_int8 quantises a local model; embedding_provider {provider!r} is not one "
            "(use sentence-transformers or leave embedding_query_int8 unset)"
        )
    key = tuple(sorted((k, repr(v)) for k, v in config.items() if k.startswith("embedding_") and k != _SECRET))
    if key in _CACHE:
        return _CACHE[key]
    batch = int(config.get("embedding_batch_size", 64))
    if provider == "sentence-transformers":
        embedder: Embedder = SentenceTransformerEmbedder(
            model, threads=int(config.get("embedding_threads", 2)), batch_size=batch, query_int8=query_int8
        )
    elif provider == "openai":
        base = config.get("embedding_base_url")
        if not base:
            raise ConfigError("embedding_provider openai needs embedding_base_url (e.g. https://api.openai.com/v1)")
        embedder = HttpEmbedder(
            base,
            model,
            api_key=config.get("embedding_api_key") or os.environ.get(api_key_env),
            timeout=float(config.get("embedding_timeout_s", 30)),
            batch_size=batch,
        )
    else:
        raise ConfigError(f"unknown embedding_provider {provider!r}; use sentence-transformers or openai")
    _CACHE[key] = embedder
    return embedder


@dataclasses.dataclass(frozen=True)
class EmbeddingSettings(SchemaSettings):
    """The `embedding_*` settings the sqlite and postgres adapters share (a mixin of their Settings). A field left
    None takes the embedder's default; the key comes from the variable adapter.json's `env` list names for it."""

    embedding_provider: str | None = None
    embedding_model: str | None = None
    embedding_base_url: str | None = None
    embedding_api_key: str | None = dataclasses.field(default=None, repr=False)
    embedding_batch_size: int | None = None
    embedding_threads: int | None = None
    embedding_timeout_s: float | None = None

    def embedder(self) -> Embedder | None:
        """The configured embedder (one per process and configuration), or None when embeddings are off."""
        config = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name.startswith("embedding_") and getattr(self, f.name) is not None
        }
        return from_config(config, self.env_name("embedding_api_key"))
