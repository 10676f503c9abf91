"""The tantivy adapter: one tantivy index per store, searched with term queries built from plain words."""
