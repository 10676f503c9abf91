"""`memdock mcp`: the memory tools over the Model Context Protocol (needs the `mcp` extra)."""
