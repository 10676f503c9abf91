"""Query text that would be syntax to tantivy's query parser is searched as plain words."""

import pytest
from tantivy_support import gate

from memdock.errors import InvalidInputError

pytestmark = gate


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_query_is_invalid_input(indexed, text):
    with pytest.raises(InvalidInputError, match="empty"):
        indexed.query(text)


@pytest.mark.parametrize("text", ["?!", "...---...", "«»—", "()[]{}", "*", ":", '"'])
def test_punctuation_only_returns_no_hits_and_says_why(indexed, text):
    result = indexed.query(text)
    assert result.hits == [] and "no searchable words" in result.reason


@pytest.mark.parametrize(
    "text",
    [
        '"cache',
        'cache"',
        '"cache stampede"~2',
        "cache AND OR NOT stampede",
        "+cache -stampede",
        "cache^5 stampede",
        "name:cache",
        "text:stampede",
        "id:* cache",
        "kind:chunk stampede",
        "cache stampede*",
        "/cach.*/ stampede",
        "cache IN [a b] stampede",
        "(cache OR) stampede",
        "title:cache",
        "ts:[0 TO 1] cache",
    ],
)
def test_query_syntax_is_just_words(indexed, text):
    hits = indexed.query(text, limit=3).hits
    assert hits and "Cache stampede" in hits[0].text.split("\n", 1)[0]


def test_a_star_is_not_a_wildcard(indexed):
    # as syntax, "stamp*" would match "stampede"; as a word it is "stamp", which no text contains
    assert indexed.query("stamp*").hits == []


def test_a_field_name_cannot_reach_another_field(indexed):
    # "kind:entry" as syntax would search the kind field; as words, "kind" and "entry" are searched in the text
    for h in indexed.query("kind:entry", limit=10).hits:
        assert h.kind == "chunk"


def test_a_10kb_query_answers(indexed):
    text = ("cache stampede latency jitter " * 400)[:10240] + " " + " ".join(f"word{i}" for i in range(500))
    hits = indexed.query(text, limit=3).hits
    assert hits and "Cache stampede" in hits[0].text


@pytest.mark.parametrize("op", ["search_nodes", "search_facts", "search_episodes"])
def test_graph_searches_take_syntax_as_words(indexed, op):
    assert indexed.call(op, {"text": 'onboarding" OR id:* AND', "limit": 3})["hits"]
