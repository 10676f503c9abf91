"""`python -m memdock_memu`: the MemU adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import MemUAdapter

serve(MemUAdapter())
