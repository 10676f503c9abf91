"""Plain value classes: their fields are their __slots__, with equality, a repr and `to_dict` copies.

The typed results and records are written this way rather than as dataclasses because every Python adapter
imports them at start: `dataclasses` brings `inspect`, `ast`, `dis` and `tokenize` with it, which cost a one-shot
adapter call more than the rest of the SDK together.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Plain:
    __slots__ = ()
    FIELDS: tuple[str, ...] = ()
    """Every field, base classes' first (set for each subclass as it is made)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.FIELDS = tuple(name for klass in reversed(cls.__mro__) for name in klass.__dict__.get("__slots__", ()))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclasses they replace

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({inner})"

    def fields_dict(self) -> dict[str, Any]:
        """Every field, its lists and dicts copied (as dataclasses.asdict does), so the caller may change them."""
        return {name: plain_copy(getattr(self, name)) for name in self.FIELDS}


def plain_copy(value: Any) -> Any:
    """VALUE with its dicts, lists and tuples copied all the way down."""
    if isinstance(value, dict):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain_copy(v) for v in value)
    return value
