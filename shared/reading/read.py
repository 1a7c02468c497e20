"""The one reading pipeline the edge and the cloud share, up to the composition of the shown answer:

plan (the question's shape, its options, the numbered passages) -> request (a choice or a short sentence) ->
generate (the model's samples) -> render (verdicts and choices as words) -> degeneracy (which samples must never
be shown). What happens next differs by side and stays there: the edge's gate weighs the samples before
composing; the cloud composes from the usable ones or falls back to an extract. Both compose with
:func:`shared.reading.compose.compose`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shared.core.model_api import Completion, GenerationRequest, TextGenerator
from shared.reading.answer_format import Sampling, answer_request, degeneracy, render_answers
from shared.reading.compose import Reading, plan_reading
from shared.reading.span_reader import Passage


@dataclass(frozen=True)
class Sampled:
    """The model's answers to one question, as read."""

    reading: Reading
    request: GenerationRequest
    completion: Completion
    answers: list[str]
    degenerate: list[str | None]
    """Per answer, why it must never be shown (None: it reads as an answer)."""

    @property
    def usable(self) -> list[str]:
        return [a for a, why in zip(self.answers, self.degenerate, strict=True) if why is None]


def read(
    question: str,
    passages: Sequence[Passage],
    context: str,
    generator: TextGenerator,
    sampling: Callable[[Reading], Sampling],
) -> Sampled:
    """Plan the reading of ``question`` over ``passages`` (numbered as in ``context``), ask ``generator`` as
    ``sampling`` says for that plan, and read its answers (blocking: it runs the model)."""
    reading = plan_reading(question, passages)
    return read_planned(reading, context, generator, sampling(reading))


def read_planned(reading: Reading, context: str, generator: TextGenerator, how: Sampling) -> Sampled:
    """:func:`read` for a reading already planned (by a caller that needs the plan with or without a model)."""
    request = answer_request(reading.question, context, how, reading.options)
    completion = generator.generate(request)
    answers = render_answers(completion.texts, reading.options)
    return Sampled(reading, request, completion, answers, degeneracy(reading.question, context, answers))
