"""The cloud's reading of the merged context (transport-free): the one answer path
(shared.reading.read.answer_question) reads it as an edge reads its own, with the cloud's settings: the cloud LLM
answers once (a choice with the model's probability of each option, or votes over a few samples where
configured), a yes/no question is read claim by claim where the model's fit is given, and the short answer comes
with one supporting sentence where every text read may be quoted to the asker (see answer_guard), else with the
source ids only. When every generation is degenerate and the
context held entity and relation lines besides its chunks, the model is asked again from the chunks alone; if
that too gives nothing usable, an extract of the texts the asker may be quoted is shown. Last, the answer is
guarded (answer_guard): copies of texts their owners do not let answers quote are removed, and a short answer the
guard cut keeps no confidence. What this returns is what the asker is shown."""

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
from shared.reading.fact_reader import READER as FACT_READER
from shared.reading.plan import Reading
from shared.reading.read import Answered, HowToRead, answer_question
from shared.reading.span_reader import Passage, SourcedText, extractive_answer

FALLBACK = "fallback"
SEED = 7
"""Seed of the sampled answers (as the edges' answer.seed), so an answer can be reproduced."""
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
    yes_no: Calibration | None = None,
) -> CloudReading:
    """The answer the asker is shown for ``question`` from ``merged`` (blocking: it runs the cloud LLM): a yes/no
    question is read claim by claim where the model scores options and ``yes_no`` (its fit) is given; another closed
    answer set is one greedy choice, scored (or voted over ``config.choice_samples`` sampled answers where more than
    one), free text is one greedy answer; then every copy of the ``protected`` texts is removed (answer_guard)."""
    made = _read(question, merged, generator, config, readers, calibration, yes_no)
    whole = made.reader == FACT_READER  # a version, licence or command cut short is a fragment, never the fact
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
    yes_no: Calibration | None,
) -> Answer:
    """The composed answer, or the extract, before the guard."""
    passages = [Passage(i + 1, c.chunk.text, f"{c.edge_id}:{c.chunk.doc_id}") for i, c in enumerate(merged.chunks)]

    def sampling(reading: Reading) -> Sampling:
        # no reason after a choice: the cloud shows evidence sentences, not the model's reasons, and each reason
        # costs about 15 decoded tokens per sample
        n = config.choice_samples if reading.options else 1
        temperature = config.choice_temperature if n > 1 else 0.0
        return Sampling(n, config.max_tokens, temperature, SEED if n > 1 else None, reason=False)

    quote = readers.all_quotable(merged)
    how = HowToRead(sampling, config.readers, calibration, config.withhold_below, quote, yes_no, merged.chunk_text)
    answered: Answered[None] = answer_question(question, passages, merged.text, generator, how)
    sampled = answered.sampled
    if sampled is None or sampled.usable or answered.answer.reader != "declined":
        return answered.answer  # without samples only a model-free reader can have answered
    return Answer(_fallback(question, merged, readers), "", FALLBACK)


def _fallback(question: str, merged: MergedContext, readers: Readers) -> str:
    """Instead of a loop or a list explosion: the best sentences of the chunks the asker may be quoted (its
    own, and those of edges whose policy lets answers quote them), with their edges."""
    chunks = [c for c in merged.chunks if readers.may_quote(c.edge_id)]
    passages = [SourcedText(c.chunk.text, f"{c.edge_id}:{c.chunk.doc_id}") for c in chunks]
    if not passages and readers.all_quotable(merged):
        passages = [SourcedText(merged.text, "the edges' entities and relations")]
    if not passages:
        return NO_USABLE_ANSWER
    return extractive_answer(question, passages)
