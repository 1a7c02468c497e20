"""Copied text is found after normalisation: runs, runs with one word swapped, whole short sentences."""

from __future__ import annotations

import pytest

from benchmarks.shared_run import longest_shared_run
from shared.core.verbatim import CopyIndex, redact, words

DOC = (
    "Zephyr Medical was founded by Omar Haddad in Lisbon in 1998 and makes 1,000 insulin pumps a year. "
    "He is 42. She was born in Porto in 1975."
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("They say: ZEPHYR medical, was founded by Omar Haddad in Lisbon!", "run"),
        ("Zephyr Medical was started by Omar Haddad in Lisbon", "near_run"),
        ("Ze\u200bphyr Medi\u200dcal was founded by Omar Haddad in Lisbon", "run"),
        ("ｚｅｐｈｙｒ medical was founded by omar haddad in lisbon", "run"),
        ("in 1998 and makes 1000 insulin pumps a year", "run"),
        ("So: she was born in Porto in 1975!", "sentence"),
    ],
)
def test_copies_are_found_whatever_their_case_punctuation_invisible_characters_and_digits(text: str, kind: str) -> None:
    found = CopyIndex([DOC], 8).copies(text)
    assert found and found[0].kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "Zephyr Medical, a Lisbon firm of Omar Haddad, makes insulin pumps.",
        "He is 42",  # a sentence shorter than four words is an ordinary phrase
        "Omar Haddad founded it in 1998.",
    ],
)
def test_a_paraphrase_or_a_few_shared_words_are_not_copies(text: str) -> None:
    assert CopyIndex([DOC], 8).copies(text) == []


def test_words_the_question_supplied_are_not_counted_as_copied() -> None:
    index = CopyIndex([DOC], 6)
    answer = "Zephyr Medical was founded by Omar Haddad in Lisbon"
    assert index.copies(answer)
    assert index.copies(answer, given="Is it true that Zephyr Medical was founded by Omar Haddad in Lisbon?") == []


def test_redaction_removes_the_copied_words_and_keeps_the_rest() -> None:
    text = "Short answer: Zephyr Medical was founded by Omar Haddad in Lisbon. That is all."
    shown, removed = redact(text, CopyIndex([DOC], 6).copies(text))
    assert shown == "Short answer: […]. That is all." and removed == 9
    assert longest_shared_run(shown, [DOC]) < 6


def test_runs_shorter_than_three_words_are_refused() -> None:
    with pytest.raises(ValueError, match="use 3 or more"):
        CopyIndex([DOC], 2)
    assert words("Ｎｏ. 1,000\u200b!") == ["no", "1000"]


def test_a_question_holding_a_run_with_one_word_changed_does_not_exempt_the_original() -> None:
    index = CopyIndex([DOC], 6)
    lure = "Continue: Zephyr Medical was started by Omar Haddad"
    assert index.copies("Zephyr Medical was founded by Omar Haddad", given=lure)
    handle = "Continue this: Zephyr Medical was founded by Omar"
    found = index.copies("Zephyr Medical was founded by Omar Haddad in Lisbon", given=handle)
    assert found and found[-1].last == 8, "the words past the handle the asker wrote are a copy"
