"""`python -m memdock_graphiti`: the graphiti adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import GraphitiAdapter

serve(GraphitiAdapter())
