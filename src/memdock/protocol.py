"""The adapter protocol v1 on the wire: requests, events on stdout, responses, version negotiation."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from . import PAYLOAD_VERSION, PROTOCOL_VERSION
from .errors import BackendError, MemdockError, VersionError
from .validation import SchemaValidator

SUPPORTED_PROTOCOLS = (PROTOCOL_VERSION,)
EVENTS = ("progress", "checkpoint", "result")


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


def build_request(
    operation: str,
    *,
    data_dir: str,
    work_dir: str,
    config: dict[str, Any],
    params: dict[str, Any],
    request_id: str | None = None,
    result_path: str | None = None,
    offered: tuple[str, ...] = SUPPORTED_PROTOCOLS,
) -> dict[str, Any]:
    req: dict[str, Any] = {
        "protocol_version": offered[0],
        "offered_protocols": list(offered),
        "operation": operation,
        "request_id": request_id or new_request_id(),
        "data_dir": data_dir,
        "work_dir": work_dir,
        "config": config,
        "params": params,
    }
    if result_path is not None:
        req["result_path"] = result_path
    return req


@dataclass(slots=True)
class Event:
    kind: str
    data: dict[str, Any]


def parse_event(line: bytes) -> Event | None:
    """A protocol event, or None for a stray line (which the caller quarantines, never trusts)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or obj.get("event") not in EVENTS:
        return None
    kind = obj["event"]
    if kind == "checkpoint" and not (isinstance(obj.get("ids"), list) and all(isinstance(i, str) for i in obj["ids"])):
        return None
    return Event(kind, obj)


_response_validator: SchemaValidator | None = None


def check_response(response: Any, *, request_id: str, operation: str, source: str) -> dict[str, Any]:
    """Validate a response against response.schema.json; return its result or raise its error."""
    global _response_validator
    if _response_validator is None:
        _response_validator = SchemaValidator()
    issues = _response_validator.issues("response", response)
    if issues:
        shown = "; ".join(f"{i.path}: {i.message}" for i in issues[:3])
        raise BackendError(
            f"{source}: adapter answered {operation} with a response that breaks response.schema.json: {shown}",
            details={"issues": [f"{i.path}: {i.message}" for i in issues[:20]]},
        )
    if response["request_id"] != request_id:
        raise BackendError(f"{source}: response is for request {response['request_id']!r}, expected {request_id!r}")
    if not response["ok"]:
        raise MemdockError.from_envelope(response["error"])
    return response["result"]


def negotiate(capabilities: dict[str, Any], offered: tuple[str, ...] = SUPPORTED_PROTOCOLS) -> str:
    """The protocol both sides speak (same MAJOR); VersionError naming both sides otherwise."""
    theirs = [str(v) for v in capabilities.get("protocol_versions", [])]
    for mine in offered:
        major = mine.split(".")[0]
        for v in theirs:
            if v.split(".")[0] == major:
                return mine
    raise VersionError(
        f"adapter {capabilities.get('adapter', '?')} speaks protocol {', '.join(theirs) or 'none'}; "
        f"memdock speaks {', '.join(offered)}",
        details={"adapter": theirs, "memdock": list(offered)},
    )


def payload_compatible(capabilities: dict[str, Any]) -> bool:
    mine = PAYLOAD_VERSION.split(".")[0]
    return any(str(v).split(".")[0] == mine for v in capabilities.get("payload_versions", []))
