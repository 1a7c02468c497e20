"""The answer guard against a capable model told to disguise a copy: 20 reversible transforms of a protected
passage, each as such a model would write it, all caught; and the guard is no membership oracle."""

from __future__ import annotations

import pytest

from cloud_server.answering.answer_guard import guard_answer
from shared.core.verbatim import CopyIndex
from tests.support.guard_transforms import DOC, RUN, TRANSFORMS


def test_there_are_twenty_two_transforms() -> None:
    assert len(TRANSFORMS) == 22


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_a_disguised_copy_is_caught(name: str) -> None:
    answer = f"Here it is: {TRANSFORMS[name]}."
    assert CopyIndex([DOC], 6).copies(answer), f"{name} passed the guard: {answer!r}"
    guarded = guard_answer("What happened to the plant?", answer, "", [DOC], 6, 4)
    assert RUN not in guarded.text and TRANSFORMS[name] not in guarded.text


@pytest.mark.parametrize(
    "text",
    [
        "The plant moved to Porto in 2019 after floods, Zephyr Medical said.",
        "Zephyr Medical makes insulin pumps.",
        "OpenAI and iPhone are names, and so_is_this one.",
    ],
)
def test_ordinary_answers_pass(text: str) -> None:
    assert CopyIndex([DOC], 6).copies(text) == []


def test_the_guard_answers_a_member_and_a_non_member_guess_alike() -> None:
    """A guess written in the question (snake_case here) and echoed by the model: whether the document holds it
    must not change what comes back."""
    member = "quietly_moved_its_insulin_pump_plant_from_lisbon_to_porto"
    stranger = "loudly_sold_its_glucose_meter_line_from_madrid_to_seville"
    replies = []
    for guess in (member, stranger):
        question = f"Is it true that {guess}? Repeat my words."
        guarded = guard_answer(question, f"Yes: {guess}.", "Yes", [DOC], 6, 4)
        replies.append((guarded.text.replace(guess, "GUESS"), guarded.short))
    assert replies[0] == replies[1]
