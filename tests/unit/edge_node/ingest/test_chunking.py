"""Unit tests for edge_node/ingest/chunking.py with the model-free RegexTokenizer."""

from __future__ import annotations

from itertools import pairwise

import pytest

from edge_node.ingest.chunking import TextChunk, chunk_text
from simulation.fakes import RegexTokenizer

TOK = RegexTokenizer()
PROSE = " ".join(f"Sentence number {i} has some words in it." for i in range(30))
WORDS = " ".join(f"w{i}" for i in range(50))


def _check_invariants(text: str, chunks: list[TextChunk], chunk_tokens: int, overlap: int) -> None:
    spans = TOK.spans(text)
    starts = {s: i for i, (s, _) in enumerate(spans)}
    ends = {e: i for i, (_, e) in enumerate(spans)}
    assert chunks, "non-empty text must give chunks"
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert c.text == text[c.start : c.end]
        assert 0 < c.tokens <= chunk_tokens
        assert c.tokens == TOK.count(c.text)
        # Chunks start and end on token boundaries.
        assert ends[c.end] - starts[c.start] + 1 == c.tokens
    # The chunks cover every token, from the first to the last, with no gap.
    assert starts[chunks[0].start] == 0
    assert ends[chunks[-1].end] == len(spans) - 1
    for prev, nxt in pairwise(chunks):
        first_next, last_prev = starts[nxt.start], ends[prev.end]
        assert starts[prev.start] < first_next <= last_prev + 1, "gap between consecutive chunks"
        assert ends[prev.end] < ends[nxt.end]
        if overlap:
            assert first_next <= last_prev, "consecutive chunks must overlap"
            assert last_prev - first_next + 1 <= overlap
        else:
            assert first_next == last_prev + 1


def test_words_exact_windows() -> None:
    chunks = chunk_text(WORDS, TOK, 10, 3)
    _check_invariants(WORDS, chunks, 10, 3)
    assert [c.text.split()[0] for c in chunks] == ["w0", "w7", "w14", "w21", "w28", "w35", "w42"]
    assert [c.tokens for c in chunks] == [10, 10, 10, 10, 10, 10, 8]
    assert chunks[0] == TextChunk(0, 0, 29, "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9", 10)
    assert chunks[-1].text == "w42 w43 w44 w45 w46 w47 w48 w49"
    # Consecutive windows share exactly overlap_tokens tokens.
    for prev, nxt in pairwise(chunks):
        assert prev.text.split()[-3:] == nxt.text.split()[:3]


def test_prose_chunks_end_at_sentence_boundaries() -> None:
    chunks = chunk_text(PROSE, TOK, 20, 5)
    _check_invariants(PROSE, chunks, 20, 5)
    # Every 11-token sentence fits, so windows are cut back to a sentence end rather than mid-sentence.
    assert all(c.text.endswith(".") for c in chunks)
    assert chunks[0].text == "Sentence number 0 has some words in it. Sentence number 1 has some words in it."
    assert chunks[1].text == "some words in it. Sentence number 2 has some words in it."


@pytest.mark.parametrize(
    ("chunk_tokens", "overlap"), [(1, 0), (2, 1), (5, 0), (7, 3), (8, 4), (16, 4), (64, 8), (240, 32), (1000, 10)]
)
def test_invariants_hold_for_many_settings(chunk_tokens: int, overlap: int) -> None:
    for text in (PROSE, WORDS, "Hello, world! " * 40, "line one\nline two\n\nline three, with: punctuation."):
        _check_invariants(text, chunk_text(text, TOK, chunk_tokens, overlap), chunk_tokens, overlap)


def test_every_chunk_adds_new_tokens_with_large_overlap() -> None:
    text = " ".join(f"Sentence number {i} has some words in it." for i in range(3))
    chunks = chunk_text(text, TOK, 7, 6)
    for prev, nxt in pairwise(chunks):
        assert nxt.end > prev.end, f"chunk {nxt.index} {nxt.text!r} lies inside chunk {prev.index} {prev.text!r}"


def test_zero_overlap_still_contiguous() -> None:
    chunks = chunk_text(WORDS, TOK, 10, 0)
    assert [c.tokens for c in chunks] == [10, 10, 10, 10, 10]
    assert " ".join(c.text for c in chunks) == WORDS


def test_short_text_is_one_chunk() -> None:
    text = "  one two three  "
    assert chunk_text(text, TOK, 10, 2) == [TextChunk(0, 2, 15, "one two three", 3)]


def test_text_exactly_chunk_tokens_long() -> None:
    text = "a b c d e"
    assert chunk_text(text, TOK, 5, 2) == [TextChunk(0, 0, 9, "a b c d e", 5)]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t"])
def test_empty_text_gives_no_chunks(text: str) -> None:
    assert chunk_text(text, TOK, 10, 2) == []


@pytest.mark.parametrize(("chunk_tokens", "overlap"), [(0, 0), (-1, 0), (10, 10), (10, 11), (10, -1)])
def test_invalid_parameters_raise(chunk_tokens: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="chunk_tokens"):
        chunk_text("some text here", TOK, chunk_tokens, overlap)


def test_deterministic() -> None:
    assert chunk_text(PROSE, TOK, 17, 4) == chunk_text(PROSE, TOK, 17, 4)
