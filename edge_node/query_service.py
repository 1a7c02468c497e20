"""The local query path (DESIGN steps 4 and 5): retrieve, answer n times in one call, gate.

Transport-free. Query modes: ``naive`` (chunk vectors, one answer, no gate: the NaiveRAG baseline) and
``local`` (DGRAG's local path). Ablations (the paper's): ``cd`` no confidence detection, ``se`` no
similarity evaluation, ``bq`` one answer instead of a batch, ``kg`` vector-only retrieval without the graph.
Without a cloud, an escalated question gets the best local answer marked unverified, with a note.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from edge_node.gate import DECISION_ESCALATE, DECISION_LOCAL, GateResult, evaluate
from edge_node.knowledge_base import EdgeKnowledgeBase
from edge_node.retrieval import Retrieval, Retriever
from shared.answer_format import answer_request, render_answers
from shared.config import EdgeConfig
from shared.errors import DgragError
from shared.models.base import Embedder, TextGenerator
from shared.tokenizer import Tokenizer

QueryMode = Literal["naive", "local"]
ABLATIONS = frozenset({"cd", "se", "bq", "kg"})
NO_CLOUD_NOTE = (
    "The gate did not trust the local answers and no cloud is configured, so this is the best local answer, unverified."
)


@dataclass
class LocalAnswer:
    """The outcome of a query at an edge, with its whole trace."""

    question: str
    answer: str
    decision: str
    verified: bool
    mode: str
    answers: list[str]
    gate: GateResult | None
    retrieval: Retrieval
    timings: dict[str, float] = field(default_factory=dict)
    note: str = ""

    def trace(self) -> dict[str, Any]:
        """Everything about this answer as plain data (for --json and logs)."""
        r = self.retrieval
        return {
            "question": self.question,
            "answer": self.answer,
            "decision": self.decision,
            "verified": self.verified,
            "mode": self.mode,
            "note": self.note,
            "answers": self.answers,
            "gate": dataclasses.asdict(self.gate) if self.gate else None,
            "evidence": dataclasses.asdict(r.evidence),
            "keywords": r.keywords,
            "names": r.names,
            "entities": [dataclasses.asdict(e) | {"description": e.description[:160]} for e in r.entities],
            "relations": [dataclasses.asdict(x) | {"description": x.description[:160]} for x in r.relations],
            "sources": r.sources,
            "context_tokens": r.context_tokens,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


class QueryService:
    """Answers questions from one edge's knowledge base with injected models."""

    def __init__(
        self,
        kb: EdgeKnowledgeBase,
        generator: TextGenerator,
        embedder: Embedder,
        tokenizer: Tokenizer,
        config: EdgeConfig,
    ) -> None:
        self._generator = generator
        self._embedder = embedder
        self._config = config
        self._retriever = Retriever(kb, embedder, tokenizer, generator, config.retrieval)

    def retrieve(self, question: str, use_graph: bool = True) -> Retrieval:
        """Retrieval only (what the cloud asks an edge for)."""
        _check_question(question)
        return self._retriever.retrieve(question, use_graph=use_graph)

    def query(self, question: str, mode: QueryMode = "local", ablations: frozenset[str] = frozenset()) -> LocalAnswer:
        _check_question(question)
        unknown = ablations - ABLATIONS
        if unknown:
            raise DgragError(f"unknown ablation(s) {sorted(unknown)}; use some of {sorted(ABLATIONS)}")
        timings: dict[str, float] = {}
        naive = mode == "naive"
        t = time.perf_counter()
        slm_words = self._retriever.slm_keywords(question) if self._config.retrieval.slm_keywords and not naive else []
        slm_s = time.perf_counter() - t
        retrieval = self._retriever.retrieve(
            question, use_graph=not naive and "kg" not in ablations, slm_keywords=slm_words
        )
        timings["keywording"] = slm_s + retrieval.timings["keywording"]
        timings["retrieval"] = retrieval.timings["retrieval"]
        n = 1 if naive or "bq" in ablations else self._config.answer.n_answers
        t = time.perf_counter()
        answers = self._answers(question, retrieval.context, n)
        timings["generation"] = time.perf_counter() - t
        if naive:
            return LocalAnswer(question, answers[0], DECISION_LOCAL, True, mode, answers, None, retrieval, timings)
        t = time.perf_counter()
        gate_config = dataclasses.replace(
            self._config.gate,
            confidence_detection=self._config.gate.confidence_detection and "cd" not in ablations,
            similarity_evaluation=self._config.gate.similarity_evaluation and "se" not in ablations,
        )
        vectors = self._embedder.embed(answers)
        result = evaluate(answers, vectors, retrieval.evidence.score, gate_config)
        timings["gate"] = time.perf_counter() - t
        best = answers[result.best_index]
        if result.decision == DECISION_ESCALATE:
            return LocalAnswer(
                question, best, DECISION_ESCALATE, False, mode, answers, result, retrieval, timings, NO_CLOUD_NOTE
            )
        return LocalAnswer(question, best, DECISION_LOCAL, True, mode, answers, result, retrieval, timings)

    def _answers(self, question: str, context: str, n: int) -> list[str]:
        cfg = self._config.answer
        request = answer_request(
            question, context, n, cfg.max_tokens, cfg.temperature, cfg.seed,
            top_p=cfg.top_p, top_k=cfg.top_k, min_p=cfg.min_p, repeat_penalty=cfg.repeat_penalty,
        )  # fmt: skip
        return render_answers(question, self._generator.generate(request).texts)


def _check_question(question: str) -> None:
    if not question.strip():
        raise DgragError("the question is empty; ask something")
    if len(question) > 4000:
        raise DgragError(f"the question is {len(question)} characters long; keep it under 4000")
