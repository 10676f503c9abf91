"""`python -m memdock_sqlite`: the sqlite adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import SqliteAdapter

serve(SqliteAdapter())
