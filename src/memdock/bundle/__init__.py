"""Payload bundles: a directory of JSONL record files (and float32 matrices) plus manifest.json, written last."""

from .manifest import MANIFEST_NAME, FileEntry, record_key
from .matrix import EmbeddingMatrix
from .output import OutputNotEmptyError
from .reader import BundleReader, IncompleteBundleError, NotABundleError
from .writer import BundleWriter

__all__ = [
    "MANIFEST_NAME",
    "BundleReader",
    "BundleWriter",
    "EmbeddingMatrix",
    "FileEntry",
    "IncompleteBundleError",
    "NotABundleError",
    "OutputNotEmptyError",
    "record_key",
]
