"""The ``oracle`` mode: every question read from its gold evidence documents, as an edge reads its own retrieval
(the same prompt, samples and composition, shared.reading.read), so a report shows how much is lost in
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
from shared.reading.answer_format import MISSING
from shared.reading.plan import shape_of
from shared.reading.read import Answered, HowToRead, answer_question
from shared.reading.span_reader import Passage
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


def read_gold(question: Question, docs: dict[str, str], generator: TextGenerator, config: EdgeConfig) -> AnswerTrace:
    """The oracle's answer to ``question``, as a local-path trace (no gate: the evidence is the gold)."""
    started = time.perf_counter()
    passages = gold_passages(question, docs)
    a = config.answer
    if passages:
        how = HowToRead(a.sampling(a.n_answers), withhold_below=a.withhold_below)
        answered: Answered[None] = answer_question(question.question, passages, generator, how)
        composed, answers = answered.answer, answered.sampled.answers
    else:  # no gold evidence: nothing to read
        composed, answers = Answer(MISSING, MISSING, "declined"), []
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
        sources=[Source(p.source, 0, 1.0) for p in passages],
        context_tokens=0,
        timings={"generation": time.perf_counter() - started},
        reading={"shape": shape_of(question.question).shape.value, "reader": composed.reader, "short": composed.short},
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
