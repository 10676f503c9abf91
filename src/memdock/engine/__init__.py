"""The store engine: a store's ledger, journal, deltas, ownership and locking, and the index run over them.

It does not know how an adapter is reached: it talks to one through a `Transport` (see `engine/transport.py`).
"""
