"""`python -m memdock_null`: the null adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import NullAdapter

serve(NullAdapter())
