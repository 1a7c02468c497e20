"""What the full query pipeline returns and whom it asks: the edge's answer with its local trace and the cloud's
provenance, and the two questions an edge may put to the cloud (escalate; check other edges' evidence)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from edge_node.query.answering import LocalAnswer
from shared.core.knowledge import CloudAnswer, EvidenceClaim, EvidenceVerdict
from shared.core.model_api import TextSink
from shared.core.query_vectors import QueryVectors
from shared.core.shown import ShownAnswer, shown_of
from shared.core.trace import AnswerTrace, Decision, Source

OFFLINE_NOTE = (
    "a device whose summaries match this question is offline now: its knowledge is not in this answer; ask again "
    "when it is back"
)
STRONGER_ELSEWHERE_NOTE = "escalated: the cloud found another edge whose knowledge matches the question clearly better"
QUOTES_DOCUMENTS_NOTE = (
    "The gate escalated, but the question quotes this edge's documents ({run!r}), which its privacy policy keeps "
    "home: it was not sent to the cloud. Shown instead are the context sentences that best support the question."
)
CLOUD_DOWN_NOTE = (
    "The gate escalated but the cloud could not answer ({why}); shown instead are the context sentences that "
    "best support the question, with their sources."
)


class Escalator(Protocol):
    """Asks the cloud (implemented by the session's transport)."""

    async def global_query(
        self,
        question: str,
        asked_at: str,
        vectors: QueryVectors | None = None,
        on_text: TextSink | None = None,
    ) -> CloudAnswer:
        """The cloud's answer (``vectors``: this edge's embeddings of the question, so the cloud and the edges it
        asks need not compute them again; ``on_text``: receives the cloud model's draft as it comes); raises
        CloudUnavailableError when the cloud cannot answer."""
        ...


@runtime_checkable
class EvidenceChecker(Protocol):
    """Asks the cloud whether another edge matches a question clearly better (gate.check_other_edges)."""

    async def check_evidence(
        self,
        question: str,
        claim: EvidenceClaim,
        vectors: QueryVectors | None = None,
    ) -> EvidenceVerdict:
        """Does another edge's score beat this edge's ``claim`` by more than its margin? A yes carries the cloud's
        answer to the question when the cloud gives one. Raises CloudUnavailableError
        when the cloud cannot answer."""
        ...


@dataclass
class EdgeAnswer:
    """The final answer of the full pipeline, with the local trace and the cloud's provenance."""

    answer: str
    decision: Decision
    verified: bool
    note: str
    local: LocalAnswer
    cloud: CloudAnswer | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def sources(self) -> list[Source]:
        if self.cloud is not None:
            return [Source(c.chunk.doc_id, c.chunk.chunk_id, c.chunk.score, c.edge_id) for c in self.cloud.context]
        return self.local.retrieval.sources

    @property
    def shown(self) -> ShownAnswer:
        """What a person reads (made once, from the trace: shared.core.shown)."""
        return shown_of(self.trace())

    def trace(self) -> AnswerTrace:
        return dataclasses.replace(
            self.local.trace(),
            answer=self.answer,
            decision=self.decision,
            verified=self.verified,
            note=self.note,
            sources=self.sources,
            timings={k: round(v, 4) for k, v in self.timings.items()},
            local_answer=self.local.answer,
            local_decision=self.local.decision,
            local_sources=self.local.retrieval.sources,
            cloud=self.cloud,
        )
