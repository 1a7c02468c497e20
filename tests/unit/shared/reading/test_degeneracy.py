"""The degeneracy detector on generations recorded from the bundled SmolLM2, and on good answers."""

from __future__ import annotations

import pytest

from shared.reading.answer_format import ANSWER_INSTRUCTIONS, degeneracy, degenerate_reason

CONTEXT = (
    "Sam Bankman-Fried was convicted of fraud. Judge Lewis Kaplan presided over the trial in New York. "
    "The Federal Reserve held interest rates steady in November, said Jerome Powell."
)

# What the demo printed on a machine where the first run had crashed (issue 15), and answers taken from
# docs/results/multihop4-full/answers.jsonl.gz (commit 7b5e1cb) that no one should be shown.
BAD = {
    "list explosion": "Theft\nA. Theft of assets\nB. Theft of money\nC. Theft of identity\nD. Theft of property",
    "numbered list": "1. Google's AI laboratory\n2. Amazon's Tye Brady\n3. AI startup: Google's hardware events\n"
    "4. AI milestone: Google's IoT\n\nAvailable options:\n- 1. Google's hardware events",
    "loop": "The Independent - Sports - Sports, published 2023-10-14 | Sports Writers Blog, published 2023-12-12 | "
    "Sports Writers Blog, published 2023-10-14 | Sports Writers Blog, published 2023-12-14 | Sports Writers Blog",
    "word run": "The Federal Reserve rates rates rates rates rates",
    "prompt echo": "Yes. the exact words from the passages that answer the question",
    "emoji loop": "LiHua: Sounds great, see you at the party! 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉",
    "symbol run": "Sam Bankman-Fried ★★★★★★★★★★",
    "unrelated": "The 26 best Amazon Prime Day deals you can still shop for today include televisions and blenders",
}
GOOD = [
    "Yes. Judge Lewis Kaplan presided over the fraud trial of Sam Bankman-Fried.",
    "The Federal Reserve held interest rates steady in November.",
    "No. The context says Jerome Powell announced the decision.",
    "Insufficient information.",
    "Sam Bankman-Fried",
    "",
]


@pytest.mark.parametrize("name", sorted(BAD))
def test_recorded_bad_generations_are_caught(name: str) -> None:
    question = "Who presided over the trial, and what did the Federal Reserve do with interest rates?"
    assert degenerate_reason(BAD[name], question, CONTEXT, ANSWER_INSTRUCTIONS) is not None


def test_good_answers_pass() -> None:
    question = "Did Judge Lewis Kaplan preside over the Sam Bankman-Fried trial?"
    assert degeneracy(question, CONTEXT, GOOD) == [None] * len(GOOD)


def test_an_answer_that_repeats_the_question_is_an_echo() -> None:
    question = "Who presided over the trial?"
    reason = degenerate_reason("Who presided over the trial?", question, CONTEXT)
    assert reason is not None and reason.startswith("prompt echo")


def test_reasons_say_what_was_wrong() -> None:
    reason = degenerate_reason(BAD["list explosion"], "What was stolen?", "")
    assert reason == "list explosion: 4 list items"
