"""The null adapter: every operation exists, answers honestly, and nothing is kept (the reference)."""
