"""Running adapters: one process per operation, or a pool of long-lived workers, behind MemoryBackend."""

from .backend import SubprocessBackend

__all__ = ["SubprocessBackend"]
