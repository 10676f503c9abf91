"""`python -m memdock_openmemory`: the openmemory adapter's program, as adapter.json runs it."""

import sys

from memdock.sdk import serve

from .adapter import OpenMemoryAdapter

sys.exit(serve(OpenMemoryAdapter()))
