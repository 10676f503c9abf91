"""`python -m memdock_graphiti`: the graphiti adapter's program, as adapter.json runs it."""

import sys

from memdock.sdk import serve

from .adapter import GraphitiAdapter

sys.exit(serve(GraphitiAdapter()))
