"""The fast paths of the token count and the entity patterns give exactly what the plain regexes give."""

import random
import re

from memdock.chunking import tokenizers
from memdock.chunking.splitter import Splitter
from memdock.chunking.tokenizers import ApproxTokenizer, approx_count, count_upto, span_counter
from memdock.importers import entities

APPROX = re.compile(r"\w+|[^\w\s]")
# the entity patterns as they were written first (a look-behind at the start: tried at every position)
MENTION = re.compile(r"(?<![\w@/.])@([A-Za-z][\w.-]{1,38}[A-Za-z0-9_])")
ISSUE = re.compile(r"(?<![\w/&#])(?:#|GH-)(\d{1,6})\b")
ALPHABET = "ab1_ \t\n\x0b\x0c\r\x1c\x1f\x85.,-#@/:&`()GH" + "é ــ\u2028✅\ufe0f’ß٣─—\x00\x7f\ud800"


def texts(n: int, seed: int, longest: int = 40) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, longest))) for _ in range(n)]


def test_the_byte_count_is_the_regex_count_for_every_character():
    for code in range(0x110000):
        c = chr(code)
        text = f"x{c}y {c}{c}z"
        assert approx_count(text) == len(APPROX.findall(text)), hex(code)


def test_the_byte_count_is_the_regex_count_on_mixed_text_and_spans():
    rnd = random.Random(7)
    for text in texts(20000, 1):
        start = rnd.randint(0, len(text))
        end = rnd.randint(start, len(text))
        assert approx_count(text, start, end) == len(APPROX.findall(text, start, end)), repr(text)


def test_the_ascii_count_on_an_integer_is_the_regex_count():
    """ASCII text is counted on the bits of one integer (a word byte after a non-word byte starts a run)."""
    rnd = random.Random(8)
    ascii_only = "".join(c for c in ALPHABET if c.isascii()) + "Zz09~{}[]'\""
    for n in (0, 1, 2, 7, 40, 900):
        for _ in range(400 if n < 900 else 20):
            text = "".join(rnd.choice(ascii_only) for _ in range(n))
            assert approx_count(text) == len(APPROX.findall(text)), repr(text)
            start = rnd.randint(0, n)
            assert approx_count(text, start) == len(APPROX.findall(text, start)), repr(text)


def test_count_upto_is_exact_up_to_the_limit_and_above_it_past():
    tok = ApproxTokenizer()
    for text in texts(3000, 2, longest=400):
        exact = len(APPROX.findall(text))
        for limit in (1, 3, 20, 1000):
            n = count_upto(tok, text, 0, len(text), limit)
            assert n == exact if exact <= limit else n > limit, (repr(text), limit)


def test_windows_still_cover_the_text_in_order():
    splitter = Splitter(ApproxTokenizer(), max_tokens=7, overlap=2)
    for text in texts(500, 3, longest=300):
        spans = [(w.start, w.end) for w in splitter.windows(text)]
        assert spans == sorted(spans) and all(text[s:e].strip() == text[s:e] for s, e in spans)


def test_entity_patterns_find_what_the_first_patterns_found():
    dotted = ["e.g. v1.2 a.pyc x.md/y b.json. c.txt2 (d.rs) .h k.mdx f.c.h a.b/c.d", "ab.cd\nx.py e.f\n\ng/h.i"]
    for text in texts(20000, 4) + ["see #12, GH-7, @ana.b and src/a.py (x.md) a@b.c &#9 /#3", *dotted]:
        assert entities._MENTION.findall(text) == MENTION.findall(text), repr(text)
        assert entities._ISSUE.findall(text) == ISSUE.findall(text), repr(text)
        assert entities._paths(text) == entities._PATH.findall(text), repr(text)


def test_a_span_counter_counts_every_span_as_the_regex_does():
    tok = ApproxTokenizer()
    rnd = random.Random(5)
    for text in texts(4000, 6, longest=120) + ["ab. c, d\n\ne — f’s ✅ x"]:
        count = span_counter(tok, text)
        for _ in range(8):
            start = rnd.randint(0, len(text))
            end = rnd.randint(start, len(text))
            exact = len(APPROX.findall(text, start, end))
            for limit in (1, 5, 1000):
                n = count(start, end, limit)
                assert n == exact if exact <= limit else n > limit, (repr(text), start, end, limit)


def test_a_text_past_the_whole_limit_is_counted_span_by_span(monkeypatch):
    monkeypatch.setattr(tokenizers, "WHOLE_CHARS", 10)
    text = "one two, three. " * 4
    count = span_counter(ApproxTokenizer(), text)
    assert count(3, 40, 1000) == len(APPROX.findall(text, 3, 40))


def test_token_starts_mark_each_token_of_the_regex_once():
    for text in texts(3000, 8, longest=200):
        if not text.isascii() and tokenizers._WORDY_NON_ASCII.search(text):
            continue
        classes = text.encode("ascii", "replace").translate(tokenizers._CLASSES)
        starts = tokenizers._starts(classes)
        assert len(starts) == len(text)
        assert [i for i, b in enumerate(starts) if b] == [m.start() for m in APPROX.finditer(text)], repr(text)


class _Plain:
    """The approximate count behind another tokenizer's face: the splitter's general path, for comparison."""

    name = "plain"

    def count(self, text: str) -> int:
        return approx_count(text)


def test_a_text_within_the_window_is_one_window_as_the_general_path_makes_it():
    for max_tokens in (5, 40, 900):
        fast = Splitter(ApproxTokenizer(), max_tokens=max_tokens, overlap=max_tokens // 5)
        general = Splitter(_Plain(), max_tokens=max_tokens, overlap=max_tokens // 5)  # type: ignore[arg-type]
        for text in texts(2000, 9, longest=max_tokens + 20):
            assert fast.split(text) == general.split(text), (repr(text), max_tokens)


def test_the_short_windows_are_the_windows_of_a_text_that_fits_one():
    for max_tokens in (5, 40, 900):
        splitter = Splitter(ApproxTokenizer(), max_tokens=max_tokens, overlap=max_tokens // 5)
        for text in texts(2000, 10, longest=max_tokens + 20):
            short = splitter.short(text)
            assert (short is None) == (len(text) > max_tokens), (repr(text), max_tokens)
            assert short is None or list(short) == splitter.split(text) == list(splitter.windows(text)), repr(text)
    assert Splitter(_Plain(), max_tokens=900).short("one window") is None  # type: ignore[arg-type]  # not approx


def test_an_entry_s_author_entities_are_author_entities_and_each_entry_gets_its_own():
    """Authors' entities are kept by author (a corpus has few authors): each entry still gets dicts of its own."""
    for author in ["ana", "Claude (caleb)", "  bo.x (Ana B) ", "(nobody)", "x"]:
        want = entities.author_entities(author)
        got = list(entities.extract_entities({"author": author, "body": "plain words"}))
        assert got == want, author
        for ent in got:
            ent["name"] = "changed"
        assert list(entities.extract_entities({"author": author, "body": "plain words"})) == want, author
