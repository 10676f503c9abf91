"""`python -m memdock_sqlite`: the sqlite adapter's program, as adapter.json runs it."""

import sys

from memdock.sdk import serve

from .adapter import SqliteAdapter

sys.exit(serve(SqliteAdapter()))
