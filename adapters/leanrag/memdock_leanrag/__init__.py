"""memdock's adapter for LeanRAG: a checkout the user supplies, run with injected models and SQLite stores."""
