"""The ``plain`` mode: a plain NaiveRAG beside every run, the bar the product must clear.

All of a bundle's documents go into one faiss index of 200-word chunks (160-word steps), embedded by the same
embedder as the edges. Each question takes its 4 nearest chunks, and the cloud's model is asked greedily for the
short answer alone; its first line is the short answer. There is no graph, no gate, no confidence and no
privacy: every document sits in one store. It runs in the simulation's own process once the network has stopped
(one model process at a time on the machine), once per question: a question asked at two edges has one answer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from shared.config import CloudConfig, EdgeConfig
from shared.core.model_api import Embedder, GenerationRequest, TextGenerator
from shared.core.trace import AnswerTrace, Decision, Source
from shared.models.factory import build_embedder, build_generator
from simulation.asking import row_from_trace
from simulation.bundle import Asked
from simulation.indexing import docs_by_edge
from simulation.report import PLAIN_MODE

CHUNK_WORDS = 200
STEP_WORDS = 160
TOP_CHUNKS = 4
MAX_TOKENS = 40
PROMPT = "Context:\n{context}\n\nQuestion: {question}\nAnswer with the short answer only."


@dataclass(frozen=True)
class PlainChunk:
    doc_id: str
    text: str


class PlainIndex:
    """Every document of a bundle in one exact inner-product faiss index."""

    def __init__(self, bench: Path, embedder: Embedder) -> None:
        import faiss

        self.chunks = [
            PlainChunk(str(row["doc_id"]), part)
            for rows in docs_by_edge(bench / "docs.jsonl").values()
            for row in rows
            for part in word_chunks(str(row["text"]))
        ]
        self._embedder = embedder
        self._index = faiss.IndexFlatIP(embedder.dim)
        self._index.add(embedder.embed([c.text for c in self.chunks]))

    def nearest(self, question: str, k: int = TOP_CHUNKS) -> list[PlainChunk]:
        _, found = self._index.search(self._embedder.embed([question]), k)
        return [self.chunks[i] for i in found[0] if i >= 0]


def word_chunks(text: str) -> list[str]:
    """``text`` in windows of CHUNK_WORDS words, STEP_WORDS apart (the last one reaching its end)."""
    words = text.split()
    out = []
    for start in range(0, max(len(words), 1), STEP_WORDS):
        out.append(" ".join(words[start : start + CHUNK_WORDS]))
        if start + CHUNK_WORDS >= len(words):
            break
    return out


def plain_answer(question: str, index: PlainIndex, generator: TextGenerator) -> AnswerTrace:
    """The plain NaiveRAG's answer to ``question``: the model's first line, as a local trace."""
    started = time.perf_counter()
    chunks = index.nearest(question)
    retrieved = time.perf_counter()
    context = "\n\n".join(c.text for c in chunks)
    request = GenerationRequest(PROMPT.format(context=context, question=question), None, 1, MAX_TOKENS, 0.0)
    completion = generator.generate(request)
    lines = [line.strip() for line in completion.texts[0].strip().splitlines() if line.strip()]
    short = lines[0] if lines else ""
    return AnswerTrace(
        question=question,
        answer=completion.texts[0].strip(),
        decision=Decision.LOCAL,
        verified=True,
        mode=PLAIN_MODE,
        note="",
        answers=list(completion.texts),
        degenerate=[None],
        best_generated=short,
        sampling=request.sampling(),
        model_speed=completion.speed.as_dict() if completion.speed else {},
        gate=None,
        evidence={},
        keywords=[],
        names=[],
        entities=[],
        relations=[],
        sources=[Source(c.doc_id, i, 1.0) for i, c in enumerate(chunks)],
        context_tokens=completion.prompt_tokens,
        timings={"retrieval": retrieved - started, "generation": time.perf_counter() - retrieved},
        reading={"shape": "", "reader": PLAIN_MODE, "short": short},
    )


def plain_rows(
    asked: Sequence[Asked], bench: Path, edge_config: EdgeConfig, cloud_config: CloudConfig
) -> list[dict[str, Any]]:
    """One ``plain`` row per ask, each question read once by the cloud's model (with progress)."""
    embedder = build_embedder(edge_config.embedder)
    generator = build_generator(cloud_config.llm)
    rows: list[dict[str, Any]] = []
    try:
        index = PlainIndex(bench, embedder)
        read: dict[str, AnswerTrace] = {}
        for item in tqdm(asked, desc="plain", unit="ask", file=sys.stderr, dynamic_ncols=True):
            qid = item.question.qid
            if qid not in read:
                read[qid] = plain_answer(item.question.question, index, generator)
            rows.append(row_from_trace(item, PLAIN_MODE, read[qid], []))
    finally:
        generator.close()
    return rows
