"""Adapters from memdock to the retrieval interfaces of other frameworks, each behind its own extra:
`memdock[langchain]` (memdock.integrations.langchain) and `memdock[llama-index]` (memdock.integrations.llama_index)."""
