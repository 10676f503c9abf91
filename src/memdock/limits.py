"""The rules a search request obeys, one copy for both sides of the adapter boundary: the front doors (CLI,
Python, MCP, LangChain, LlamaIndex) check a request with them once (memdock.service.requests), and the adapter
SDK checks the wire's params with them once (memdock.sdk.params). Each error starts with the field's name as
its caller spells it (`limit`, `--limit`, `params.limit`) and goes on in the same words everywhere.

Kept import-light: adapters import it at start."""

from __future__ import annotations

from .errors import InvalidInputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MIN_LIMIT = 1
MAX_LIMIT = 1000
DEFAULT_LIMIT = 10
MAX_QUERY = 10_000
MODES = ("auto", "bm25", "vector", "hybrid")


def limit_error(name: str, shown: str) -> InvalidInputError:
    """The one wording of a refused limit (the CLI uses it for a value that is not even a number)."""
    return InvalidInputError(
        f"{name} must be an integer from {MIN_LIMIT:,} to {MAX_LIMIT:,}, got {shown}", details={"field": name}
    )


def check_limit(value: Any, name: str = "limit") -> int:
    """An integer from MIN_LIMIT to MAX_LIMIT, refused otherwise: a caller asking for 200 gets 200 or an error
    saying why, never 50 in silence."""
    if not isinstance(value, int) or isinstance(value, bool) or not MIN_LIMIT <= value <= MAX_LIMIT:
        raise limit_error(name, str(value) if type(value) is int else repr(value))
    return value


def check_min_score(value: Any, name: str = "min_score") -> float | None:
    """None, or a number in [0, 1] (the declared score range)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidInputError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


def check_text(value: Any, name: str = "query") -> str:
    """Words to search for: a string with something besides white space. (The front doors also cap its length at
    MAX_QUERY; an adapter takes what its host sends.)"""
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{name} is empty: give the words to search for")
    return value


def check_mode(value: Any, name: str = "mode") -> str | None:
    """None (the backend's best) or one of MODES."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value not in MODES:
        raise InvalidInputError(f"{name} must be one of {', '.join(MODES)}, got {value!r}")
    return value
