"""The error taxonomy shared by the core, the runner and every adapter.

Each error has a category (the wire name used in error envelopes), whether a
retry may help, a one-line message and structured details. The same
categories travel over the adapter protocol, so an error raised inside an
adapter arrives in the caller as the same class.
"""

from __future__ import annotations

TYPE_CHECKING = False  # adapters import this module at start: no `typing`
if TYPE_CHECKING:
    from typing import Any

CATEGORIES = ("config", "invalid_input", "unsupported", "transient", "backend", "cancelled", "version")

EXIT_CODES = {
    "config": 3,
    "invalid_input": 4,
    "unsupported": 5,
    "transient": 6,
    "backend": 7,
    "cancelled": 8,
    "version": 9,
}


class MemdockError(Exception):
    category: str = "backend"
    retryable: bool = False

    def __init__(self, message: str, *, details: dict[str, Any] | None = None, retryable: bool | None = None):
        super().__init__(message)
        self.message = message
        self.details = dict(details or {})
        if retryable is not None:
            self.retryable = retryable

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.category, 1)

    def to_envelope(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "retryable": self.retryable,
            "message": self.message,
            "details": self.details,
        }

    @classmethod
    def from_envelope(cls, envelope: dict[str, Any]) -> MemdockError:
        err_cls = _BY_CATEGORY.get(envelope.get("category", ""), BackendError)
        return err_cls(
            str(envelope.get("message", "")),
            details=envelope.get("details") or {},
            retryable=bool(envelope.get("retryable", err_cls.retryable)),
        )

    def __str__(self) -> str:
        return self.message


class ConfigError(MemdockError):
    category = "config"


class InvalidInputError(MemdockError):
    category = "invalid_input"


class UnsupportedOperationError(MemdockError):
    category = "unsupported"


class TransientError(MemdockError):
    category = "transient"
    retryable = True


class BackendError(MemdockError):
    category = "backend"


class CancelledError(MemdockError):
    category = "cancelled"


class VersionError(MemdockError):
    category = "version"


_BY_CATEGORY: dict[str, type[MemdockError]] = {
    c.category: c
    for c in (
        ConfigError,
        InvalidInputError,
        UnsupportedOperationError,
        TransientError,
        BackendError,
        CancelledError,
        VersionError,
    )
}


def error_for_exit_code(code: int, message: str, details: dict[str, Any] | None = None) -> MemdockError:
    """The error an adapter's exit code stands for when it left no envelope."""
    for category, value in EXIT_CODES.items():
        if value == code:
            return _BY_CATEGORY[category](message, details=details)
    if code < 0:
        return TransientError(message, details=details) if code in (-9, -15) else BackendError(message, details=details)
    return BackendError(message, details=details)
