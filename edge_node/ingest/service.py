"""Knowledge construction at an edge: ingest documents, delete them, and keep the
partition and its summaries up to date. Transport-free: the edge's runtime calls it.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from edge_node.ingest.chunking import chunk_text
from edge_node.ingest.extraction import ChunkExtraction, Extractor
from edge_node.ingest.merge_policy import delete_document, write_document
from edge_node.ingest.partition import partition, project_entity_graph
from edge_node.ingest.readers import MAX_DOC_ID_CHARS, RawDocument, ReadResult, valid_doc_id
from edge_node.ingest.summaries import plan, render, summarise
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from edge_node.store.records import ChunkInput, DocumentInput, SubgraphRecord
from shared.config import EdgeConfig
from shared.core.errors import DocumentNotFoundError, InputDocumentError, NoReaderError
from shared.core.model_api import Embedder, TextGenerator
from shared.core.text import escaped
from shared.models.cache import CachingGenerator
from shared.models.tokenizer import Tokenizer

FLUSH_EVERY_S = 30.0
"""Longest time between saves of the faiss files during a long ingest."""


class ProgressSink:
    """Receives progress; the CLI draws bars, tests and services ignore it."""

    def start(self, stage: str, total: int) -> None:
        """A stage (``documents``, ``summaries``) begins with ``total`` steps."""

    def advance(self, stage: str, note: str = "") -> None:
        """One step of ``stage`` is done."""

    def done(self, stage: str) -> None:
        """``stage`` is finished."""


@dataclass
class IngestReport:
    """What one ingest call did."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    """Files of the folders given that no reader takes (by their type), left as they are."""
    renamed: list[tuple[str, str]] = field(default_factory=list)
    """(earlier id, new id) of documents stored under the absolute path earlier versions used as their id."""
    chunks: int = 0
    entities_slm: int = 0
    entities_heuristic: int = 0
    relations_cooccurrence: int = 0
    chunks_without_entities: int = 0
    extraction_seconds: float = 0.0
    summary: SummaryRefresh | None = None


@dataclass(frozen=True)
class SummaryRefresh:
    """What a partition + summary refresh changed."""

    communities: int
    upserted: tuple[str, ...]
    deleted: tuple[str, ...]
    unchanged: int
    seconds: float


def content_hash(doc: RawDocument) -> str:
    """Identity of a document version: its title and text."""
    return hashlib.sha256((doc.title + "\x00" + doc.text).encode("utf-8")).hexdigest()


class IngestService:
    """Builds and maintains one edge's knowledge base with injected models."""

    def __init__(
        self,
        kb: EdgeKnowledgeBase,
        generator: TextGenerator,
        embedder: Embedder,
        tokenizer: Tokenizer,
        config: EdgeConfig,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._kb = kb
        self._generator = CachingGenerator(generator, kb.store)
        self._embedder = embedder
        self._tokenizer = tokenizer
        self._config = config
        self._clock = clock
        self._extractor = Extractor(
            self._generator, config.extraction, kb.store.name_types(), kb.store.remember_name_types
        )
        kb.bind_embedder(embedder.name, embedder.dim, config.edge_id)

    def ingest(
        self, items: Iterable[ReadResult], progress: ProgressSink | None = None, summarise_after: bool = True
    ) -> IngestReport:
        """Store every readable document (skipping unchanged ones) and refresh summaries; errors are reported."""
        sink = progress or ProgressSink()
        report = IngestReport()
        batch = list(items)
        sink.start("documents", len(batch))
        last_flush = self._clock()
        for item in batch:
            if isinstance(item, NoReaderError):
                report.unread.append(item.path)
                sink.advance("documents", f"no reader for {item.path}")
                continue
            if isinstance(item, InputDocumentError):
                report.failed.append((item.path, item.reason))
                sink.advance("documents", f"failed {item.path}")
                continue
            try:
                outcome = self._ingest_one(item, report)
            except InputDocumentError as exc:
                report.failed.append((exc.path, exc.reason))
                outcome = "failed"
            else:
                outcomes = {"added": report.added, "updated": report.updated, "unchanged": report.unchanged}
                outcomes[outcome].append(item.doc_id)
            sink.advance("documents", f"{outcome} {item.doc_id}")
            if self._clock() - last_flush > FLUSH_EVERY_S:
                self._kb.flush()
                last_flush = self._clock()
        sink.done("documents")
        if summarise_after and self._kb.store.graph_dirty():
            report.summary = self.refresh_summaries(sink)
        self._kb.flush()
        return report

    def _ingest_one(self, doc: RawDocument, report: IngestReport) -> str:
        if not valid_doc_id(doc.doc_id):  # every ingest path comes here: folders, bundles, the API's inline texts
            shown = escaped(doc.doc_id[:60])
            raise InputDocumentError(
                doc.source or shown, f"its id {shown!r} must be 1-{MAX_DOC_ID_CHARS} printable characters"
            )
        digest = content_hash(doc)
        old = self._kb.store.document_hash(doc.doc_id)
        if old is None and self._adopt_former_id(doc):
            report.renamed.append((str(doc.former_id), doc.doc_id))
            old = self._kb.store.document_hash(doc.doc_id)
        if old == digest:
            return "unchanged"
        cfg = self._config
        pieces = chunk_text(doc.text, self._tokenizer, cfg.chunking.chunk_tokens, cfg.chunking.overlap_tokens)
        if not pieces:
            raise InputDocumentError(doc.source, "has no text to index")
        vectors = self._embedder.embed([p.text for p in pieces])
        start = self._clock()
        extractions = [self._extractor.extract(p.text) for p in pieces]
        report.extraction_seconds += self._clock() - start
        _count(report, extractions)
        chunks = tuple(
            ChunkInput(
                p.index,
                p.start,
                p.end,
                p.tokens,
                p.text,
                vectors[i],
                extractions[i].entities,
                extractions[i].relations,
            )
            for i, p in enumerate(pieces)
        )
        record = DocumentInput(doc.doc_id, doc.title, doc.source, digest, len(doc.text), chunks)
        delta = write_document(self._kb.store, record, self._embedder.embed, cfg.extraction.max_description_chars)
        self._kb.apply(delta)
        return "added" if old is None else "updated"

    def _adopt_former_id(self, doc: RawDocument) -> bool:
        """Rename the document stored under the id an earlier version gave this file, if there is one."""
        store = self._kb.store
        if doc.former_id is None or doc.former_id == doc.doc_id or store.document_hash(doc.former_id) is None:
            return False
        with store.transaction():
            return store.rename_document(doc.former_id, doc.doc_id)

    def delete(self, doc_ids: Sequence[str], progress: ProgressSink | None = None) -> SummaryRefresh | None:
        """Remove documents (raises DocumentNotFoundError for an unknown id, before changing anything)."""
        store = self._kb.store
        doc_ids = list(dict.fromkeys(doc_ids))  # naming one twice deletes it once
        known = set(store.document_ids())
        missing = [d for d in doc_ids if d not in known]
        if missing:
            raise DocumentNotFoundError(
                f"no document(s) {', '.join(map(repr, missing))} in this edge; `dgrag edge stats --json` lists ids"
            )
        for doc_id in doc_ids:
            delta = delete_document(store, doc_id, self._embedder.embed, self._config.extraction.max_description_chars)
            self._kb.apply(delta)
        result = self.refresh_summaries(progress or ProgressSink())
        self._kb.flush()
        return result

    def refresh_summaries(self, progress: ProgressSink | None = None) -> SummaryRefresh:
        """Re-partition the entity graph and re-summarise only the subgraphs whose content changed."""
        sink = progress or ProgressSink()
        start = self._clock()
        store = self._kb.store
        entity_rows = {e.id: e for e in store.entities()}
        relation_rows = store.relations()
        chunk_members: dict[int, list[int]] = defaultdict(list)
        for eid, cid in store.entity_chunk_links():
            chunk_members[cid].append(eid)
        edges = project_entity_graph(
            list(entity_rows),
            ((r.src_id, r.tgt_id, r.weight) for r in relation_rows),
            chunk_members,
            self._config.partition.cochunk_weight,
        )
        previous = store.subgraphs()
        key_to_id = {e.key: e.id for e in entity_rows.values()}
        prev_membership = {key_to_id[k]: i for i, sg in enumerate(previous) for k in sg.members if k in key_to_id}
        communities = partition(list(entity_rows), edges, self._config.partition, prev_membership)
        rendered = [render(c, entity_rows, relation_rows, self._config.summary) for c in communities]
        decided = plan(self._config.edge_id, rendered, previous, store.max_tombstone_version)
        sink.start("summaries", len(decided.changed))
        records: list[SubgraphRecord] = []
        for sid, version, sub in decided.changed:
            text = summarise(self._generator, sub, self._config.summary)
            records.append(
                SubgraphRecord(
                    sid,
                    version,
                    sub.fingerprint,
                    sub.members,
                    text,
                    sub.top_entities,
                    sub.n_entities,
                    sub.n_relations,
                    time.time(),
                )
            )
            sink.advance("summaries", sid)
        sink.done("summaries")
        store.save_subgraphs(records, decided.deleted)
        return SummaryRefresh(
            communities=len(communities),
            upserted=tuple(r.id for r in records),
            deleted=tuple(sid for sid, _ in decided.deleted),
            unchanged=len(decided.keep),
            seconds=self._clock() - start,
        )


def _count(report: IngestReport, extractions: list[ChunkExtraction]) -> None:
    for ex in extractions:
        report.chunks += 1
        report.entities_slm += ex.stats.slm_entities_kept
        report.entities_heuristic += ex.stats.heuristic_entities
        report.relations_cooccurrence += ex.stats.cooccurrence_relations
        report.chunks_without_entities += int(not ex.entities)
