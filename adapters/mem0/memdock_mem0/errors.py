"""mem0, openai and Qdrant exceptions to memdock's error categories (the shared classification, memdock_entries.models),
with mem0's unusable extraction answer as a malformed one."""

from __future__ import annotations

from memdock_entries.models import Endpoint
from memdock_entries.models import classify as classify_model_error

from memdock.errors import MemdockError

from .engine import MalformedAnswer
from .settings import ENV, Settings


def classify(exc: BaseException, settings: Settings, where: str) -> MemdockError:
    endpoint = Endpoint(settings.llm_url, settings.llm_model, ENV["llm_api_key"])
    return classify_model_error(exc, endpoint, where, (MalformedAnswer,))
