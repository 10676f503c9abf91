"""The adapter kit: what Python adapters over a memory framework would otherwise each write again.

- `settings.SchemaSettings`: typed settings read from the config, with environment fallbacks named once, in
  adapter.json's `env` list, and checked against its `config_schema` (no second table of variable names).
- `endpoints.ModelEndpoints`: the settings of an OpenAI-compatible LLM and embedder, with their defaults.
- `errors`: openai's exceptions (found anywhere in a cause chain) as memdock's error categories.
- `catalog.CatalogFile` and `staging`: the adapter's own sqlite record of what it gave the framework, with TEMP
  staging tables read back in event-time order, and the bundle read with file and line for error messages.
- `runtime.RuntimeAdapter`: one runtime per config and data dir kept across a worker's requests, and operations
  routed to the adapter package's modules, imported only when first used.

Every module imports only the standard library and memdock's core; a framework's own packages (openai, …) are
imported inside the functions that need them. See docs/adapters/kit.md.
"""
