"""The page's building blocks without a server: escaping by default, marked words, the pictures, the guards."""

import pytest

pytest.importorskip("starlette", reason="the ui extra is not installed")

from memdock.service import Entry
from memdock.ui import pictures
from memdock.ui.auth import Guard, safe_next
from memdock.ui.html import Html, esc, render, tag
from memdock.ui.results import marked, terms

PROBE = '<script>alert("x")</script>'


def test_values_are_text_unless_built_as_markup():
    assert esc(PROBE) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
    assert esc(Html("<b>ok</b>")) == "<b>ok</b>"
    assert tag("a", PROBE, href='" onmouseover="x') == (
        '<a href="&quot; onmouseover=&quot;x">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</a>'
    )
    page = render(
        "page.html", title=PROBE, body=Html("<p>b</p>"), backend=PROBE, query=PROBE, notice="", version="v", mode="m"
    )
    assert "<script>alert" not in page and page.count("&lt;script&gt;") == 4 and "<p>b</p>" in page


def test_matched_words_are_marked_and_the_rest_escaped():
    wanted = terms("caches <expired>")
    assert wanted == {"cach", "expir"}
    assert (
        marked("The cache <b>expired</b>", wanted) == "The <mark>cache</mark> &lt;b&gt;<mark>expired</mark>&lt;/b&gt;"
    )
    assert (
        marked(PROBE, terms("script")) == "&lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt;"
    )


def test_the_pictures_escape_their_labels():
    entries = [
        Entry(id="entry:1", thread_id="t", text="a", time="2026-01-01T00:00:00Z", author=PROBE, title=PROBE),
        Entry(id="entry:2", thread_id="t", text="b", time="2026-01-02T00:00:00Z", author="ana"),
    ]
    drawn = pictures.timeline(entries)
    assert drawn.count("<circle") == 2 and "<script>" not in drawn and "&lt;script&gt;" in drawn
    edges = [{"type": "mentions", "direction": "out", "other_id": f"entity:{i}"} for i in range(20)]
    graph = pictures.neighbourhood("entry:1", PROBE, edges, {"entity:0": PROBE})
    assert graph.count("<circle") == 1 + pictures.MAX_NEIGHBOURS and "the first 16 of 20 edges" in graph
    assert "<script>" not in graph
    assert "score 0.50" in pictures.score_bar(0.5) and "—" in pictures.score_bar(None)


def test_the_guards():
    loopback = Guard("t" * 20, loopback=True)
    assert loopback.host_ok({"host": "127.0.0.1:8766"}) and loopback.host_ok({"host": "[::1]:8766"})
    assert loopback.host_ok({"host": "localhost"}) and not loopback.host_ok({"host": "attacker.example:8766"})
    assert Guard(None, loopback=False).host_ok({"host": "memory.lan"})
    assert loopback.authorised({"authorization": "Bearer " + "t" * 20}, {})
    assert not loopback.authorised({"authorization": "Bearer wrong"}, {})
    assert loopback.authorised({}, {"memdock_ui": loopback.cookie_value()}) and not loopback.authorised({}, {})
    form = {"csrf": loopback.csrf()}
    assert loopback.post_ok({"host": "127.0.0.1:1"}, form)
    assert not loopback.post_ok({"host": "127.0.0.1:1", "origin": "http://evil.example"}, form)
    assert not loopback.post_ok({"host": "127.0.0.1:1"}, {"csrf": "x"})
    assert [safe_next(t) for t in ("/ui/thread?id=x", "//evil.example/", "https://evil.example", "/ui/\\x")] == [
        "/ui/thread?id=x",
        "/ui/",
        "/ui/",
        "/ui/",
    ]
