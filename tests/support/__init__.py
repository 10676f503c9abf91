"""Helpers the tests share (the tests folder is on sys.path: `from support.sqlite_helpers import ...`)."""
