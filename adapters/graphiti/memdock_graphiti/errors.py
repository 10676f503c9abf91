"""graphiti, openai and FalkorDB exceptions to memdock's error categories, with the endpoint named and no key shown."""

from __future__ import annotations

from memdock.diskfull import disk_full, is_disk_full
from memdock.errors import BackendError, InvalidInputError, MemdockError, TransientError

from .settings import Settings


def classify(exc: BaseException, settings: Settings, where: str) -> MemdockError:
    if isinstance(exc, MemdockError):
        return exc
    if is_disk_full(exc):
        return disk_full(getattr(exc, "filename", None) or "the data dir", where)
    import openai
    from graphiti_core.errors import GroupIdValidationError

    if isinstance(exc, GroupIdValidationError):
        return InvalidInputError(f"{where}: {exc}")
    if isinstance(exc, openai.APITimeoutError):
        return TransientError(
            f"{where}: the model endpoint {_url_of(exc, settings)} timed out after {settings.llm_timeout_s:g}s",
            details={"endpoint": _url_of(exc, settings)},
        )
    if isinstance(exc, openai.APIConnectionError):
        return TransientError(
            f"{where}: cannot reach the model endpoint {_url_of(exc, settings)}: {_cause(exc)}",
            details={"endpoint": _url_of(exc, settings)},
        )
    if isinstance(exc, (openai.RateLimitError, openai.InternalServerError)) or _status(exc) in (
        408,
        409,
        429,
        500,
        502,
        503,
        504,
    ):
        return TransientError(
            f"{where}: the model endpoint {_url_of(exc, settings)} answered HTTP {_status(exc)}",
            details={"endpoint": _url_of(exc, settings), "status": _status(exc)},
        )
    if isinstance(exc, openai.AuthenticationError):
        return BackendError(
            f"{where}: the model endpoint {_url_of(exc, settings)} refused the key (HTTP 401); "
            "check MEMDOCK_GRAPHITI_LLM_API_KEY",
            details={"endpoint": _url_of(exc, settings)},
            retryable=False,
        )
    if isinstance(exc, openai.APIStatusError):
        return BackendError(
            f"{where}: the model endpoint {_url_of(exc, settings)} answered HTTP {_status(exc)}: {_short(exc)}",
            details={"endpoint": _url_of(exc, settings), "status": _status(exc)},
        )
    import redis

    name = type(exc).__name__
    if isinstance(exc, (ConnectionError, TimeoutError, redis.ConnectionError, redis.TimeoutError)):
        return TransientError(f"{where}: FalkorDB connection failed: {name}: {_short(exc)}")
    return BackendError(f"{where}: {name}: {_short(exc)}")


def _status(exc: BaseException) -> int | None:
    return getattr(exc, "status_code", None)


def _url_of(exc: BaseException, settings: Settings) -> str:
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    if url is not None:
        return f"{url.scheme}://{url.host}:{url.port}{url.path}" if url.port else f"{url.scheme}://{url.host}{url.path}"
    return settings.llm_url


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return f"{type(inner).__name__}: {_short(inner)}" if inner else _short(exc)


def _short(exc: BaseException | None, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "…"
