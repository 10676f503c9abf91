"""What the adapters that call an OpenAI-compatible model share: the calls they made (counted and timed per kind),
and openai's exceptions as memdock's error categories, with the endpoint named and no key shown.

Frameworks wrap what their model clients raise, so the cause chain is searched for the exception that says what
really happened. An answer the framework could not use is the adapter's own MALFORMED exception type: a
non-retryable backend error saying nothing of the entry was stored.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from memdock.errors import BackendError, MemdockError, TransientError


@dataclass
class Calls:
    """Model calls and the seconds they took, per kind (llm, embedding)."""

    count: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, dt: float) -> None:
        with self.lock:
            self.count[kind] = self.count.get(kind, 0) + 1
            self.seconds[kind] = self.seconds.get(kind, 0.0) + dt

    def reset(self) -> None:
        with self.lock:
            self.count.clear()
            self.seconds.clear()

    def summary(self) -> dict[str, Any]:
        return {k: {"calls": n, "seconds": round(self.seconds.get(k, 0.0), 3)} for k, n in self.count.items()}


@dataclass(frozen=True)
class Endpoint:
    """The model an error message names: its URL and model, and the variable its key comes from."""

    url: str
    model: str
    key_env: str


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    while exc is not None and exc not in out and len(out) < 10:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return out


def classify(exc: BaseException, endpoint: Endpoint, where: str, malformed: tuple[type, ...] = ()) -> MemdockError:
    import openai

    for e in _chain(exc):
        if isinstance(e, MemdockError):
            return e
        if malformed and isinstance(e, malformed):
            return BackendError(
                f"{where}: the model at {endpoint.url} ({endpoint.model}): {e}; nothing of this entry was stored",
                details={"endpoint": endpoint.url},
                retryable=False,
            )
        if isinstance(e, openai.APIStatusError | openai.APIConnectionError):
            return _openai_error(e, endpoint, where)
    return BackendError(f"{where}: {type(exc).__name__}: {short(exc)}")


def _openai_error(e: Exception, endpoint: Endpoint, where: str) -> MemdockError:
    import openai

    url = _url_of(e, endpoint)
    if isinstance(e, openai.APITimeoutError):
        return TransientError(f"{where}: the model endpoint {url} timed out", details={"endpoint": url})
    if isinstance(e, openai.APIConnectionError):
        return TransientError(f"{where}: cannot reach the model endpoint {url}: {_cause(e)}", details={"endpoint": url})
    if isinstance(e, openai.AuthenticationError):
        return BackendError(
            f"{where}: the model endpoint {url} refused the key (HTTP 401); check {endpoint.key_env}",
            details={"endpoint": url},
            retryable=False,
        )
    status = getattr(e, "status_code", None)
    cls = TransientError if status in (408, 409, 429, 500, 502, 503, 504) else BackendError
    return cls(
        f"{where}: the model endpoint {url} answered HTTP {status}: {short(e)}",
        details={"endpoint": url, "status": status},
    )


def _url_of(exc: BaseException, endpoint: Endpoint) -> str:
    url = getattr(getattr(exc, "request", None), "url", None)
    if url is not None:
        return f"{url.scheme}://{url.host}:{url.port}{url.path}" if url.port else f"{url.scheme}://{url.host}{url.path}"
    return endpoint.url


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return f"{type(inner).__name__}: {short(inner)}" if inner else short(exc)


def short(exc: BaseException | None, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "…"
