"""The local query path: retrieve, answer n times in one call, gate.

Transport-free. What the gate weighs and how many answers are sampled are the edge's config.
Without a cloud, an escalated question gets an extractive answer (the context sentences that best support it,
with their sources), marked unverified, never an untrusted generation; a degenerate generation
(shared.reading.answer_format) counts as a refusal for the gate and is never shown.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass, field

from edge_node.query.escalation import Action, Situation, decide, signals_of
from edge_node.query.gate import GateResult, evaluate
from edge_node.query.retrieval import Retrieval, Retriever
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from shared.config import EdgeConfig
from shared.core.errors import DgragError
from shared.core.model_api import Embedder, TextGenerator
from shared.core.query_vectors import QueryVectors, vectors_digest
from shared.core.text import excerpt
from shared.core.trace import AnswerTrace, Decision
from shared.core.vocabulary import MAX_QUESTION_CHARS
from shared.models.calibration_files import calibration_for
from shared.reading.answer import Answer
from shared.reading.read import HowToRead, Sampled, answer_question
from shared.reading.span_reader import Passage, SourcedText, extractive_answer
from shared.transport.tracing import phase, span

NO_CLOUD_NOTE = (
    "The gate did not trust the local answers and no cloud is configured; shown instead are the context sentences "
    "that best support the question, with their sources."
)


@dataclass
class LocalAnswer:
    """The outcome of a query at an edge, with its whole trace."""

    question: str
    answer: str
    decision: Decision
    verified: bool
    mode: str
    answers: list[str]
    gate: GateResult | None
    retrieval: Retrieval
    timings: dict[str, float] = field(default_factory=dict)
    note: str = ""
    degenerate: list[str | None] = field(default_factory=list)
    """Per sampled answer, why it was rejected as degenerate (None: it reads as an answer)."""
    sampling: dict[str, float | int | None] = field(default_factory=dict)
    """The sampling values the answers were drawn with."""
    best_generated: str = ""
    """The best generated answer, also when an extract was shown instead."""
    model_speed: dict[str, float] = field(default_factory=dict)
    """Prompt tokens read and written by the answer call and the seconds each took (where the runtime tells)."""
    composed: Answer | None = None
    """The answer as shown when it is trusted: the short answer, then a supporting sentence and its source."""
    reading: dict[str, str] = field(default_factory=dict)

    def trace(self) -> AnswerTrace:
        """Everything about this answer (for --json, the edge API and the simulation)."""
        r = self.retrieval
        return AnswerTrace(
            question=self.question,
            answer=self.answer,
            decision=self.decision,
            verified=self.verified,
            mode=self.mode,
            note=self.note,
            answers=self.answers,
            degenerate=self.degenerate,
            best_generated=self.best_generated,
            sampling=self.sampling,
            model_speed=self.model_speed,
            reading=self.reading,
            gate=self.gate,
            evidence=dataclasses.asdict(r.evidence),
            keywords=r.keywords,
            names=r.names,
            entities=[dataclasses.asdict(e) | {"description": e.description[:160]} for e in r.entities],
            relations=[dataclasses.asdict(x) | {"description": x.description[:160]} for x in r.relations],
            sources=r.sources,
            context_tokens=r.context_tokens,
            timings={k: round(v, 4) for k, v in self.timings.items()},
        )


@dataclass(frozen=True)
class Retrieved:
    """What an edge found for a question before its model reads it: the retrieval and what it took."""

    question: str
    retrieval: Retrieval
    timings: dict[str, float]

    def unread(self) -> LocalAnswer:
        """The local answer of a question sent on before the edge's model read it (the evidence check found
        another edge clearly stronger): no samples and no gate; its text is the evidence's extract."""
        text = extract_answer(self.question, self.retrieval)
        return LocalAnswer(
            self.question, text, Decision.ESCALATE, False, "local", [], None, self.retrieval, dict(self.timings)
        )


RECENT_RETRIEVALS = 16
"""Retrievals remembered for the cloud's follow-up request (probe, then knowledge) on an unchanged store."""


