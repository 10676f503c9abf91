"""The adapter side of the protocol, for adapters written in Python.

Subclass `Adapter`, implement the operations your backend has, and call
`serve(MyAdapter())` from your program. The SDK handles one-shot and worker
mode, version negotiation, config validation against adapter.json, events,
atomic result files, error envelopes and exit codes. Operations you do not
implement answer `unsupported`.
"""

from .adapter import Adapter, Context, adapter_json, serve

__all__ = ["Adapter", "Context", "adapter_json", "serve"]
