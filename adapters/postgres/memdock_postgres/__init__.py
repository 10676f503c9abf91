"""The postgres adapter: one memory in a Postgres schema, shared by every front end and writer that names it."""
