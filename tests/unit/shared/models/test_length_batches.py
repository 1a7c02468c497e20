"""Embedding batches by text length: a short name never pads up to a long question."""

from __future__ import annotations

from shared.models.embedder import length_batches


def test_a_long_question_and_short_names_go_in_separate_batches_in_order_of_length() -> None:
    lengths = [90, 8, 12, 10]
    assert length_batches(lengths, 32) == [[1, 3, 2], [0]]


def test_every_index_appears_once_and_no_batch_exceeds_its_size() -> None:
    lengths = [30, 31, 32, 33, 34, 400, 35, 36]
    batches = length_batches(lengths, 3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert max(len(b) for b in batches) == 3
    assert [5] in batches


def test_no_texts_give_no_batches() -> None:
    assert length_batches([], 32) == []
