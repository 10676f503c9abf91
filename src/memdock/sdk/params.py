"""Checks of the request parameters every search-capable adapter reads: the text, the limit, the score floor, the
mode, one id, the groups. The rules are memdock.limits', the same the front doors check a request with."""

from __future__ import annotations

from ..errors import InvalidInputError
from ..limits import DEFAULT_LIMIT, check_limit, check_min_score, check_mode, check_text

TYPE_CHECKING = False  # the SDK's dispatch imports this module at every adapter start: no `typing`
if TYPE_CHECKING:
    from typing import Any


def query_text(params: dict[str, Any]) -> str:
    return check_text(params.get("text"), "params.text")


def limit_of(params: dict[str, Any]) -> int:
    return check_limit(params.get("limit", DEFAULT_LIMIT), "params.limit")


def min_score_of(params: dict[str, Any]) -> float | None:
    """params.min_score: None, or the score a hit must reach (in [0, 1])."""
    return check_min_score(params.get("min_score"), "params.min_score")


def mode_of(params: dict[str, Any]) -> str:
    """params.mode, `auto` when absent."""
    return check_mode(params.get("mode"), "params.mode") or "auto"


def record_id(params: dict[str, Any]) -> str:
    value = params.get("id")
    if not isinstance(value, str) or not value or len(value) > 256:
        raise InvalidInputError("params.id must be a non-empty string of at most 256 characters")
    return value


def group_ids(params: dict[str, Any]) -> list[str] | None:
    """The thread ids a structural search is restricted to (params.group_ids), or None for all of them."""
    groups = params.get("group_ids")
    if groups is None:
        return None
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise InvalidInputError("params.group_ids must be a list of thread ids")
    return groups or None
