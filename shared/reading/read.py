"""The one answer path the edge and the cloud share: :func:`answer_question` takes a question and its numbered
passages and returns one typed :class:`~shared.reading.answer.Answer`.

plan (the question's shape, its options, the numbered passages) -> either a model-free reader (a version, licence
or command) or a yes/no verdict read claim by claim (where a fit for the model is given and the model scores
options) or the model's samples (a choice or a short sentence, rendered, the degenerate ones marked) -> the
weigher (the edge's gate) picks the best sample -> :func:`shared.reading.compose.compose`, the one place the shown
text is made and its confidence computed and applied (a verdict read claim by claim is written by
:func:`shared.reading.claims.verdict_answer`). What a side does around it stays there: the edge decides
whether to stay or escalate (edge_node.query.escalation), the cloud guards the text against copies
(cloud_server.answering.answer_guard).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from shared.core.model_api import Completion, GenerationRequest, TextGenerator, scorer_of
from shared.core.sureness import WITHHOLD_BELOW
from shared.reading.answer import Answer
from shared.reading.answer_format import (
    CHOICE_OPENING,
    Sampling,
    answer_request,
    choice_answers,
    degeneracy,
    render_answers,
)
from shared.reading.claims import read_verdict, verdict_answer
from shared.reading.compose import DEFAULT_READERS, compose
from shared.reading.confidence import PRIOR, Calibration
from shared.reading.plan import Reading, plan_reading
from shared.reading.reader_profile import ReaderProfile
from shared.reading.span_reader import Passage

W = TypeVar("W")


@dataclass(frozen=True)
class Sampled:
    """The model's answers to one question, as read."""

    reading: Reading
    request: GenerationRequest
    completion: Completion
    answers: list[str]
    degenerate: list[str | None]
    """Per answer, why it must never be shown (None: it reads as an answer)."""
    shares: Mapping[str, float] = field(default_factory=dict)
    """A single choice's options (and the decline) with the model's probability of each as its answer (empty:
    several samples were voted, or the model does not score options)."""

    @property
    def usable(self) -> list[str]:
        return [a for a, why in zip(self.answers, self.degenerate, strict=True) if why is None]


@dataclass(frozen=True)
class HowToRead:
    """How one side reads: its settings for the one answer path."""

    sampling: Callable[[Reading], Sampling]
    """How many samples, how long and how hot, for a planned reading."""
    readers: ReaderProfile = DEFAULT_READERS
    calibration: Calibration = PRIOR
    """How an answer's evidence becomes its probability (the model's ``confidence`` fit)."""
    withhold_below: float = WITHHOLD_BELOW
    quote: bool = True
    """False: the asker may not receive the evidence's text; the answer names its sources only."""
    yes_no: Calibration | None = None
    """The model's yes/no fit: given (and the model scores options), a yes/no question is read claim by claim."""
    retry_context: str = ""
    """A shorter context to ask once more from when every sample is degenerate ("" : none)."""


@dataclass(frozen=True)
class Answered(Generic[W]):
    """The answer and what it was read from."""

    answer: Answer
    reading: Reading
    sampled: Sampled | None = None
    """The model's samples (None: a model-free reader or the claim reader answered)."""
    weighed: W | None = None
    """What the weigher said of the samples (the edge's gate), None without one."""


def answer_question(
    question: str,
    passages: Sequence[Passage],
    context: str,
    generator: TextGenerator,
    how: HowToRead,
    weigh: Callable[[Sampled], tuple[W, int]] | None = None,
) -> Answered[W]:
    """The answer to ``question`` from ``passages`` (numbered as in ``context``; blocking: it runs the model).
    ``weigh`` (the edge's gate) sees every sample, the degenerate ones too, and returns its verdict and the best
    sample's index; then every sample is composed. Without a weigher, a question a model-free reader answers asks
    no model, and only the usable samples are composed."""
    reading = plan_reading(question, passages)
    if weigh is None and not reading.needs_model:
        return Answered(_compose(reading, [], 0, how, {}), reading)
    scorer = scorer_of(generator)
    if weigh is None and how.yes_no is not None and scorer is not None and reading.by_claims(how.readers.dates):
        verdict = read_verdict(question, passages, scorer, how.yes_no)
        return Answered(verdict_answer(reading, verdict, how.quote, how.withhold_below), reading)
    sampled = read_planned(reading, context, generator, how.sampling(reading))
    if not sampled.usable and passages and how.retry_context and how.retry_context != context:
        # a small model loses its way in a long context of chunks and entity lines (numbered lists, loops): it is
        # asked once more from the shorter one
        sampled = read_planned(reading, how.retry_context, generator, how.sampling(reading))
    if weigh is None:
        return Answered(_compose(reading, sampled.usable, 0, how, sampled.shares), reading, sampled)
    weighed, best = weigh(sampled)
    return Answered(_compose(reading, sampled.answers, best, how, sampled.shares), reading, sampled, weighed)


def _compose(
    reading: Reading, answers: Sequence[str], best: int, how: HowToRead, shares: Mapping[str, float]
) -> Answer:
    return compose(reading, answers, best, how.readers, how.quote, how.calibration, how.withhold_below, shares)


def read_planned(reading: Reading, context: str, generator: TextGenerator, how: Sampling) -> Sampled:
    """The model's samples for a reading already planned (a benchmark reads them without composing). A single
    choice is scored too: the model's probability of each option as its answer, read after the choice's opening in
    one more forward pass of a few tokens (the prompt is cached), where the model scores options."""
    request = answer_request(reading.question, context, how, reading.options)
    completion = generator.generate(request)
    answers = render_answers(completion.texts, reading.options)
    shares: dict[str, float] = {}
    if reading.options and request.n == 1 and (scorer := scorer_of(generator)) is not None:
        options = choice_answers(reading.options)
        shares = dict(zip(options, scorer.option_probabilities(request, options, CHOICE_OPENING), strict=True))
    return Sampled(reading, request, completion, answers, degeneracy(reading.question, context, answers), shares)
