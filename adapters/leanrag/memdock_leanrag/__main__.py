"""`python -m memdock_leanrag`: the leanrag adapter's program, as adapter.json runs it."""

import sys

sys.dont_write_bytecode = True  # nothing of ours is written beside the LeanRAG checkout

from memdock.sdk import serve  # noqa: E402

from .adapter import LeanRAGAdapter  # noqa: E402

serve(LeanRAGAdapter())
