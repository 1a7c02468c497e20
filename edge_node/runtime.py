"""An edge node at run time, transport-free: its knowledge base, models and services behind async methods.

Every use of the knowledge base and the models runs on one worker thread, in order: llama.cpp and the
SQLite connection are used by one thread at a time, and the event loop stays free for the gRPC API and
the cloud session. The full query pipeline lives here: local answers + gate, then the cloud when the
gate escalates and a cloud is reachable, else the best local answer marked unverified with a note.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from edge_node.ingest.readers import ReadResult
from edge_node.ingest.service import IngestReport, IngestService, ProgressSink, SummaryRefresh
from edge_node.policy.audit import AuditLog
from edge_node.policy.leak_guard import LeakGuard
from edge_node.policy.privacy import (
    Outbound,
    forbids_raw_text,
    guard_summaries,
    knowledge_for_cloud,
    knowledge_texts,
    word_scores,
)
from edge_node.query.answering import LocalAnswer, QueryService, extract_answer
from edge_node.store import publication
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from shared.config import EdgeConfig
from shared.errors import CloudUnavailableError, InvalidRequestError, PermissionDeniedError
from shared.knowledge import PROBES_REFUSED, CloudAnswer, EdgeKnowledge, ProbeScores, SummaryChanges
from shared.models.base import Embedder, TextGenerator
from shared.models.factory import build_embedder, build_generator
from shared.query_vectors import QueryVectors
from shared.tokenizer import Tokenizer, WordPieceTokenizer
from shared.trace import AnswerTrace, Decision, Source
from shared.vocabulary import CLOUD_ROUTING_ABLATIONS, EDGE_MODES

T = TypeVar("T")
STRONGER_ELSEWHERE_NOTE = "escalated: the cloud found another edge whose knowledge matches the question clearly better"
QUOTES_DOCUMENTS_NOTE = (
    "The gate escalated, but the question quotes this edge's documents ({run!r}), which its privacy policy keeps "
    "home: it was not sent to the cloud. Shown instead are the context sentences that best support the question."
)
CLOUD_DOWN_NOTE = (
    "The gate escalated but the cloud could not be reached ({why}); shown instead are the context sentences that "
    "best support the question, with their sources."
)


class Escalator(Protocol):
    """Asks the cloud (implemented by the session's transport)."""

    async def global_query(
        self,
        question: str,
        asked_at: str,
        routing_off: frozenset[str] = frozenset(),
        vectors: QueryVectors | None = None,
    ) -> CloudAnswer:
        """The cloud's answer (``routing_off``: parts of its routing off, as ablations; ``vectors``: this edge's
        embeddings of the question, so the cloud and the edges it asks need not compute them again); raises
        CloudUnavailableError when the cloud cannot answer."""
        ...


@runtime_checkable
class EvidenceChecker(Protocol):
    """Asks the cloud whether another edge matches a question clearly better (gate.check_other_edges)."""

    async def stronger_elsewhere(
        self,
        question: str,
        local_evidence: float,
        local_terms: float = 0.0,
        vectors: QueryVectors | None = None,
        local_lexical: float = 0.0,
    ) -> bool:
        """One bit from the cloud; raises CloudUnavailableError when the cloud cannot answer."""
        ...


@dataclass
class EdgeAnswer:
    """The final answer of the full pipeline, with the local trace and the cloud's provenance."""

    answer: str
    decision: str
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
            local_sources=self.local.retrieval.sources,
            cloud=self.cloud,
        )


@dataclass(frozen=True)
class EdgeModels:
    """The models an edge runs: its SLM, its embedder and the tokenizer that budgets its contexts."""

    generator: TextGenerator
    embedder: Embedder
    tokenizer: Tokenizer

    @classmethod
    def from_config(cls, config: EdgeConfig) -> EdgeModels:
        """Load the models ``config`` names (the embedded SmolLM2 and MiniLM by default)."""
        return cls(build_generator(config.slm), build_embedder(config.embedder), WordPieceTokenizer())


