"""The one answer path the edge and the cloud share: :func:`answer_question` takes a question and its numbered
passages and returns one typed :class:`~shared.reading.answer.Answer`.

The model reads the passages whole and answers once (greedy) or ``n`` times (sampled) in one call
(shared.reading.passage_reader) -> each answer is read without a model (a span, a verdict, unsupported or a
decline; degenerate texts marked) -> the weigher (the edge's gate) picks the best sample -> the shown text is made
and its confidence computed in one place (shared.reading.compose). What a side does around it stays there: the
edge decides whether to stay or escalate (edge_node.query.escalation), the cloud guards the text against copies
(cloud_server.answering.answer_guard).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from shared.core.model_api import Completion, GenerationRequest, TextGenerator
from shared.core.sureness import WITHHOLD_BELOW
from shared.reading.answer import Answer
from shared.reading.answer_format import Sampling, degeneracy
from shared.reading.compose import compose
from shared.reading.confidence import PRIOR, Calibration
from shared.reading.passage_reader import Said, passage_request, said_all
from shared.reading.span_reader import Passage

W = TypeVar("W")


@dataclass(frozen=True)
class Sampled:
    """The model's answers to one question, as read."""

    question: str
    passages: tuple[Passage, ...]
    request: GenerationRequest
    completion: Completion
    said: list[Said]
    degenerate: list[str | None]
    """Per answer, why it must never be shown (None: it reads as an answer)."""

    @property
    def answers(self) -> list[str]:
        """The model's texts as written (what the gate compares)."""
        return [t.strip() for t in self.completion.texts]

    @property
    def usable(self) -> list[int]:
        """The indexes of the answers that read as answers."""
        return [i for i, why in enumerate(self.degenerate) if why is None]


@dataclass(frozen=True)
class HowToRead:
    """How one side reads: its settings for the one answer path."""

    sampling: Sampling
    """How many samples, how long and how hot."""
    calibration: Calibration = PRIOR
    """How an answer's evidence becomes its probability (the model's ``confidence`` fit)."""
    withhold_below: float = WITHHOLD_BELOW
    quote: bool = True
    """False: the asker may not receive the evidence's text; the answer names its sources only."""


@dataclass(frozen=True)
class Answered(Generic[W]):
    """The answer and what it was read from."""

    answer: Answer
    sampled: Sampled
    weighed: W | None = None
    """What the weigher said of the samples (the edge's gate), None without one."""


def answer_question(
    question: str,
    passages: Sequence[Passage],
    generator: TextGenerator,
    how: HowToRead,
    weigh: Callable[[Sampled], tuple[W, int]] | None = None,
) -> Answered[W]:
    """The answer to ``question`` from ``passages`` (blocking: it runs the model). ``weigh`` (the edge's gate) sees
    every sample, the degenerate ones too, and returns its verdict and the best sample's index; without one the
    first usable answer is shown."""
    sampled = read_passages(question, passages, generator, how.sampling)
    if weigh is None:
        usable = [i for i in sampled.usable if sampled.said[i].kind != "declined"] or sampled.usable
        best, weighed = (usable[0] if usable else -1), None
    else:
        weighed, best = weigh(sampled)
    if best >= 0 and sampled.degenerate[best] is not None:
        best = -1  # a degenerate text is never shown
    answer = compose(question, sampled.said, best, passages, how.quote, how.calibration, how.withhold_below)
    return Answered(answer, sampled, weighed)


def read_passages(question: str, passages: Sequence[Passage], generator: TextGenerator, how: Sampling) -> Sampled:
    """The model's answers to ``question`` from ``passages``, each read (a benchmark reads them without
    composing)."""
    request = passage_request(question, passages, how)
    completion = generator.generate(request)
    said = said_all(question, completion, passages)
    degenerate = degeneracy(question, request.prompt, [t.strip() for t in completion.texts])
    return Sampled(question, tuple(passages), request, completion, said, degenerate)
