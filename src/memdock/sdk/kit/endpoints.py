"""The settings of an adapter that calls an OpenAI-compatible LLM and embedder: the endpoints with their defaults,
and what is missing before the models can be called."""

from __future__ import annotations

from ...errors import ConfigError
from .models import Endpoint
from .settings import SchemaSettings

OPENAI = "https://api.openai.com/v1"
LOCAL_EMBEDDER = "sentence-transformers"


class ModelEndpoints(SchemaSettings):
    """A mixin for a frozen settings dataclass with the fields llm_base_url, llm_api_key, embedding_base_url and
    embedding_api_key (and optionally embedding_provider and embedding_model); the key fields' variables are named in
    adapter.json's `env` list."""

    llm_base_url: str | None
    llm_api_key: str | None
    embedding_base_url: str | None
    embedding_api_key: str | None

    @property
    def llm_url(self) -> str:
        return (self.llm_base_url or OPENAI).rstrip("/")

    @property
    def embedding_url(self) -> str:
        return (self.embedding_base_url or self.llm_url).rstrip("/")

    @property
    def embedding_key(self) -> str | None:
        return self.embedding_api_key or self.llm_api_key

    @property
    def local_embedder(self) -> bool:
        return getattr(self, "embedding_provider", None) == LOCAL_EMBEDDER

    def llm_endpoint(self) -> Endpoint:
        """The LLM as error messages name it: URL, model, key variable and timeout (when the settings have them)."""
        return self._endpoint(self.llm_url, "llm")

    def embedding_endpoint(self) -> Endpoint:
        """The embedder as error messages name it (a key error names the embedding key's variable)."""
        return self._endpoint(self.embedding_url, "embedding")

    def _endpoint(self, url: str, kind: str) -> Endpoint:
        model, timeout = getattr(self, f"{kind}_model", None), getattr(self, f"{kind}_timeout_s", None)
        return Endpoint(url, model, self.env_name(f"{kind}_api_key"), timeout)

    def llm_configured(self) -> str | None:
        """None when the LLM can be called: a server is named, or OpenAI's with a key; otherwise what is missing."""
        if self.llm_base_url is None and not self.llm_api_key:
            return (
                f"no LLM: set llm_base_url (an OpenAI-compatible server) or {self.env_name('llm_api_key')} for OpenAI"
            )
        return None

    def embedder_configured(self) -> str | None:
        """None when the embedder can be called (a local model, an endpoint or a key); otherwise what is missing."""
        if self.local_embedder:
            model = getattr(self, "embedding_model", None)
            return None if model else f"embedding_provider {LOCAL_EMBEDDER} needs embedding_model"
        if self.embedding_base_url is None and self.llm_base_url is None and not self.embedding_key:
            return f"no embedder: set embedding_base_url or {self.env_name('embedding_api_key')}"
        return None

    def require_models(self) -> None:
        """Raise ConfigError naming the adapter and what is missing unless both models can be called."""
        problem = self.llm_configured() or self.embedder_configured()
        if problem:
            raise ConfigError(f"{self.descriptor().get('name', 'adapter')}: {problem}")
