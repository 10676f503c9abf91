"""The sqlite adapter's storage and retrieval: one module per concern (db, ingest, search, graph, delete, vectors)."""
