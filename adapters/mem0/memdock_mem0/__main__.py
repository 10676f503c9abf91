"""`python -m memdock_mem0`: the mem0 adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import Mem0Adapter

serve(Mem0Adapter())
