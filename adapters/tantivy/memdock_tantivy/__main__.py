"""`python -m memdock_tantivy`: the tantivy adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import TantivyAdapter

serve(TantivyAdapter())
