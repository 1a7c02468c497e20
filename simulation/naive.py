"""The ``naive`` mode: the NaiveRAG baseline, run by the simulation itself, not by an edge.

Each question asked at an edge is answered from that edge's built index as plain RAG answers: the chunks nearest
the question's vector (no graph, no names, no gate), packed into the edge's context budget, and one answer of the
edge's SLM, shown as generated; a degenerate one (shared.reading.answer_format) is replaced by an extract of the
context. It runs in the simulation's own process once the network has stopped (one model process at a time), on
the same indexes, models and settings as the edges, so it differs from them only by how it answers.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from shared.config import EdgeConfig
from shared.core.model_api import TextGenerator
from shared.core.trace import AnswerTrace, Decision
from shared.models.factory import build_embedder, build_generator
from shared.reading.read import read_passages
from shared.reading.span_reader import Passage
from simulation.asking import row_from_trace
from simulation.bundle import Asked
from simulation.edge_parts import EdgeKnowledgeBase, Retriever, extract_answer
from simulation.indexing import BuiltIndex
from simulation.report import NAIVE_MODE

DEGENERATE_NOTE = "The generated answer was degenerate ({why}); shown instead are the best-supported context sentences."


def naive_rows(asked: Sequence[Asked], built: dict[str, BuiltIndex], config: EdgeConfig) -> list[dict[str, Any]]:
    """One ``naive`` row per ask, from the index of the edge it was asked at (with progress)."""
    generator = build_generator(config.slm)
    embedder = build_embedder(config.embedder)
    rows: list[dict[str, Any]] = []
    try:
        by_edge: dict[str, list[Asked]] = {}
        for item in asked:
            by_edge.setdefault(item.edge, []).append(item)
        progress = tqdm(total=len(asked), desc="naive", unit="q", file=sys.stderr, dynamic_ncols=True)
        with progress:
            for edge, items in by_edge.items():
                with EdgeKnowledgeBase(built[edge].data_dir, read_only=True) as kb:
                    retriever = Retriever(kb, embedder, config.retrieval)
                    for item in items:
                        trace = naive_answer(item.question.question, retriever, generator, config)
                        rows.append(row_from_trace(item, NAIVE_MODE, trace, []))
                        progress.update()
    finally:
        generator.close()
    return rows


def naive_answer(question: str, retriever: Retriever, generator: TextGenerator, config: EdgeConfig) -> AnswerTrace:
    """NaiveRAG's answer to ``question``: chunk vectors, one answer as generated (an extract if degenerate)."""
    started = time.perf_counter()
    retrieval = retriever.retrieve(question)
    passages = [Passage(i + 1, c.text, c.doc_id) for i, c in enumerate(retrieval.chunks)]
    sampled = read_passages(question, passages, generator, config.answer.sampling(1))
    answer, why = sampled.answers[0], sampled.degenerate[0]
    shown, note = answer, ""
    if why is not None:
        shown = extract_answer(question, retrieval)
        note = DEGENERATE_NOTE.format(why=why)
    speed = sampled.completion.speed.as_dict() if sampled.completion.speed else {}
    return AnswerTrace(
        question=question,
        answer=shown,
        decision=Decision.LOCAL,
        verified=why is None,
        mode=NAIVE_MODE,
        note=note,
        answers=sampled.answers,
        degenerate=sampled.degenerate,
        best_generated=answer,
        sampling=sampled.request.sampling(),
        model_speed=speed,
        gate=None,
        evidence=dataclasses.asdict(retrieval.evidence),
        keywords=retrieval.keywords,
        names=retrieval.names,
        entities=[],
        relations=[],
        sources=retrieval.sources,
        context_tokens=retrieval.context_tokens,
        timings={**retrieval.timings, "generation": time.perf_counter() - started - sum(retrieval.timings.values())},
    )
