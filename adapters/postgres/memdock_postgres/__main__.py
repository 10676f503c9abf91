"""`python -m memdock_postgres`: the postgres adapter's program, as adapter.json runs it."""

from memdock.sdk import serve

from .adapter import PostgresAdapter

serve(PostgresAdapter())
