"""What the adapters that hand whole entries to a memory framework share (mem0, openmemory): a catalog of the
framework's memory ids per entry, and the staging pass that checks a bundle before anything is written; and
what the adapters that keep each payload record whole share (tantivy, postgres): their hits and filters.

Not an adapter (no adapter.json): each such adapter puts `adapters/common` on its import path.
"""
