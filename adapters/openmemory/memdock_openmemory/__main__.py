"""`python -m memdock_openmemory`: the openmemory adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import OpenMemoryAdapter

serve(OpenMemoryAdapter())
