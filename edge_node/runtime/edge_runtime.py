"""An edge node at run time, transport-free: its knowledge base, models and services behind async methods.

Every use of the knowledge base and the models runs on one worker thread, in order: llama.cpp and the
SQLite connection are used by one thread at a time, and the event loop stays free for the gRPC API and
the cloud session. The full query path (local answers + gate, then the cloud when the gate escalates and a cloud
is reachable, else the best local answer marked unverified with a note) is edge_node.runtime.full_query's.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from edge_node.ingest.readers import ReadResult
from edge_node.ingest.service import IngestReport, IngestService, ProgressSink, SummaryRefresh
from edge_node.policy.audit import AuditLog
from edge_node.policy.chunk_commitment import CommittedChunks
from edge_node.policy.doc_id_key import doc_id_key
from edge_node.policy.leak_guard import LeakGuard
from edge_node.policy.model_endpoints import check_model_endpoints
from edge_node.policy.outbound import OutboundPolicy
from edge_node.policy.privacy import Outbound
from edge_node.query.answering import QueryService
from edge_node.query.edge_answer import (
    EdgeAnswer,
    Escalator,
)
from edge_node.runtime.full_query import FullQuery
from edge_node.runtime.owner_view import OwnerView, chunk_passages, document_text, owner_view
from edge_node.store import publication
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from shared.config import EdgeConfig
from shared.core.edge_stats import EdgeStats
from shared.core.errors import InvalidRequestError
from shared.core.knowledge import (
    EdgeKnowledge,
    ProbeScores,
    SummaryChanges,
)
from shared.core.model_api import Embedder, TextGenerator, TextSink
from shared.core.query_vectors import QueryVectors
from shared.core.summary_digest import HeldSummary, reconcile
from shared.core.vocabulary import edge_mode
from shared.models.factory import build_embedder, build_generator
from shared.models.tokenizer import Tokenizer, WordPieceTokenizer
from shared.transport.tracing import span

T = TypeVar("T")


@dataclass(frozen=True)
class EdgeModels:
    """The models an edge runs: its SLM, its embedder and the tokenizer that budgets its contexts."""

    generator: TextGenerator
    embedder: Embedder
    tokenizer: Tokenizer

    @classmethod
    def from_config(cls, config: EdgeConfig) -> EdgeModels:
        """Load the models ``config`` names (the embedded SmolLM2 and MiniLM by default); models off this device
        are refused unless the owner allows them (edge_node.policy.model_endpoints)."""
        check_model_endpoints(config)
        return cls(build_generator(config.slm), build_embedder(config.embedder), WordPieceTokenizer())


class EdgeRuntime:
    """One edge's services, safe to call from the event loop. What it hands the transport to send is audited
    there, as it is sent (edge_node.transport.session_outbox); what it sends itself (the escalations) here."""

    def __init__(self, kb: EdgeKnowledgeBase, models: EdgeModels, config: EdgeConfig) -> None:
        self.config = config
        self.edge_id = config.edge_id
        self._kb = kb
        self._models = models
        kb.bind_embedder(models.embedder.name, models.embedder.dim, config.edge_id)  # wrong data dir: fail now
        self._ingest_service: IngestService | None = None  # made on the first write: a query never needs it
        self._query = QueryService(kb, models.generator, models.embedder, config)
        self.data_dir = kb.data_dir
        self.audit = AuditLog(kb.data_dir)
        self.id_key = doc_id_key(kb.data_dir)
        """Keys this edge's opaque document ids (edge_node.policy.doc_id_key)."""
        store = kb.store
        guard = LeakGuard(
            lambda: (text for _, text in store.chunk_texts()), lambda: store.generation, config.privacy.leak_ngram_words
        )
        commitment = CommittedChunks(store, self.id_key, config.privacy.max_chunk_chars)
        self.outbound = OutboundPolicy(config.edge_id, config.privacy, guard, self.id_key, commitment)
        """Every decision about what may leave this edge (asked here, by the session outbox and the cloud link)."""
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="edge-kb")
        self._full = FullQuery(config, self._query, self.outbound, self.audit, self._run)
        self._listeners: list[Callable[[], None]] = []
        self._closed = False

    def on_summaries_changed(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` (on the event loop) after a write that may have changed summaries."""
        self._listeners.append(listener)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        run = functools.partial(contextvars.copy_context().run, fn, *args)  # the caller's trace goes along
        return await asyncio.get_running_loop().run_in_executor(self._worker, run)

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
        escalator: Escalator | None = None,
        on_text: TextSink | None = None,
    ) -> EdgeAnswer:
        """The answer to ``question`` (``on_text``: given the cloud model's draft as it comes, when escalated)."""
        try:
            known = edge_mode(mode)
        except ValueError as exc:
            raise InvalidRequestError(str(exc)) from exc
        begun = time.perf_counter()
        first: list[float] = []

        def relay(piece: str) -> None:
            if not first:
                first.append(time.perf_counter() - begun)
            if on_text is not None:
                on_text(piece)

        with span("edge.query", edge=self.edge_id, mode=known) as traced:
            answer = await self._full.answer(question, known, escalator, relay if on_text else None)
            traced.set_attribute("decision", str(answer.decision))
        answer.timings["total"] = time.perf_counter() - begun  # end to end, waiting for the worker included
        if first:  # what the asker waited for the cloud's draft to begin
            answer.timings["first_draft"] = first[0]
        return answer

    async def retrieve(self, question: str) -> EdgeKnowledge:
        """This edge's knowledge about ``question``, as its privacy policy lets it leave (nothing is sent here)."""
        return (await self._outbound(question)).knowledge

    async def _outbound(self, question: str, given: QueryVectors | None = None) -> Outbound:
        return await self._run(lambda: self.outbound.knowledge(self._query.retrieve(question, given=given)))

    async def outbound_for(self, question: str, given: QueryVectors | None = None) -> Outbound:
        """This edge's knowledge about ``question`` as its privacy policy lets it leave, for a reply the transport
        sends and audits (edge_node.transport.session_outbox). ``given``: the requester's embeddings of the
        question (used when they come from this edge's model)."""
        return await self._outbound(question, given)

    async def probe(self, question: str, given: QueryVectors | None = None) -> ProbeScores:
        """How strongly this edge's knowledge matches ``question``: scores only (the cloud's stage-2 routing).
        Refused (PermissionDeniedError) when the privacy policy turns probes off; the transport audits replies."""
        self.outbound.admit_probe()
        return await self._run(lambda: self.outbound.probe(self._query.retrieve(question, given=given).evidence))

    async def stats(self) -> EdgeStats:
        """What this edge holds (without its document ids)."""
        return await self._run(self._kb.stats, False)

    async def owner_view(self) -> OwnerView:
        """The documents and published summaries the device owner's page shows."""
        return await self._run(owner_view, self._kb)

    async def passages(self, chunk_ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(document id, text) of this edge's own chunks among ``chunk_ids``."""
        return await self._run(chunk_passages, self._kb, list(chunk_ids))

    async def document_text(self, doc_id: str) -> str | None:
        """The stored text of one of this edge's documents (None when it holds none by that id)."""
        return await self._run(document_text, self._kb, doc_id)

    async def full_sync(self) -> SummaryChanges:
        changes = await self._run(publication.full_sync, self._kb.store)
        return await self._guarded(changes)

    async def resync(self, held: Sequence[HeldSummary] | None) -> SummaryChanges:
        """What to send the cloud on (re)connecting: the whole set, or, where the cloud still ``held`` a view of
        this edge, only what differs from it (shared.core.summary_digest)."""
        full = await self.full_sync()
        if held is None:
            return full
        return reconcile(full, held) or full

    async def delta_after(self, seq: int, root: bytes = b"") -> SummaryChanges | None:
        """The summary changes after publication-log position ``seq``; an empty delta when there are none but the
        chunk commitment's root differs from ``root`` (the last one sent); None when nothing changed."""
        changes = await self._run(publication.delta_after, self._kb.store, seq)
        if changes is None:
            if await self._run(self.outbound.chunk_root) == root:
                return None
            changes = SummaryChanges((), (), seq)
        return await self._guarded(changes)

    async def _guarded(self, changes: SummaryChanges) -> SummaryChanges:
        """Summaries as they may leave (under a policy without raw text, none quotes a document), with the root of
        the chunk commitment as it stands."""
        guarded, replaced = await self._run(self.outbound.summaries, changes)
        if replaced:
            self.audit.record("withheld", "cloud", 0, kind="summary", replaced_by_names=replaced)
        return dataclasses.replace(guarded, chunk_root=await self._run(self.outbound.chunk_root))

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
