"""The date or time phrase a sentence names (shared.reading.span_reader) and the date reader that uses it."""

from __future__ import annotations

import pytest

from shared.reading.span_reader import Passage, date_phrase, find_date


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("The lecture is at 7 PM on Saturday in the hall.", "7 PM on Saturday"),
        ("Karaoke is this Saturday at 7 PM, bring friends!", "this Saturday at 7 PM"),
        ("Could the delivery come next Tuesday?", "next Tuesday"),
        ("Installation is set for Wednesday next week.", "Wednesday next week"),
        ("Published 2023-10-06, updated later.", "2023-10-06"),
        ("Time: 20260122_15:00 LiHua: see you", "20260122_15:00"),
        ("We met on October 28, 2023 at noon.", "October 28, 2023"),
        ("Nothing dated here.", None),
    ],
)
def test_the_most_specific_phrase_is_named(text: str, phrase: str | None) -> None:
    assert date_phrase(text) == phrase


def test_a_date_the_question_names_is_not_the_answer() -> None:
    text = "Time: 20260805_16:00 Wolfgang: the exhibition opens at 7 PM"
    assert date_phrase(text, "When do they go to the photography exhibition on 20260805?") == "7 PM"


def test_the_date_reader_keeps_the_day_with_the_time() -> None:
    passages = [Passage(1, "Time: 20260301_10:00\nChae: The health lecture is at 7 PM on Saturday.", "q1:chat")]
    found = find_date("When is the health lecture?", passages)
    assert found is not None and found.short == "7 PM on Saturday"
