"""What adapters that call an OpenAI-compatible model share: the calls they made (counted and timed per kind), and
openai's exceptions as memdock's error categories, with the endpoint named and no key shown.

Frameworks wrap what their model clients raise, so the cause chain is searched for the exception that says what
really happened. An answer the framework could not use is the adapter's own MALFORMED exception type: a
non-retryable backend error saying nothing of the entry was stored. openai is imported only when an error is
classified (memdock's core does not depend on it; an adapter that calls a model has it in its virtualenv).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ...diskfull import disk_full, is_disk_full
from ...errors import BackendError, MemdockError, TransientError

RETRYABLE_STATUS = (408, 409, 429, 500, 502, 503, 504)


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
    """The model an error message names: its URL and model, the variable its key comes from, and (when known) the
    seconds a request may take."""

    url: str
    model: str | None
    key_env: str
    timeout_s: float | None = None


def chain(exc: BaseException) -> list[BaseException]:
    """EXC and its causes (explicit or implicit), outermost first, at most ten."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in out and len(out) < 10:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def classify(exc: BaseException, endpoint: Endpoint, where: str, malformed: tuple[type, ...] = ()) -> MemdockError:
    """EXC as memdock's error: a model error as `model_error` says, else a backend error naming its type."""
    return model_error(exc, endpoint, where, malformed) or BackendError(f"{where}: {type(exc).__name__}: {short(exc)}")


def model_error(
    exc: BaseException, endpoint: Endpoint, where: str, malformed: tuple[type, ...] = ()
) -> MemdockError | None:
    """The memdock error for the first exception in EXC's chain that says what happened: a memdock error as it is,
    a full disk, a MALFORMED answer, or an openai status or connection error; None when none does."""
    for e in chain(exc):
        if isinstance(e, MemdockError):
            return e
        if is_disk_full(e):
            return disk_full(getattr(e, "filename", None) or "the data dir", where)
        if malformed and isinstance(e, malformed):
            return BackendError(
                f"{where}: the model at {endpoint.url} ({endpoint.model}): {e}; nothing of this entry was stored",
                details={"endpoint": endpoint.url},
                retryable=False,
            )
        if _is_openai_error(e):
            return _openai_error(e, endpoint, where)
    return None


def _is_openai_error(e: BaseException) -> bool:
    try:
        import openai
    except ImportError:  # an adapter whose framework does not use openai
        return False
    return isinstance(e, openai.APIStatusError | openai.APIConnectionError)


def _openai_error(e: BaseException, endpoint: Endpoint, where: str) -> MemdockError:
    import openai

    url = url_of(e, endpoint.url)
    if isinstance(e, openai.APITimeoutError):
        after = f" after {endpoint.timeout_s:g}s" if endpoint.timeout_s else ""
        return TransientError(f"{where}: the model endpoint {url} timed out{after}", details={"endpoint": url})
    if isinstance(e, openai.APIConnectionError):
        return TransientError(f"{where}: cannot reach the model endpoint {url}: {cause(e)}", details={"endpoint": url})
    if isinstance(e, openai.AuthenticationError):
        return BackendError(
            f"{where}: the model endpoint {url} refused the key (HTTP 401); check {endpoint.key_env}",
            details={"endpoint": url},
            retryable=False,
        )
    status = getattr(e, "status_code", None)
    cls = TransientError if status in RETRYABLE_STATUS else BackendError
    return cls(
        f"{where}: the model endpoint {url} answered HTTP {status}: {short(e)}",
        details={"endpoint": url, "status": status},
    )


def url_of(exc: BaseException, default: str) -> str:
    """The URL of the request EXC failed on (scheme, host, port, path: never a query string), else DEFAULT."""
    url = getattr(getattr(exc, "request", None), "url", None)
    if url is not None:
        return f"{url.scheme}://{url.host}:{url.port}{url.path}" if url.port else f"{url.scheme}://{url.host}{url.path}"
    return default


def cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return f"{type(inner).__name__}: {short(inner)}" if inner else short(exc)


def short(exc: BaseException | None, limit: int = 300) -> str:
    """EXC's message on one line, cut at LIMIT characters."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "…"
