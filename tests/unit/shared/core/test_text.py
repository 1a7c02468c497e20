"""Unit tests for shared/core/text.py: name keys, sentence splitting, whole-word matching, JSON extraction."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from shared.core.text import (
    clean_text,
    first_json_value,
    normalise_name,
    occurs_in,
    sentence_spans,
    sentences,
    truncate_chars,
)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("Acme Corp", "acme corp"),
        ("  Acme \t\n Corp  ", "acme corp"),
        ("The Acme Corp", "acme corp"),
        ("the acme corp", "acme corp"),
        ("Theodore Roosevelt", "theodore roosevelt"),
        ('"Acme Corp."', "acme corp"),
        ("(Acme)", "acme"),
        ("O’Brien", "o'brien"),
        ("ＡＣＭＥ", "acme"),  # NFKC folds full-width letters
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),  # casefold, not lower
        ("$5,000", "5,000"),
        ("", ""),
        ("...", ""),
    ],
)
def test_normalise_name(raw: str, key: str) -> None:
    assert normalise_name(raw) == key


def test_normalise_name_merges_spelling_variants() -> None:
    variants = ["The Bank of America", "bank  of america", "BANK OF AMERICA.", " Bank of\nAmerica "]
    assert {normalise_name(v) for v in variants} == {"bank of america"}


def test_clean_text_collapses_whitespace() -> None:
    assert clean_text("  a \t b\n\nc  ") == "a b c"


def test_sentence_spans_split_on_terminators_and_lines() -> None:
    text = "Alice met Bob. Then they left! Was it fun? Yes.\n\nNew para\nline two"
    spans = sentence_spans(text)
    assert spans == [(0, 14), (15, 30), (31, 42), (43, 47), (49, 57), (58, 66)]
    assert [text[s:e] for s, e in spans] == sentences(text)
    assert sentences(text) == ["Alice met Bob.", "Then they left!", "Was it fun?", "Yes.", "New para", "line two"]


def test_sentence_spans_trim_whitespace_and_drop_empty() -> None:
    text = "  First one.   Second one.  \n\n   \n\n"
    assert sentences(text) == ["First one.", "Second one."]
    for s, e in sentence_spans(text):
        assert not text[s].isspace()
        assert not text[e - 1].isspace()


def test_sentence_spans_do_not_split_before_lowercase() -> None:
    assert sentences("The value is 3.5 and e.g. more text. Next sentence.") == [
        "The value is 3.5 and e.g. more text.",
        "Next sentence.",
    ]


def test_sentence_spans_empty_and_blank() -> None:
    assert sentence_spans("") == []
    assert sentence_spans("   \n\n  ") == []
    assert sentences("no terminator") == ["no terminator"]


def test_sentence_spans_are_ordered_and_disjoint() -> None:
    text = "One. Two? Three!\nFour\n\nFive. six. Seven"
    spans = sentence_spans(text)
    assert spans == sorted(spans)
    for (_, e1), (s2, _) in pairwise(spans):
        assert e1 <= s2


def test_sentence_spans_keep_closing_quote() -> None:
    assert sentences('He said "Stop." Then he left.') == ['He said "Stop."', "Then he left."]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("New York", "I love NEW\n  york city", True),
        ("new york", "New York", True),
        ("York", "Yorkshire pudding", False),
        ("York", "New York.", True),
        ("Ann", "Joanna", False),
        ("C++", "I like C++ a lot", True),
        ("a.b", "axb", False),  # regex metacharacters are escaped
        ("Bob", "bob_smith", False),  # underscore is a word character
        ("", "anything", False),
        ("   ", "anything", False),
    ],
)
def test_occurs_in(name: str, text: str, expected: bool) -> None:
    assert occurs_in(name, text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Here: {"a": [1, 2]} and [3]', '{"a": [1, 2]}'),
        ('[{"x": 1}, {"y": 2}] trailing', '[{"x": 1}, {"y": 2}]'),
        ('{bad json [1, {"b": 2}] end', '[1, {"b": 2}]'),
        ('```json\n{"entities": []}\n```', '{"entities": []}'),
        ('{"s": "brace } in string"}', '{"s": "brace } in string"}'),
        ("no json here", None),
        ("{unterminated", None),
        ("", None),
    ],
)
def test_first_json_value(text: str, expected: str | None) -> None:
    assert first_json_value(text) == expected
    if expected is not None:
        json.loads(expected)


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("hello", 5, "hello"),
        ("hello", 10, "hello"),
        ("", 3, ""),
        ("hello world foo", 11, "hello…"),
        ("hello world foo", 14, "hello world…"),
        ("abcdefghij", 5, "abcd…"),  # one long word is cut mid-word
    ],
)
def test_truncate_chars(text: str, limit: int, expected: str) -> None:
    assert truncate_chars(text, limit) == expected


@pytest.mark.parametrize("limit", range(1, 30))
def test_truncate_chars_never_exceeds_limit(limit: int) -> None:
    text = "The quick brown fox jumps over the lazy dog"
    out = truncate_chars(text, limit)
    assert len(out) <= limit
    if out != text:
        assert out.endswith("…")
        assert text.startswith(out[:-1])
