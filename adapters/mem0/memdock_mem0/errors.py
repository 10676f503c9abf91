"""mem0, openai and Qdrant exceptions to memdock's error categories, with the endpoint named and no key shown.

mem0 wraps what its model clients raise (LLMError, EmbeddingError, ...), so the cause chain is
searched for the exception that says what really happened.
"""

from __future__ import annotations

from memdock.errors import BackendError, MemdockError, TransientError

from .engine import MalformedAnswer
from .settings import ENV, Settings


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    while exc is not None and exc not in out and len(out) < 10:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return out


def classify(exc: BaseException, settings: Settings, where: str) -> MemdockError:
    import openai

    for e in _chain(exc):
        if isinstance(e, MemdockError):
            return e
        if isinstance(e, MalformedAnswer):
            return BackendError(
                f"{where}: the model at {settings.llm_url} ({settings.llm_model}): {e}; nothing of this entry "
                "was stored",
                details={"endpoint": settings.llm_url},
                retryable=False,
            )
        if isinstance(e, openai.APITimeoutError):
            return TransientError(
                f"{where}: the model endpoint {_url_of(e, settings)} timed out",
                details={"endpoint": _url_of(e, settings)},
            )
        if isinstance(e, openai.APIConnectionError):
            return TransientError(
                f"{where}: cannot reach the model endpoint {_url_of(e, settings)}: {_cause(e)}",
                details={"endpoint": _url_of(e, settings)},
            )
        if isinstance(e, openai.AuthenticationError):
            return BackendError(
                f"{where}: the model endpoint {_url_of(e, settings)} refused the key (HTTP 401); check "
                f"{ENV['llm_api_key']}",
                details={"endpoint": _url_of(e, settings)},
                retryable=False,
            )
        if isinstance(e, openai.APIStatusError):
            status = getattr(e, "status_code", None)
            cls = TransientError if status in (408, 409, 429, 500, 502, 503, 504) else BackendError
            return cls(
                f"{where}: the model endpoint {_url_of(e, settings)} answered HTTP {status}: {_short(e)}",
                details={"endpoint": _url_of(e, settings), "status": status},
            )
    return BackendError(f"{where}: {type(exc).__name__}: {_short(exc)}")


def _url_of(exc: BaseException, settings: Settings) -> str:
    url = getattr(getattr(exc, "request", None), "url", None)
    if url is not None:
        return f"{url.scheme}://{url.host}:{url.port}{url.path}" if url.port else f"{url.scheme}://{url.host}{url.path}"
    return settings.llm_url


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return f"{type(inner).__name__}: {_short(inner)}" if inner else _short(exc)


def _short(exc: BaseException | None, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "…"