class EdgeRuntime:
    """One edge's services, safe to call from the event loop.

    ``knowledge_size`` measures a retrieval reply as it is sent (the transport's encoding) for the audit log.
    """

    def __init__(
        self,
        kb: EdgeKnowledgeBase,
        models: EdgeModels,
        config: EdgeConfig,
        knowledge_size: Callable[[EdgeKnowledge], int],
    ) -> None:
        self.config = config
        self.edge_id = config.edge_id
        self._kb = kb
        self._models = models
        self._knowledge_size = knowledge_size
        kb.bind_embedder(models.embedder.name, models.embedder.dim, config.edge_id)  # wrong data dir: fail now
        self._ingest_service: IngestService | None = None  # made on the first write: a query never needs it
        self._query = QueryService(kb, models.generator, models.embedder, models.tokenizer, config)
        self.data_dir = kb.data_dir
        self.audit = AuditLog(kb.data_dir)
        store = kb.store
        self._guard = LeakGuard(store.chunk_texts, lambda: store.generation, config.privacy.leak_ngram_words)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="edge-kb")
        self._listeners: list[Callable[[], None]] = []
        self._closed = False

    def on_summaries_changed(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` (on the event loop) after a write that may have changed summaries."""
        self._listeners.append(listener)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._worker, fn, *args)

    @property
    def _ingest(self) -> IngestService:
        if self._ingest_service is None:
            m = self._models
            self._ingest_service = IngestService(self._kb, m.generator, m.embedder, m.tokenizer, self.config)
        return self._ingest_service

    async def ingest(
        self, items: Sequence[ReadResult], progress: ProgressSink | None = None, summarise: bool = True
    ) -> IngestReport:
        report = await self._run(lambda: self._ingest.ingest(list(items), progress, summarise))
        await self._after_write()
        return report

    async def delete(self, doc_ids: Sequence[str], progress: ProgressSink | None = None) -> SummaryRefresh | None:
        """Delete ``doc_ids`` (each once: naming one twice is the same as once)."""
        result = await self._run(lambda: self._ingest.delete(list(dict.fromkeys(doc_ids)), progress))
        await self._after_write()
        return result

    async def refresh_summaries(self, progress: ProgressSink | None = None) -> SummaryRefresh:
        """Re-partition and re-summarise what changed (``dgrag edge summarize``)."""
        result = await self._run(lambda: self._ingest.refresh_summaries(progress))
        await self._after_write()
        return result

    async def repair(self) -> SummaryRefresh | None:
        """Finish a summary refresh an earlier process did not (it crashed between a write and its summaries),
        so no summary of a deleted or changed document is published; None when nothing was pending."""
        if not await self._run(self._kb.store.graph_dirty):
            return None
        result = await self._run(self._ingest.refresh_summaries)
        await self._after_write()
        return result

    async def query(
        self,
        question: str,
        mode: str = "full",
        ablations: frozenset[str] = frozenset(),
        escalator: Escalator | None = None,
    ) -> EdgeAnswer:
        if mode not in EDGE_MODES:
            raise InvalidRequestError(f"unknown query mode {mode!r}; use one of {', '.join(EDGE_MODES)}")
        begun = time.perf_counter()
        answer = await self._answer(question, mode, ablations, escalator)
        answer.timings["total"] = time.perf_counter() - begun  # end to end, waiting for the worker included
        return answer

    async def _answer(
        self, question: str, mode: str, ablations: frozenset[str], escalator: Escalator | None
    ) -> EdgeAnswer:
        local_mode = "naive" if mode == "naive" else "local"
        checking = (
            mode == "full"
            and self.config.gate.check_other_edges
            and "gc" not in ablations
            and isinstance(escalator, EvidenceChecker)
        )
        local: LocalAnswer = await self._run(self._query.query, question, local_mode, ablations, checking)
        timings = dict(local.timings)
        out = EdgeAnswer(local.answer, local.decision, local.verified, local.note, local, None, timings)
        if mode != "full" or escalator is None:
            return out
        if local.decision != Decision.ESCALATE and not checking:
            return out
        if forbids_raw_text(self.config.privacy) and (run := await self._run(self._guard.shared_run, question)):
            kind = "global_query" if local.decision == Decision.ESCALATE else "evidence_check"
            self.audit.record("withheld", "cloud", 0, kind=kind, reason="quotes a document")
            if local.decision == Decision.ESCALATE:
                out.note = QUOTES_DOCUMENTS_NOTE.format(run=run)
            else:
                self._unchecked(question, local, out, QUOTES_DOCUMENTS_NOTE.format(run=run))
            return out
        if local.decision != Decision.ESCALATE and not await self._stronger_elsewhere(question, local, escalator, out):
            return out
        started = time.perf_counter()
        shown = question if self.config.privacy.audit_content else question[:200]
        vectors = local.retrieval.vectors
        self.audit.record("global_query", "cloud", len(question.encode()) + _size(vectors), question=shown)
        try:
            routing_off = ablations & set(CLOUD_ROUTING_ABLATIONS)
            cloud = await escalator.global_query(question, self.edge_id, routing_off, vectors=vectors)
        except CloudUnavailableError as exc:
            out.note = CLOUD_DOWN_NOTE.format(why=exc)
            timings["escalation"] = time.perf_counter() - started
            return out
        timings["escalation"] = time.perf_counter() - started
        for phase, seconds in cloud.timings.items():
            timings[f"cloud.{phase}"] = seconds
        note = ""
        if cloud.edges_failed:
            note = f"edges {', '.join(cloud.edges_failed)} did not answer in time; the answer uses the others"
        return EdgeAnswer(cloud.answer, Decision.CLOUD, True, note, local, cloud, timings)

    async def _stronger_elsewhere(
        self, question: str, local: LocalAnswer, escalator: Escalator, out: EdgeAnswer
    ) -> bool:
        """gate.check_other_edges: before a local answer, ask the cloud whether another edge matches clearly better.
        The question leaves the edge for it (audited); a cloud that cannot answer leaves the local answer."""
        if not isinstance(escalator, EvidenceChecker):
            return False
        started = time.perf_counter()
        evidence = local.retrieval.evidence.score
        shown = question if self.config.privacy.audit_content else question[:200]
        vectors = local.retrieval.vectors
        own = local.retrieval.evidence
        terms, lexical = word_scores(self.config.privacy, own.term_coverage, own.lexical)
        self.audit.record("evidence_check", "cloud", len(question.encode()) + 15 + _size(vectors), question=shown,
                          evidence=evidence, terms=terms, lexical=lexical)  # fmt: skip
        try:
            stronger = await escalator.stronger_elsewhere(
                question, evidence, terms, vectors=vectors, local_lexical=lexical
            )
        except CloudUnavailableError as exc:
            stronger = False
            self._unchecked(question, local, out, CLOUD_DOWN_NOTE.format(why=exc))
        out.timings["evidence_check"] = time.perf_counter() - started
        if stronger:
            out.note = STRONGER_ELSEWHERE_NOTE
        return stronger

    def _unchecked(self, question: str, local: LocalAnswer, out: EdgeAnswer, note: str) -> None:
        """The check did not run: the gate let this answer through only because it was to follow, so the usual
        threshold and refusal share apply again (below them: no generation shown, the extract instead)."""
        gate, usual = local.gate, self.config.gate
        if gate is not None and (gate.score < usual.threshold or gate.refusal_share >= usual.refusal_share):
            out.answer, out.verified = extract_answer(question, local.retrieval), False
            out.decision = Decision.ESCALATE
            out.note = note

    async def retrieve(self, question: str) -> EdgeKnowledge:
        """This edge's knowledge about ``question``, as its privacy policy lets it leave (nothing is sent here)."""
        return (await self._outbound(question)).knowledge

    async def _outbound(self, question: str, given: QueryVectors | None = None) -> Outbound:
        def run() -> Outbound:
            retrieval = self._query.retrieve(question, given=given)
            return knowledge_for_cloud(self.edge_id, retrieval, self.config.privacy, self._guard)

        return await self._run(run)

    async def retrieve_for(
        self, question: str, requester: str, given: QueryVectors | None = None
    ) -> EdgeKnowledge:
        """Like :meth:`retrieve`, for a reply that is about to leave the edge: the audit log records it. ``given``:
        the requester's embeddings of the question (used when they come from this edge's model)."""
        outbound = await self._outbound(question, given)
        knowledge = outbound.knowledge
        self.audit.record(
            "retrieval_reply",
            requester,
            self._knowledge_size(knowledge),
            question=question[:200],
            chunks=[f"{c.doc_id}#{c.chunk_id}" for c in knowledge.chunks],
            entities=len(knowledge.entities),
            relations=len(knowledge.relations),
            withheld=outbound.withheld,
            **({"texts": knowledge_texts(knowledge)} if self.config.privacy.audit_content else {}),
            **steered_by(given),
        )
        return knowledge

    async def probe(self, question: str, given: QueryVectors | None = None) -> ProbeScores:
        """How strongly this edge's knowledge matches ``question``: scores only (the cloud's stage-2 routing).
        Refused (PermissionDeniedError) when the privacy policy turns probes off; the transport audits replies."""
        if not self.config.privacy.answer_probes:
            raise PermissionDeniedError(PROBES_REFUSED)

        def run() -> ProbeScores:
            evidence = self._query.retrieve(question, given=given).evidence
            terms, lexical = word_scores(self.config.privacy, evidence.term_coverage, evidence.lexical)
            return ProbeScores(self.edge_id, evidence.score, evidence.name_coverage, evidence.best_entity,
                               evidence.best_chunk, term_coverage=terms, lexical=lexical)  # fmt: skip

        return await self._run(run)

    async def stats(self) -> dict[str, Any]:
        def read() -> dict[str, Any]:
            counts = dataclasses.asdict(self._kb.store.counts())
            return {"edge_id": self.edge_id, **counts, "bytes_on_disk": self._kb.bytes_on_disk()}

        return await self._run(read)

    async def full_sync(self) -> SummaryChanges:
        changes = await self._run(publication.full_sync, self._kb.store)
        return await self._guarded(changes)

    async def delta_after(self, seq: int) -> SummaryChanges | None:
        changes = await self._run(publication.delta_after, self._kb.store, seq)
        return None if changes is None else await self._guarded(changes)

    async def _guarded(self, changes: SummaryChanges) -> SummaryChanges:
        """Summaries as they may leave: under a policy without raw text, none quotes a document."""
        guarded, replaced = await self._run(guard_summaries, changes, self.config.privacy, self._guard)
        if replaced:
            self.audit.record("withheld", "cloud", 0, kind="summary", replaced_by_names=replaced)
        return guarded

    async def mark_published(self, up_to_seq: int) -> None:
        await self._run(self._kb.store.mark_published, up_to_seq)

    async def aclose(self) -> None:
        """Save the indexes and stop the worker; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        await self._run(self._kb.flush)
        self._worker.shutdown(wait=True)

    async def _after_write(self) -> None:
        """Rebuild what retrieval derives from the store now, not on the next probe (which has a deadline): every
        committed write moves the store's generation, summary writes included."""
        await self._run(self._query.warm)
        self._changed()

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()


def _size(vectors: QueryVectors | None) -> int:
    """Bytes of the vectors sent with a question (float32 rows and their texts)."""
    return 0 if vectors is None else vectors.matrix.nbytes + sum(len(t.encode()) for t in vectors.texts)


def steered_by(given: QueryVectors | None) -> dict[str, int]:
    """For the audit: the requester's vectors (not this edge's embedding of the question) chose what was retrieved,
    so the question text alone does not show what the retrieval looked for."""
    return {} if given is None else {"requester_vectors": len(given.texts)}
