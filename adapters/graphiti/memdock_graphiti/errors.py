"""graphiti, openai and FalkorDB exceptions to memdock's error categories, with the endpoint named and no key shown:
the kit's classification of model errors (memdock.sdk.kit.models), with graphiti's and FalkorDB's own around it."""

from __future__ import annotations

from memdock.errors import BackendError, InvalidInputError, MemdockError, TransientError
from memdock.sdk.kit.models import model_error, short

from .settings import Settings


def classify(exc: BaseException, settings: Settings, where: str) -> MemdockError:
    from graphiti_core.errors import GroupIdValidationError

    if isinstance(exc, GroupIdValidationError):
        return InvalidInputError(f"{where}: {exc}")
    known = model_error(exc, settings.llm_endpoint(), where)
    if known is not None:
        return known
    import redis

    name = type(exc).__name__
    if isinstance(exc, ConnectionError | TimeoutError | redis.ConnectionError | redis.TimeoutError):
        return TransientError(f"{where}: FalkorDB connection failed: {name}: {short(exc)}")
    return BackendError(f"{where}: {name}: {short(exc)}")
