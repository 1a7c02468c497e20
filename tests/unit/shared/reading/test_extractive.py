"""Extractive answers: the best-supported context sentences, with sources, in reading order."""

from __future__ import annotations

from shared.reading.span_reader import EXTRACT_PREFIX, SourcedText, extractive_answer, is_extractive


def test_the_sentences_sharing_most_question_words_are_quoted_with_their_sources() -> None:
    passages = [
        SourcedText("The weather was mild. The Federal Reserve held interest rates steady.", "doc-1"),
        SourcedText("Jerome Powell said interest rates could rise. Stocks fell.", "doc-2"),
    ]
    answer = extractive_answer("What did the Federal Reserve do with interest rates?", passages)
    assert is_extractive(answer)
    assert "The Federal Reserve held interest rates steady. [doc-1]" in answer
    assert "could rise. [doc-2]" in answer
    assert "weather" not in answer and "Stocks" not in answer
    assert answer.index("[doc-1]") < answer.index("[doc-2]")  # reading order


def test_nothing_matching_says_so() -> None:
    answer = extractive_answer("Who won the cricket final?", [SourcedText("Rates were held.", "doc-1")])
    assert answer == EXTRACT_PREFIX + "nothing in the retrieved documents matches the question."
