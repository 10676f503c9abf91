"""The seal on a bundle this memdock wrote from records it had validated, so an index run need not check them again.

A `BundleWriter` that validated every record it wrote (and refused duplicate ids and nesting past the limit) puts
an HMAC-SHA256 of its manifest in `metadata.memdock_seal`, keyed by a random secret kept in the memdock home
(`seal.key`, made on first use, readable only by its owner). The manifest lists each file's sha256, so the seal
covers every byte of the bundle. A reader asked to trust seals (`BundleReader(trust_seal=True)`) hashes the
files once; when the seal is this home's and every file matches, it skips the per-record schema check. Anything
else (no seal, another home's, a manifest or file edited by hand) is read and checked record by record as any
bundle is, with file:line errors: a seal can only save work, never let a bad record in.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Any

import orjson

from ..config import memdock_home
from .manifest import FileEntry

SEAL_FIELD = "memdock_seal"
KEY_NAME = "seal.key"
_SCHEME = "hmac-sha256:"
_BLOCK = 1 << 20


def _key(create: bool) -> bytes | None:
    """This home's seal key; made (atomically, mode 0600) when CREATE and there is none yet. None when it cannot
    be had: a bundle is then written unsealed and read checked, which is only slower."""
    path = memdock_home() / KEY_NAME
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        if not create:
            return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{KEY_NAME}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
        try:
            os.link(tmp, path)  # the first writer's key wins; a racing one reads it back
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        return None


def home_key() -> bytes | None:
    """This home's secret (made on first use), for other MACs of this home's own: None when it cannot be had."""
    return _key(create=True)


def _mac(key: bytes, manifest: dict[str, Any]) -> str:
    meta = {k: v for k, v in (manifest.get("metadata") or {}).items() if k != SEAL_FIELD}
    body = {**manifest, "metadata": meta}  # written with or without metadata, the seal covers the same
    return _SCHEME + hmac.new(key, orjson.dumps(body, option=orjson.OPT_SORT_KEYS), hashlib.sha256).hexdigest()


def seal(manifest: dict[str, Any]) -> dict[str, Any]:
    """MANIFEST with its seal in metadata (unchanged when no key can be had)."""
    key = _key(create=True)
    if key is None:
        return manifest
    manifest = {**manifest, "metadata": {**(manifest.get("metadata") or {})}}
    manifest["metadata"].pop(SEAL_FIELD, None)
    manifest["metadata"][SEAL_FIELD] = _mac(key, manifest)
    return manifest


def take(manifest: dict[str, Any]) -> str | None:
    """Remove the seal from MANIFEST (in place; a metadata left empty goes too) and return it: readers see the
    manifest as it was written."""
    meta = manifest.get("metadata")
    if not isinstance(meta, dict) or SEAL_FIELD not in meta:
        return None
    claimed = meta.pop(SEAL_FIELD)
    if not meta:
        del manifest["metadata"]
    return claimed if isinstance(claimed, str) else None


def sealed_here(manifest: dict[str, Any], claimed: str | None) -> bool:
    """CLAIMED is a seal made with this home's key over exactly what MANIFEST (taken of its seal) says."""
    if not isinstance(claimed, str):
        return False
    key = _key(create=False)
    return key is not None and hmac.compare_digest(claimed, _mac(key, manifest))


def files_match(folder: Path, files: list[FileEntry]) -> bool:
    """Every file FILES lists has the sha256 the manifest gives it (plain files only: a sealed journal's gzip copies
    are checked as they are read)."""
    for entry in files:
        h = hashlib.sha256()
        try:
            with open(folder / entry.path, "rb") as f:
                while block := f.read(_BLOCK):
                    h.update(block)
        except OSError:
            return False
        if "sha256:" + h.hexdigest() != entry.sha256:
            return False
    return True