class QueryService:
    """Answers questions from one edge's knowledge base with injected models."""

    def __init__(
        self,
        kb: EdgeKnowledgeBase,
        generator: TextGenerator,
        embedder: Embedder,
        config: EdgeConfig,
    ) -> None:
        self._generator = generator
        self._embedder = embedder
        self._config = config
        self._retriever = Retriever(kb, embedder, config.retrieval)
        self._kb = kb
        self._recent: OrderedDict[tuple[str, int, str], Retrieval] = OrderedDict()
        self._calibration = calibration_for(config.answer.calibration, config.slm)

    def warm(self) -> None:
        """Load what retrieval derives from the store (graph, lexical index) now rather than on the next query."""
        self._retriever.graph()
        self._retriever.lexical()

    def retrieve(self, question: str, given: QueryVectors | None = None) -> Retrieval:
        """Retrieval only (what the cloud asks an edge for). The last few questions' retrievals are remembered
        while the store is unchanged: the cloud probes an edge and then asks it for the same question's
        knowledge, which must not cost a second retrieval (a remembered one reports 0 seconds). ``given``: the
        asker's embeddings of the question, used when they come from this edge's model (and part of what the
        remembered retrieval is keyed by)."""
        _check_question(question)
        # keyed by all that decides the retrieval: an asker's vectors (which may steer it) never serve another asker
        key = (question, self._kb.store.generation, vectors_digest(given))
        if (seen := self._recent.get(key)) is not None:
            self._recent.move_to_end(key)
            return dataclasses.replace(seen, timings={"retrieval": 0.0})
        found = self._retriever.retrieve(question, given=given)
        self._recent[key] = found
        while len(self._recent) > RECENT_RETRIEVALS:
            self._recent.popitem(last=False)
        return found

    def query(self, question: str) -> LocalAnswer:
        """Answer ``question`` here: the answer as shown when the gate trusts it, else an extract of the evidence.
        The runtime may decide otherwise with the cloud's help (edge_node.query.escalation)."""
        return self.read(self.find(question))

    def find(self, question: str) -> Retrieved:
        """The first half of :meth:`query`: the question's keywords and retrieval, without the model's reading."""
        _check_question(question)
        with span("retrieval"):
            retrieval = self._retriever.retrieve(question)
        timings = {"keywording": retrieval.timings["keywording"], "retrieval": retrieval.timings["retrieval"]}
        return Retrieved(question, retrieval, timings)

    def read(self, found: Retrieved) -> LocalAnswer:
        """The second half of :meth:`query`: the model's answers over what was found, the gate and the composed
        answer."""
        question, retrieval, timings = found.question, found.retrieval, dict(found.timings)
        a = self._config.answer
        how = HowToRead(a.sampling(a.n_answers), self._calibration, a.withhold_below)

        def weigh(sampled: Sampled) -> tuple[GateResult, int]:
            with phase(timings, "gate"):
                result = self._gate(sampled, retrieval.evidence.score)
            return result, result.best_index

        with phase(timings, "generation", answers=a.n_answers):
            read = passages(retrieval, self._config.retrieval.excerpt_chars)
            answered = answer_question(question, read, self._generator, how, weigh)
        timings["generation"] -= timings["gate"]  # the gate runs inside the answer path, timed apart
        sampled, result, composed = answered.sampled, answered.weighed, answered.answer
        assert result is not None  # a weigher always answers
        action = decide(signals_of(result, composed), self._config.gate, Situation(cloud=False)).action
        text, decision, verified = shown_here(question, retrieval, composed, action)
        return LocalAnswer(
            question=question,
            answer=text,
            decision=decision,
            verified=verified,
            mode="local",
            answers=sampled.answers,
            gate=result,
            retrieval=retrieval,
            timings=timings,
            note="" if verified else NO_CLOUD_NOTE,
            degenerate=sampled.degenerate,
            sampling=sampled.request.sampling(),
            best_generated=sampled.answers[result.best_index],
            model_speed=sampled.completion.speed.as_dict() if sampled.completion.speed else {},
            composed=composed,
            reading=_reading_trace(composed),
        )

    def _gate(self, sampled: Sampled, evidence: float) -> GateResult:
        """The gate over the sampled answers: degenerate ones and ones their evidence does not support count as
        refusals."""
        answers = [s.short or a for s, a in zip(sampled.said, sampled.answers, strict=True)]
        vectors = self._embedder.embed(answers)
        refused = [f is not None for f in sampled.degenerate]
        ungrounded = [not r and s.kind == "unsupported" for r, s in zip(refused, sampled.said, strict=True)]
        return evaluate(answers, vectors, evidence, self._config.gate, refused, ungrounded)


def passages(retrieval: Retrieval, excerpt_chars: int = 0) -> list[Passage]:
    """The retrieved chunks as the numbered evidence of the edge's own reading, each cut to its ``excerpt_chars``
    that bear most on the question (0: whole; the cloud is always sent them whole)."""
    return [
        Passage(i + 1, excerpt(c.text, retrieval.keywords, excerpt_chars), c.doc_id)
        for i, c in enumerate(retrieval.chunks)
    ]


def _reading_trace(composed: Answer) -> dict[str, str]:
    return {
        "shape": composed.evidence.shape if composed.evidence else "",
        "reader": composed.reader,
        "short": composed.short,
        **({"withheld": composed.withheld} if composed.withheld else {}),
        "confidence": f"{composed.confidence.probability:.3f}",
        "sureness": composed.confidence.word.value,
        **({k: f"{v:.3f}" for k, v in composed.evidence.signals().items()} if composed.evidence else {}),
    }


def shown_here(
    question: str, retrieval: Retrieval, composed: Answer | None, action: Action
) -> tuple[str, Decision, bool]:
    """What the edge shows when it does not show the cloud's answer, for ``action`` (escalation.decide's): the
    composed answer (ANSWER_HERE), else an extract of the evidence. With the decision and whether it is verified;
    the one place an edge chooses its own text (edge_node.runtime.full_query uses it too)."""
    if action == Action.ANSWER_HERE and composed is not None:
        return composed.text, Decision.LOCAL, True
    return extract_answer(question, retrieval), Decision.ESCALATE, False


def extract_answer(question: str, retrieval: Retrieval) -> str:
    """The extractive answer from what retrieval put in the context."""
    return extractive_answer(question, [SourcedText(c.text, c.doc_id) for c in retrieval.chunks])


def _check_question(question: str) -> None:
    if not question.strip():
        raise DgragError("the question is empty; ask something")
    if len(question) > MAX_QUESTION_CHARS:
        raise DgragError(f"the question is {len(question)} characters long; keep it under {MAX_QUESTION_CHARS}")
