"""`python -m memdock_mem0`: the mem0 adapter's program, as adapter.json runs it."""

import sys

from memdock.sdk import serve

from .adapter import Mem0Adapter

sys.exit(serve(Mem0Adapter()))
