"""The cloud's reading of the merged context (transport-free): the one answer path
(shared.reading.read.answer_question) reads the edges' chunks whole, as an edge reads its own, with the cloud's
settings: its model answers once, greedily; the short answer is a span of a chunk or a verdict, with the sentence
that supports it where every text read may be quoted to the asker (see answer_guard), else with the source ids
only. When the model gives nothing usable, an extract of the texts the asker may be quoted is shown. Last, the
answer is guarded (answer_guard): copies of texts their owners do not let answers quote are removed, and a short
answer the guard cut keeps no confidence. What this returns is what the asker is shown."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from cloud_server.answering.answer_guard import Readers, guard_answer
from cloud_server.answering.context_merge import MergedContext
from shared.config import CloudQueryConfig
from shared.core.model_api import TextGenerator
from shared.reading.answer import Answer
from shared.reading.answer_format import Sampling
from shared.reading.confidence import CANT_TELL, PRIOR, Calibration
from shared.reading.read import Answered, HowToRead, answer_question
from shared.reading.span_reader import Passage, SourcedText, extractive_answer

FALLBACK = "fallback"
ENTITY_LINES = "the edges' entities and relations"
NO_USABLE_ANSWER = (
    "The cloud's model gave no usable answer from the edges' knowledge; the sources it used are listed by id."
)


@dataclass(frozen=True)
class CloudReading:
    answer: Answer
    """The answer shown (reader ``fallback`` for an extract)."""
    withheld_words: int = 0
    """Words the guard removed from the answer."""


def read_context(
    question: str,
    merged: MergedContext,
    generator: TextGenerator,
    config: CloudQueryConfig,
    readers: Readers,
    calibration: Calibration = PRIOR,
    protected: Sequence[str] = (),
) -> CloudReading:
    """The answer the asker is shown for ``question`` from ``merged`` (blocking: it runs the cloud LLM): one
    greedy answer read from the chunks whole, then every copy of the ``protected`` texts removed
    (answer_guard)."""
    made = _read(question, merged, generator, config, readers, calibration)
    whole = made.reader == "span"  # a span cut short is a fragment, never the answer
    guarded = guard_answer(
        question, made.text, made.short, protected, config.copy_words, config.copy_sentence_words, whole
    )
    if guarded.short != made.short:  # a short answer the guard cut is no longer the one its confidence measured
        cut = Answer(guarded.text, guarded.short, made.reader, confidence=CANT_TELL)
        return CloudReading(cut, guarded.removed_words)
    return CloudReading(dataclasses.replace(made, text=guarded.text), guarded.removed_words)


def _read(
    question: str,
    merged: MergedContext,
    generator: TextGenerator,
    config: CloudQueryConfig,
    readers: Readers,
    calibration: Calibration,
) -> Answer:
    """The composed answer, or the extract, before the guard."""
    passages = [Passage(i + 1, c.chunk.text, f"{c.edge_id}:{c.chunk.doc_id}") for i, c in enumerate(merged.chunks)]
    if not passages and merged.text.strip():  # edges whose policy keeps chunks home sent entity and relation lines
        passages = [Passage(1, merged.text, ENTITY_LINES)]
    sampling = Sampling(1, config.max_tokens, 0.0, None)
    how = HowToRead(sampling, calibration, config.withhold_below, readers.all_quotable(merged))
    answered = _read_staged(question, passages, generator, how, config)
    if answered.sampled.usable or not passages:
        return answered.answer
    return Answer(_fallback(question, merged, readers), "", FALLBACK)


def _read_staged(
    question: str, passages: list[Passage], generator: TextGenerator, how: HowToRead, config: CloudQueryConfig
) -> Answered[None]:
    """The best passages first: the model reads the first ``config.first_passages`` alone and that answer stands
    when it is a span they hold or a verdict, written with a probability of at least ``config.first_sure`` or
    ``config.first_verdict_sure``; else every passage is read. The passages are given in the same order both
    times, so the second reading's prompt begins with the first's and the model's cache of it is kept: a second
    reading costs the passages it adds."""
    first = config.first_passages
    if 0 < first < len(passages):
        answered: Answered[None] = answer_question(question, passages[:first], generator, how)
        said = answered.sampled.said[0] if answered.sampled.usable else None
        sure = {"span": config.first_sure, "verdict": config.first_verdict_sure}
        if said is not None and said.kind in sure and said.probability >= sure[said.kind]:
            return answered
    return answer_question(question, passages, generator, how)


def _fallback(question: str, merged: MergedContext, readers: Readers) -> str:
    """Instead of a loop or a list explosion: the best sentences of the chunks the asker may be quoted (its
    own, and those of edges whose policy lets answers quote them), with their edges."""
    chunks = [c for c in merged.chunks if readers.may_quote(c.edge_id)]
    passages = [SourcedText(c.chunk.text, f"{c.edge_id}:{c.chunk.doc_id}") for c in chunks]
    if not passages and readers.all_quotable(merged):
        passages = [SourcedText(merged.text, ENTITY_LINES)]
    if not passages:
        return NO_USABLE_ANSWER
    return extractive_answer(question, passages)
