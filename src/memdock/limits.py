"""The one rule for how many results a search may ask for, at every door (CLI, Python, MCP, LangChain,
LlamaIndex) and on the wire (memdock.sdk.params): from MIN_LIMIT to MAX_LIMIT, anything else refused."""

MIN_LIMIT = 1
MAX_LIMIT = 1000
