"""User text to an FTS5 MATCH expression that cannot be a syntax error.

Every term is quoted, so FTS5 operators typed by a user (NEAR, AND, `*`, `-`, `:`, quotes) are plain
words, never syntax. Common English function words are dropped unless nothing else is left, and very
long queries keep their first MAX_TERMS distinct terms: an OR over thousands of terms costs a scan
of most of the index for no gain in ranking.
"""

from __future__ import annotations

import re
import sqlite3

MAX_TERMS = 64
HEADER_WEIGHT, BODY_WEIGHT = 2.0, 1.0  # bm25() weights of chunk_fts's columns: a chunk's header line counts twice
BODY_FIRST = 11
"""The schema whose chunk_fts declares its columns (body, header): FTS5 marks a term's positions in any column but
the first with that column's number, so with most headers empty, header first cost the index a column mark for
every term of every chunk (0.80× the text on the 100k chunks of bench/peers.py against 0.50× body first, 0.70×
against 0.45× on its 20k notes, and 15 % more CPU to load: `python bench/fts5_layout.py`)."""


def chunk_bm25(conn: sqlite3.Connection) -> str:
    """bm25() of chunk_fts with each column's weight, in the order the store declares its columns (a store of schema
    10 or before, read as it is, has header first). Read at each query: a writer may migrate the store under a
    reader's open connection."""
    if conn.execute("PRAGMA user_version").fetchone()[0] < BODY_FIRST:
        return f"bm25(chunk_fts, {HEADER_WEIGHT}, {BODY_WEIGHT})"
    return f"bm25(chunk_fts, {BODY_WEIGHT}, {HEADER_WEIGHT})"


_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
    ]
)


def terms(text: str) -> list[str]:
    """Distinct lower-cased words of TEXT in order, without stopwords (unless that leaves none)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text) if w.strip("_")))
    content = [w for w in words if w not in STOPWORDS]
    return (content or words)[:MAX_TERMS]


def match_expression(text: str) -> str | None:
    """An OR of quoted terms, or None when TEXT has no searchable word (empty, punctuation only)."""
    found = terms(text)
    return any_of(found) if found else None


def any_of(words: list[str]) -> str:
    """An FTS5 OR of the quoted WORDS (from `terms`: no quotes inside)."""
    return " OR ".join(f'"{w}"' for w in words)


def all_of(words: list[str]) -> str:
    """An FTS5 AND of the quoted WORDS (from `terms`: no quotes inside)."""
    return " AND ".join(f'"{w}"' for w in words)
