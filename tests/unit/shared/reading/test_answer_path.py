"""The one answer path (shared.reading.read.answer_question): what the edge's weigher and the cloud's settings
change, and what they share."""

from __future__ import annotations

import dataclasses

from shared.reading.answer_format import Sampling
from shared.reading.plan import Reading
from shared.reading.read import HowToRead, Sampled, answer_question
from shared.reading.span_reader import Passage
from simulation.fakes import ScriptedGenerator

PASSAGES = [
    Passage(1, "Acme Robotics is led by Jane Doe. Acme Robotics builds welding arms.", "a:acme-1"),
    Passage(2, "Package acme, version 4.2.1. License: MIT.", "a:acme-2"),
]
CONTEXT = "\n".join(f"[{p.number}] {p.text}" for p in PASSAGES)


def _how(n: int = 3) -> HowToRead:
    def sampling(_: Reading) -> Sampling:
        return Sampling(n, 32, 0.7, 7)

    return HowToRead(sampling)


def test_a_fact_a_reader_states_asks_no_model_without_a_weigher() -> None:
    model = ScriptedGenerator(lambda _: "3.0")
    answered = answer_question("What version of acme is described?", PASSAGES, CONTEXT, model, _how())
    assert answered.answer.short == "4.2.1" and answered.answer.reader == "fact"
    assert answered.sampled is None and not model.requests, "the answer is model-free: no generation to wait for"


def test_the_weigher_sees_every_sample_and_its_pick_is_the_one_composed() -> None:
    replies = iter(["Jane Doe leads it.", "Insufficient information.", "Jane Doe."])
    model = ScriptedGenerator(lambda _: next(replies))
    seen: list[Sampled] = []

    def weigh(sampled: Sampled) -> tuple[str, int]:
        seen.append(sampled)
        return "weighed", 2

    answered = answer_question("What does Acme Robotics do?", PASSAGES, CONTEXT, model, _how(), weigh)
    assert len(seen) == 1 and len(seen[0].answers) == 3, "the weigher gets all samples, the decline too"
    assert answered.weighed == "weighed" and answered.sampled is seen[0]
    assert answered.answer.text and answered.answer.confidence.probability > 0


def test_one_typed_answer_names_its_sources_and_its_confidence_word() -> None:
    model = ScriptedGenerator(lambda _: "Jane Doe")
    answer = answer_question("Who leads Acme Robotics?", PASSAGES, CONTEXT, model, _how()).answer
    assert answer.short == "Jane Doe" and answer.sources == ("a:acme-1",)
    assert answer.confidence.word.value in ("sure", "likely", "can't tell") and answer.signals()


def test_a_yes_no_question_naming_a_licence_is_asked_of_the_model_not_declined() -> None:
    """A yes/no question such as "Is acme licensed under MIT?" asks for a verdict, not for
    the licence: no fact reader answers it alone."""
    model = ScriptedGenerator(lambda _: '{"answer": "yes", "because": "License: MIT."}')
    how = dataclasses.replace(_how(), withhold_below=0.0)  # every verdict shown: the reader is what is tested
    answered = answer_question("Is acme licensed under MIT?", PASSAGES, CONTEXT, model, how)
    assert answered.reading.fact is None and model.requests, "the model reads the verdict"
    assert answered.answer.short == "Yes" and answered.answer.reader == "vote"
