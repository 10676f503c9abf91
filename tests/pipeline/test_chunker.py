import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdock.bundle import BundleReader
from memdock.chunking import ApproxTokenizer, Chunker, ChunkOptions, Splitter, chunk_bundle
from memdock.importers.pipeline import import_corpus

TOK = ApproxTokenizer()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abc de.\n!?`")), max_size=3000), st.integers(5, 60), st.integers(0, 4))
def test_windows_are_slices_within_budget(text, size, overlap):
    sp = Splitter(TOK, max_tokens=size, overlap=overlap)
    windows = sp.split(text)
    for w in windows:
        piece = text[w.start : w.end]
        assert piece == piece.strip() and piece
        assert TOK.count(piece) <= size or " " not in piece.strip()
    covered = set()
    for w in windows:
        covered.update(range(w.start, w.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_never_cuts_inside_a_word_and_prefers_paragraphs():
    text = "\n\n".join(" ".join(f"w{p}x{i}" for i in range(40)) for p in range(6))
    windows = Splitter(TOK, max_tokens=100, overlap=10).split(text)
    words = set(text.split())
    for w in windows:
        assert set(text[w.start : w.end].split()) <= words
    assert all(text[w.start : w.end].startswith("w") for w in windows)


def test_overlap_repeats_the_tail():
    text = " ".join(f"t{i}." for i in range(500))
    ws = Splitter(TOK, max_tokens=100, overlap=20).split(text)
    assert len(ws) > 3
    for a, b in zip(ws, ws[1:]):
        assert b.start < a.end


def test_chunk_bundle_offsets_round_trip_and_ids_stable(shared_data, tmp_path):
    import_corpus([shared_data / "watercooler_threads"], "watercooler", tmp_path / "c")
    chunk_bundle(tmp_path / "c", tmp_path / "k1", ChunkOptions(max_tokens=200, overlap=30))
    chunk_bundle(tmp_path / "c", tmp_path / "k2", ChunkOptions(max_tokens=200, overlap=30))
    r = BundleReader(tmp_path / "k1")
    entries = {e["id"]: e for e in r.records("entry")}
    chunks = list(r.records("chunk"))
    assert len(chunks) > len(entries)
    for c in chunks:
        body = entries[c["entry_id"]]["body"]
        assert c["text"] == c["header"] + "\n" + body[c["start"] : c["end"]]
        assert c["thread_id"] == entries[c["entry_id"]]["thread_id"]
        assert c["header"].startswith("[")
    assert [c["id"] for c in chunks] == [c["id"] for c in BundleReader(tmp_path / "k2").records("chunk")]
    m = r.manifest["chunker"]
    assert m["params"]["max_tokens"] == 200 and m["params"]["tokenizer"] == "approx"
    assert r.count("thread") and r.count("edge")


def test_five_megabyte_entry_chunks(tmp_path):
    body = ("word " * 200 + "\n\n") * 5200
    ch = Chunker(ChunkOptions(header="off"))
    chunks = ch.chunks_for({"id": "entry:big", "thread_id": "thread:t", "body": body}, None)
    assert len(chunks) > 1000
    assert all(c["token_count"] <= 900 for c in chunks)
    assert chunks[-1]["end"] == len(body.rstrip())


def test_empty_entry_has_no_chunks():
    assert Chunker().chunks_for({"id": "entry:e", "thread_id": "thread:t", "body": "  \n"}, None) == []


def test_tiktoken_is_optional():
    pytest.importorskip("tiktoken")
    from memdock.errors import ConfigError

    try:
        ch = Chunker(ChunkOptions(tokenizer="tiktoken"))
    except ConfigError as exc:  # installed without its encoding cached, and no network here: said plainly
        assert "could not load the cl100k_base encoding" in exc.message and "--tokenizer approx" in exc.message
        pytest.skip(f"tiktoken is installed but its encoding is not cached: {exc.message[:80]}")
    assert ch.chunks_for({"id": "entry:e", "thread_id": "thread:t", "body": "hello world"}, None)[0]["token_count"] == 2


@pytest.mark.parametrize("max_tokens", [0, 10**30, True, 900.0])
def test_chunk_options_refuse_windows_out_of_range_through_the_api(max_tokens):
    from memdock.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"max_tokens \(--max-tokens\) must be an integer from 1 to 1,000,000"):
        ChunkOptions(max_tokens=max_tokens, overlap=0)


def test_auto_header_is_on_for_chats_and_off_for_plain_text():
    entry = {"id": "entry:e", "thread_id": "thread:t", "body": "I went hiking.", "author": "Caroline"}
    chat = Chunker().chunks_for(entry, {"id": "thread:t", "format": "chat"})
    text = Chunker().chunks_for(entry, {"id": "thread:t", "format": "text"})
    assert chat[0]["header"] == "Caroline" and chat[0]["text"] == "Caroline\nI went hiking."
    assert "header" not in text[0] and text[0]["text"] == "I went hiking."
