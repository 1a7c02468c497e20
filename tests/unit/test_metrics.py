"""Metric definitions and the 'Asked at' rule."""

from __future__ import annotations

from simulation.bundle import Question, asked_at
from simulation.metrics import evidence_recall, gold_word_recall, is_correct, majority_baseline, percentile


def test_yes_no_judges_the_first_word_only() -> None:
    assert is_correct("Yes, both reports agree.", "Yes")
    assert not is_correct("The film 'No Time to Die' says yes", "no")
    assert is_correct('"No." The article disagrees.', "no")


def test_containment_and_unanswerable() -> None:
    assert is_correct("It was Sam Bankman-Fried, per the report.", "Sam Bankman-Fried")
    assert not is_correct("It was Caroline.", "Sam Bankman-Fried")
    assert is_correct("Insufficient information.", "Insufficient information.")
    assert is_correct("The context does not mention it. Try another source.", "Insufficient information")
    assert not is_correct("Paris.", "Insufficient information.")


def test_containment_is_of_whole_words() -> None:
    assert not is_correct("Inconsistent, the reports differ.", "Consistent")
    assert is_correct("They were consistent.", "Consistent")
    assert not is_correct("In 2015 it rose.", "15%") and is_correct("It rose 15 %.", "15%")


def test_an_empty_or_late_refusal_does_not_decline() -> None:
    assert not is_correct("", "Insufficient information")
    assert not is_correct("   ", "Insufficient information")
    assert not is_correct("The capital is Zorbtown. Its founding date is unknown.", "Insufficient information")


def test_gold_word_recall_gives_partial_credit_to_open_answers_only() -> None:
    gold = "LiHua introduced Chae to Wolfgang and Yuriko"
    assert gold_word_recall("He introduced Chae to Wolfgang.", gold) == 3 / 5  # "to", "and" not counted
    assert gold_word_recall("LiHua introduced Chae to Wolfgang and Yuriko, on Sunday.", gold) == 1.0
    assert gold_word_recall("Nobody.", gold) == 0.0
    assert gold_word_recall("the the", "the the") is None  # function words only: nothing to recall
    assert gold_word_recall("Yes", "Yes") is None and gold_word_recall("no", "Insufficient information") is None
    assert gold_word_recall("cost 5 5", "5 5 5") == 2 / 3  # repeats count as often as the gold has them


def test_majority_baseline_and_recall() -> None:
    assert majority_baseline(["Yes", "yes", "No"]) == ("yes", 2 / 3)
    assert evidence_recall(["a", "b"], ["b", "c"]) == 0.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5


def test_asked_at_is_deterministic_and_complete() -> None:
    qs = [
        Question("q1", "?", "Yes", "t", ("a",), ("d1",)),
        Question("q2", "?", "No", "t", ("b", "c"), ("d2", "d3")),
        Question("q3", "?", "Insufficient information.", "t", (), ()),
    ]
    first = asked_at(qs, ["a", "b", "c", "d"])
    assert first == asked_at(qs, ["a", "b", "c", "d"])
    kinds = [(a.question.qid, a.kind) for a in first]
    assert kinds == [("q1", "within"), ("q1", "out"), ("q2", "within"), ("q2", "out"), ("q3", "unanswerable")]
    for a in first:
        if a.kind == "within":
            assert a.edge in a.question.home_edges
        if a.kind == "out":
            assert a.edge not in a.question.home_edges
