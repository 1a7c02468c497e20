"""The ``oracle`` mode: every question read from its gold evidence documents, as an edge reads its own retrieval
(the same prompt, samples, readers and composition, shared.reading.compose), so a report shows how much is lost in
retrieval (oracle against dgrag) and how much in reading (oracle against the gold).

It runs in the simulation's own process after the edges and the cloud have stopped (one model process at a time
on the machine), once per question: a question asked at two edges has one oracle answer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from shared.config import EdgeConfig
from shared.core.model_api import TextGenerator
from shared.core.text import content_words, excerpt
from shared.core.trace import AnswerTrace, Decision, Source
from shared.models.factory import build_generator
from shared.reading.answer import Answer
from shared.reading.answer_format import declares_missing
from shared.reading.compose import compose
from shared.reading.plan import Reading, plan_reading
from shared.reading.read import read_planned
from shared.reading.span_reader import Passage, numbered_context
from simulation.asking import row_from_trace
from simulation.bundle import Asked, Question
from simulation.indexing import docs_by_edge
from simulation.report import ORACLE_MODE

PASSAGE_CHARS = 900
"""Each gold document is cut to its sentences about the question, about as long as a retrieved chunk."""


def load_docs(bench: Path) -> dict[str, str]:
    """doc_id -> text of a bundle's documents (a malformed row is refused with its line, as when indexing)."""
    return {str(r["doc_id"]): str(r["text"]) for rows in docs_by_edge(bench / "docs.jsonl").values() for r in rows}


def gold_passages(question: Question, docs: dict[str, str]) -> list[Passage]:
    """The question's gold evidence documents as numbered passages, each excerpted to the question's sentences."""
    terms = content_words(question.question)
    out: list[Passage] = []
    for doc_id in question.evidence_doc_ids:
        if doc_id in docs:
            out.append(Passage(len(out) + 1, excerpt(docs[doc_id], terms, PASSAGE_CHARS), doc_id))
    return out


def sample_answers(generator: TextGenerator, reading: Reading, config: EdgeConfig) -> list[str]:
    """``answer.n_answers`` answers of the SLM from the reading's passages (on the choice schema where the
    question's shape has one), as the edge samples them."""
    context = numbered_context(reading.passages)
    how = config.answer.sampling(config.answer.n_answers)
    return read_planned(reading, context, generator, how).answers


def first_usable(answers: Sequence[str]) -> int:
    """The first sample that does not decline (0 when all do)."""
    return next((i for i, a in enumerate(answers) if not declares_missing(a)), 0)


def read_gold(question: Question, docs: dict[str, str], generator: TextGenerator, config: EdgeConfig) -> AnswerTrace:
    """The oracle's answer to ``question``, as a local-path trace (no gate: the evidence is the gold)."""
    started = time.perf_counter()
    reading = plan_reading(question.question, gold_passages(question, docs))
    answers = sample_answers(generator, reading, config) if reading.passages else []
    a = config.answer
    composed: Answer = compose(reading, answers, first_usable(answers), a.readers, withhold_below=a.withhold_below)
    return AnswerTrace(
        question=question.question,
        answer=composed.text,
        decision=Decision.LOCAL,
        verified=True,
        mode=ORACLE_MODE,
        note="",
        answers=answers,
        degenerate=[None] * len(answers),
        best_generated="",
        sampling={},
        model_speed={},
        gate=None,
        evidence={},
        keywords=[],
        names=[],
        entities=[],
        relations=[],
        sources=[Source(p.source, 0, 1.0) for p in reading.passages],
        context_tokens=0,
        timings={"generation": time.perf_counter() - started},
        reading={"shape": reading.shape.shape.value, "reader": composed.reader, "short": composed.short},
    )


def oracle_rows(asked: Sequence[Asked], bench: Path, config: EdgeConfig) -> list[dict[str, Any]]:
    """One ``oracle`` row per ask, each question read once (with progress)."""
    docs = load_docs(bench)
    generator = build_generator(config.slm)
    traces: dict[str, AnswerTrace] = {}
    rows = []
    try:
        for item in tqdm(asked, desc="oracle", unit="q", file=sys.stderr, dynamic_ncols=True):
            qid = item.question.qid
            reused = qid in traces
            if not reused:
                traces[qid] = read_gold(item.question, docs, generator, config)
            row = row_from_trace(item, ORACLE_MODE, traces[qid], [])
            rows.append(row | {"reused": reused})
    finally:
        generator.close()
    return rows
