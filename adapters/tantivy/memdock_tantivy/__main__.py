"""`python -m memdock_tantivy`: the tantivy adapter's program, as adapter.json runs it."""

import sys

from memdock.sdk import serve

from .adapter import TantivyAdapter

sys.exit(serve(TantivyAdapter()))
