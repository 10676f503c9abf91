"""Semantic versions and the compatibility rules of payloads and protocols.

Same MAJOR is readable; a higher MINOR is accepted (unknown fields kept);
another MAJOR is refused with an error that names both versions.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import VersionError

_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")


class Version(NamedTuple):
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version:
        m = _SEMVER.match(text or "")
        if not m:
            raise VersionError(f"not a semantic version: {text!r}")
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


class Compatibility(NamedTuple):
    version: Version
    newer_minor: bool


def check_payload_version(found: str, supported: str, *, where: str) -> Compatibility:
    """Apply the version rules; raise VersionError naming both versions when MAJOR differs."""
    have = Version.parse(supported)
    try:
        got = Version.parse(found)
    except VersionError as exc:
        raise VersionError(f"{where}: {exc.message}", details={"found": found, "supported": supported}) from None
    if got.major != have.major:
        raise VersionError(
            f"{where}: payload version {got} is not readable by memdock, which reads {have.major}.x (found {got}, "
            f"supported {have})",
            details={"found": str(got), "supported": str(have)},
        )
    return Compatibility(got, newer_minor=got.minor > have.minor)
