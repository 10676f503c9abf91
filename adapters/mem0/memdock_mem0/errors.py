"""mem0, openai and Qdrant exceptions to memdock's error categories (the shared classification, memdock.sdk.kit.models),
with mem0's unusable extraction answer as a malformed one."""

from __future__ import annotations

from memdock.errors import MemdockError
from memdock.sdk.kit.models import classify as classify_model_error

from .engine import MalformedAnswer
from .settings import Settings


def classify(exc: BaseException, settings: Settings, where: str) -> MemdockError:
    return classify_model_error(exc, settings.llm_endpoint(), where, (MalformedAnswer,))
