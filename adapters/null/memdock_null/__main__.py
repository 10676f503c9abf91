"""`python -m memdock_null`: the null adapter's program, as adapter.json runs it."""

import sys

from memdock.sdk import serve

from .adapter import NullAdapter

sys.exit(serve(NullAdapter()))
