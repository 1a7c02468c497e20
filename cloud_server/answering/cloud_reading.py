"""The cloud's reading of the merged context (transport-free): the question's shape decides the reader, the cloud
LLM answers once (on a choice schema where the shape has one), and the answer is composed as an edge composes
its own: the short answer, then one supporting sentence with its source where every text read may be quoted to
the asker (see answer_guard), else the source ids only. When every generation is degenerate and the context held
entity and relation lines besides its chunks, the model is asked again from the chunks alone; if that too gives
nothing usable, the shape's model-free reader answers where it can, and otherwise an extract of the texts the
asker may be quoted is shown. Last, the answer is guarded (answer_guard): copies of texts their owners do not let
answers quote are removed, and a short answer the guard cut keeps no confidence. What this returns is what the
asker is shown."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from cloud_server.answering.answer_guard import Readers, guard_answer
from cloud_server.answering.context_merge import MergedContext
from shared.config import CloudQueryConfig
from shared.core.model_api import TextGenerator, scorer_of
from shared.reading.answer_format import Sampling
from shared.reading.claim_verdict import read_verdict
from shared.reading.compose import (
    ComposedAnswer,
    Reading,
    by_claims,
    compose,
    compose_verdict,
    needs_model,
    plan_reading,
)
from shared.reading.confidence import CANT_TELL, PRIOR, Calibration, Confidence
from shared.reading.extractive import SourcedText, extractive_answer
from shared.reading.read import read_planned
from shared.reading.span_reader import Passage

FALLBACK = "fallback"
SEED = 7
"""Seed of the sampled answers (as the edges' answer.seed), so an answer can be reproduced."""
NO_USABLE_ANSWER = (
    "The cloud's model gave no usable answer from the edges' knowledge; the sources it used are listed by id."
)


@dataclass(frozen=True)
class CloudReading:
    text: str
    """The answer shown."""
    short: str
    """The answer alone ("" when the shown answer is an extract)."""
    reader: str = FALLBACK
    """The reader that made it (shared.reading.compose.ComposedAnswer.reader), or ``fallback`` for an extract."""
    confidence: Confidence = CANT_TELL
    signals: dict[str, float] = field(default_factory=dict)
    """What the confidence was computed from (shared.reading.confidence.Evidence.signals)."""
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
    answer set is voted over ``config.choice_samples`` sampled answers, free text is one greedy answer; then every
    copy of the ``protected`` texts is removed (answer_guard)."""
    made = _read(question, merged, generator, config, readers, calibration, yes_no)
    guarded = guard_answer(question, made.text, made.short, protected, config.copy_words, config.copy_sentence_words)
    if guarded.short != made.short:  # a short answer the guard cut is no longer the one its confidence measured
        return CloudReading(guarded.text, guarded.short, made.reader, withheld_words=guarded.removed_words)
    return dataclasses.replace(made, text=guarded.text, withheld_words=guarded.removed_words)


def _read(
    question: str,
    merged: MergedContext,
    generator: TextGenerator,
    config: CloudQueryConfig,
    readers: Readers,
    calibration: Calibration,
    yes_no: Calibration | None,
) -> CloudReading:
    """The composed answer, or the extract, before the guard."""
    passages = [Passage(i + 1, c.chunk.text, f"{c.edge_id}:{c.chunk.doc_id}") for i, c in enumerate(merged.chunks)]

    def sampling(reading: Reading) -> Sampling:
        # no reason after a choice: the cloud shows evidence sentences, not the model's reasons, and each reason
        # costs about 15 decoded tokens per sample
        n = max(config.choice_samples, 1) if reading.options else 1
        temperature = config.choice_temperature if n > 1 else 0.0
        return Sampling(n, config.max_tokens, temperature, SEED if n > 1 else None, reason=False)

    reading = plan_reading(question, passages)
    quote = readers.all_quotable(merged)
    if not needs_model(reading):  # the answer is model-free: no generation to wait for
        composed = compose(reading, [], 0, config.readers, quote, calibration, config.withhold_below)
        return _reading(composed)
    scorer = scorer_of(generator)
    if yes_no is not None and scorer is not None and by_claims(reading, config.readers):
        verdict = read_verdict(question, passages, scorer, yes_no)
        return _reading(compose_verdict(reading, verdict, quote, config.withhold_below))
    sampled = read_planned(reading, merged.text, generator, sampling(reading))
    if not sampled.usable and passages and merged.chunk_text != merged.text:
        # a small model loses its way in a long context of chunks and entity lines (numbered lists, loops): it is
        # asked once more from the chunks alone
        sampled = read_planned(reading, merged.chunk_text, generator, sampling(reading))
    usable = sampled.usable
    composed = compose(reading, usable, 0, config.readers, quote, calibration, config.withhold_below)
    if usable or composed.reader != "declined":  # without samples only a model-free reader can have answered
        return _reading(composed)
    return CloudReading(_fallback(question, merged, readers), "")


def _reading(composed: ComposedAnswer) -> CloudReading:
    signals = composed.evidence.signals() if composed.evidence else {}
    return CloudReading(composed.text, composed.short, composed.reader, composed.confidence, signals)


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
