"""The short phrase cut out of a model's answer to an open question: what it adds to the question, not the
restatement, the speaker's name, a greeting or a verdict that opens it."""

from __future__ import annotations

import pytest

from shared.reading.phrases import agreed_phrase, answer_phrase


@pytest.mark.parametrize(
    ("question", "answer", "phrase"),
    [
        (
            "What is the building's policy that Adam reminds Li Hua about?",
            "The building's policy that Adam reminds Li Hua about is a recycling policy.",
            "recycling policy",
        ),
        (
            "What new flavor is LiHua looking for as he mentions to Hailey?",
            "Hailey: Love that idea! Matcha would be a fantastic twist!",
            "Matcha would be a fantastic twist",
        ),
        (
            "What does Adam say about having friends over?",
            "Adam Smith: You're welcome! Yes, having friends over occasionally is fine, just keep it reasonable.",
            "having friends over occasionally is fine",
        ),
        (
            "Why does AdamSmith want the window measured?",
            "He wants the window measured to get curtains made.",
            "get curtains made",
        ),
        (
            "What is the name of the song LiHua suggests revisiting?",
            'The song LiHua suggests revisiting is "The History of Everything"',
            "History of Everything",
        ),
        ("What does Li Hua plan to cook for New Year?", "Dumplings! They are a tradition.", "Dumplings"),
    ],
)
def test_the_phrase_is_what_the_answer_adds(question: str, answer: str, phrase: str) -> None:
    assert answer_phrase(question, answer) == phrase


def test_a_declining_answer_has_no_phrase_and_the_samples_agree_on_one() -> None:
    assert answer_phrase("Where is it?", "Insufficient information.") == ""
    question = "What garden-related activity is Thrall planning to organize?"
    samples = [
        "The garden will be incredible!",
        "The garden-related activity Thrall is planning to organize a community planting day",
        "The garden-related activity Thrall plans to organize is a scavenger hunt.",
        "Thrall plans to organize a community planting day.",
    ]
    assert agreed_phrase(question, samples) == "community planting day"
