"""The strict scoring rules on examples: the short answer alone, no candidate lists, no whole lines, and the
baseline that knows each question's shape."""

from __future__ import annotations

import pytest

from simulation.scoring import rescored, shape_baseline, shape_of_ask, strictly_correct


@pytest.mark.parametrize(
    ("short", "gold", "right"),
    [
        ("Yes", "yes", True),
        ("Yes, both reports agree.", "Yes", True),
        ("No.", "no", True),
        ("Yes or no", "yes", False),  # both verdicts
        ("Yes. No, on reflection.", "yes", False),
        ("The film 'No Time to Die' says yes", "no", False),  # first word decides
        ("", "yes", False),
        ("Amazon", "Amazon", True),
        ("It was Sam Bankman-Fried.", "Sam Bankman-Fried", True),
        ("Amazon, Apple", "Amazon", False),  # a list of candidates
        ("100,000", "100000", True),  # one number, its digits grouped
        ("100,000 or 250,000", "100000", False),  # two numbers
        ("12, 100000", "100000", False),
        ("Amazon or Google", "Amazon", False),
        ("Google Search", "Amazon", False),
        ("Chae and Wolfgang", "Chae and Wolfgang", True),  # the gold itself is a list
        ("Inconsistent", "Consistent", False),  # whole words only
        ("Homemade pasta salad", "Homemade pasta salad", True),
        ("pasta salad", "Homemade pasta salad", False),  # a closed gold appears whole
        ("cozy café downtown", "the cozy café downtown", True),  # function words aside
        ("the cozy downtown café", "the cozy café downtown", False),  # in the gold's order
        (
            "Time: 20260622_13:30 HaileyJohnson: Hey Li Hua! We went to Central Perk and had a great time",
            "Central Perk",
            False,
        ),
        ("They met at Central Perk", "Central Perk", True),
        ("He introduced Chae to Wolfgang and Yuriko", "LiHua introduced Chae to Wolfgang and Yuriko", True),
        ("He introduced Chae", "LiHua introduced Chae to Wolfgang and Yuriko", False),  # 2 of 5 content words
    ],
)
def test_the_short_answer_is_judged_alone(short: str, gold: str, right: bool) -> None:
    assert strictly_correct(short, gold) is right


def test_an_unanswerable_gold_needs_a_decline_and_a_quote_earns_nothing() -> None:
    assert strictly_correct("Insufficient information.", "Insufficient information")
    assert strictly_correct("", "Insufficient information", answer="The context does not mention it.")
    assert not strictly_correct("Paris", "Insufficient information", answer="Insufficient information.")
    # the gold only in the quote or the id of the answer shown: no credit
    assert not strictly_correct("", "Amazon", answer='"Amazon said ..." [1: amazon-report]')


def test_the_baseline_knows_each_shape() -> None:
    rows = [
        {"question": "Did the report say so?", "gold": "Yes"},
        {"question": "Did the report say so?", "gold": "Yes"},
        {"question": "Did the other report say so?", "gold": "No"},
        {"question": "Which company sued Google?", "gold": "Epic"},
        {"question": "Which company sued Apple?", "gold": "Epic"},
        {"question": "Which company sued Meta?", "gold": "FTC"},
        {"question": "Who won?", "gold": "Insufficient information"},
    ]
    base = shape_baseline(rows)
    assert base.guesses["yes_no"] == ("yes", 2 / 3, 3)
    assert base.guesses["entity"] == ("epic", 2 / 3, 3)
    assert base.guesses["unanswerable"][1:] == (1.0, 1)
    assert base.accuracy == pytest.approx(5 / 7)
    assert shape_of_ask("Which company sued Google?", "Yes") == "yes_no"  # by the gold's kind


def test_rows_are_rescored_from_their_short_answer() -> None:
    row = {"question": "Who?", "gold": "Amazon", "answer": "Amazon [1: x]", "short": "", "correct": True}
    assert rescored([row])[0]["correct"] is False


def test_a_name_written_with_or_without_its_space_is_the_same_name() -> None:
    assert strictly_correct("Li Hua", "LiHua") and strictly_correct("LiHua", "Li Hua")
    assert strictly_correct("It was Wolfgang Schulz.", "WolfgangSchulz")
    assert not strictly_correct("Li", "LiHua") and not strictly_correct("Li Huang", "LiHua")
    assert not strictly_correct("Hua Li", "LiHua"), "the letters in the gold's order"
