"""The graphiti adapter's parts: settings, the FalkorDB server, model clients, the catalog, indexing, retrieval."""
