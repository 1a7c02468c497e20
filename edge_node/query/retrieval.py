"""Local retrieval (the local query path without generation): question -> keywords -> matching entities and
relations, and the chunks ranked by hybrid search -> a token-budgeted context.

A chunk's rank fuses (reciprocal rank fusion) the chunks nearest the question's vector with the chunks BM25
ranks highest for its words (shared.core.lexical): the words find what an embedding misses in technical text (an
option, a path, a command). The knowledge graph gives the question's entities and relations, sent with the
chunks; a walk of it no longer ranks chunks, as it placed the chunk holding the answer lower on six corpora.

Callable on its own: the cloud asks edges for exactly this.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edge_node.store.graph import KnowledgeGraph
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from shared.config import RetrievalConfig
from shared.core.candidates import question_terms, term_share
from shared.core.lexical import LexicalIndex, fuse_ranks
from shared.core.model_api import Embedder
from shared.core.query_vectors import QueryVectors, embed_reusing, to_send
from shared.core.text import normalise_name
from shared.core.trace import Source


@dataclass(frozen=True)
class ScoredEntity:
    id: int
    name: str
    type: str
    description: str
    score: float
    exact: bool


@dataclass(frozen=True)
class ScoredRelation:
    id: int
    source: str
    target: str
    description: str
    score: float


@dataclass(frozen=True)
class ScoredChunk:
    id: int
    doc_id: str
    text: str
    score: float
    vector_score: float
    tokens: int


@dataclass(frozen=True)
class Evidence:
    """Model-free strength of the match between the question and this edge's knowledge, in [0, 1]."""

    name_coverage: float
    """Share of the question's names that are entities here (exactly, or by a close embedding)."""
    best_entity: float
    best_chunk: float
    score: float
    term_coverage: float = 0.0
    """The best share of the question's names and keywords that one retrieved chunk contains (routing probes
    use it; the gate's score does not)."""
    lexical: float = 0.0
    """The best IDF-weighted share of the question's words that one chunk of the whole store holds
    (shared.core.lexical; routing probes and the evidence check use it, the gate's score does not)."""
    signals: dict[str, float] = field(default_factory=dict)
    """Further routing signals by name, each in [0, 1], sent in probe replies (ProbeScores.signals) where the
    policy lets the scores above leave; the cloud weighs them by ``query.probe_signal_weights``."""


@dataclass
class Retrieval:
    """What local retrieval found for one question."""

    question: str
    keywords: list[str]
    names: list[str]
    entities: list[ScoredEntity]
    relations: list[ScoredRelation]
    chunks: list[ScoredChunk]
    context: str
    context_tokens: int
    evidence: Evidence
    timings: dict[str, float] = field(default_factory=dict)
    vectors: QueryVectors | None = None
    """The embeddings of the question and its names that this retrieval used (sent on with an escalation)."""

    @property
    def sources(self) -> list[Source]:
        return [Source(c.doc_id, c.id, round(c.score, 4)) for c in self.chunks]


class Retriever:
    """Runs local retrieval against one knowledge base."""

    def __init__(
        self,
        kb: EdgeKnowledgeBase,
        embedder: Embedder,
        config: RetrievalConfig,
    ) -> None:
        self._kb = kb
        self._embedder = embedder
        self._config = config
        self._graph: KnowledgeGraph | None = None
        self._lexical: LexicalIndex | None = None

    def graph(self) -> KnowledgeGraph:
        if self._graph is None or self._graph.generation != self._kb.store.generation:
            self._graph = KnowledgeGraph.load(self._kb.store)
        return self._graph

    def lexical(self) -> LexicalIndex:
        """Which chunks hold which words, rebuilt when the store changes. Called on the knowledge base's one worker
        thread (as all retrieval is), and swapped in by one assignment."""
        store = self._kb.store
        if self._lexical is None or self._lexical.generation != store.generation:
            self._lexical = LexicalIndex(store.chunk_texts(), store.generation)
        return self._lexical

    def retrieve(
        self,
        question: str,
        given: QueryVectors | None = None,
    ) -> Retrieval:
        """Entities, relations and chunks for ``question`` and the context built from them; ``given``: vectors
        already computed for the question (or its names) by the same model, which are not computed again."""
        started = time.perf_counter()
        names, keywords = question_terms(question)
        keywording = time.perf_counter() - started
        graph = self.graph()
        found = self._match(question, names, keywords, graph, given)
        scored = self._rank_chunks(question, found)
        chunks, used = self._pack(scored)
        context = "\n\n".join(f"[{i + 1}] {c.text}" for i, c in enumerate(chunks))
        entities, relations = self._described(found, graph)
        evidence = _evidence(found, chunks, keywords, self.lexical().coverage(question))
        timings = {"keywording": keywording, "retrieval": time.perf_counter() - started - keywording}
        return Retrieval(
            question, keywords, names, entities, relations, chunks, context, used, evidence, timings, found.vectors
        )

    def _match(
        self, question: str, names: list[str], keywords: list[str], graph: KnowledgeGraph, given: QueryVectors | None
    ) -> _Matches:
        """The entities, relations and chunks the question's vector, names and keywords reach."""
        cfg = self._config
        # Only the question and its names are embedded (other keywords match entities by exact name):
        # embedding is most of retrieval's time on a CPU.
        embedded_names = [w for w in keywords if w in names]
        texts = [question, *embedded_names]
        vectors = embed_reusing(self._embedder, texts, given)
        qv = vectors[0]
        spaces = self._kb.vectors
        found = _Matches(qv, len(embedded_names), to_send(self._embedder, texts, vectors))
        for word in keywords:
            eid = graph.entity_by_key.get(normalise_name(word))
            if eid is not None:
                found.exact.add(eid)
                found.entity_scores[eid] = EXACT_NAME_SCORE
        for hit in spaces.entities.search(qv, cfg.top_entities):
            found.raise_entity(hit.id, hit.score)
        for i, name in enumerate(embedded_names):
            hits = spaces.entities.search(vectors[1 + i], ENTITIES_PER_NAME)
            best = hits[0].score if hits else 0.0
            known = graph.entity_by_key.get(normalise_name(name)) is not None or best >= cfg.name_match_cosine
            found.matched_names += int(known)
            for hit in hits:
                found.raise_entity(hit.id, hit.score)
        found.relation_hits = spaces.relations.search(qv, cfg.top_relations)
        found.chunk_hits = {h.id: h.score for h in spaces.chunks.search(qv, cfg.top_chunks * CANDIDATES_FACTOR)}
        return found

    def _rank_chunks(self, question: str, found: _Matches) -> list[tuple[float, float, int]]:
        """(fused score, vector score, chunk id) of every candidate chunk, best first. The fused score is the
        chunk's reciprocal rank fusion over vector search and BM25, scaled so that first in both is 1."""
        limit = self._config.top_chunks * CANDIDATES_FACTOR
        by_vector = sorted(found.chunk_hits, key=lambda c: (-found.chunk_hits[c], c))
        fused = fuse_ranks([by_vector, [cid for cid, _ in self.lexical().ranked(question, limit)]])
        scored: list[tuple[float, float, int]] = []
        for cid, total in fused.items():
            vscore = found.chunk_hits.get(cid)
            if vscore is None:
                vscore = float(np.dot(self._kb.vectors.chunks.vector(cid), found.question_vector))
            scored.append((total, vscore, cid))
        scored.sort(key=lambda t: (-t[0], t[2]))
        return scored

    def _pack(self, scored: list[tuple[float, float, int]]) -> tuple[list[ScoredChunk], int]:
        """The best chunks, whole, that fit the context's token budget, and the tokens they use."""
        cfg = self._config
        rows = self._kb.store.chunks_by_id([cid for *_, cid in scored[: cfg.top_chunks * CANDIDATES_FACTOR]])
        chunks: list[ScoredChunk] = []
        used = 0
        for total, vscore, cid in scored:
            row = rows.get(cid)
            if row is None or len(chunks) >= cfg.top_chunks:
                continue
            if used + row.tokens > cfg.context_tokens and chunks:
                continue
            used += row.tokens
            chunks.append(ScoredChunk(cid, row.doc_id, row.text, total, vscore, row.tokens))
        return chunks, used

    def _described(self, found: _Matches, graph: KnowledgeGraph) -> tuple[list[ScoredEntity], list[ScoredRelation]]:
        """The matched entities (best first) and relations, with their names and descriptions."""
        top = sorted(found.entity_scores.items(), key=lambda t: -t[1])[: self._config.top_entities]
        entities = [
            ScoredEntity(
                e, graph.entities[e].name, graph.entities[e].type, graph.entities[e].description, s, e in found.exact
            )
            for e, s in top
            if e in graph.entities
        ]
        relations = []
        for hit in found.relation_hits:
            r = graph.relations.get(hit.id)
            if r is not None:
                src, tgt = graph.entities[r.src_id].name, graph.entities[r.tgt_id].name
                relations.append(ScoredRelation(r.id, src, tgt, r.description, hit.score))
        return entities, relations


EXACT_NAME_SCORE = 1.0
"""An entity named exactly in the question scores as a perfect match."""
ENTITIES_PER_NAME = 3
"""Nearest entities looked up for each name in the question."""
CANDIDATES_FACTOR = 5
"""Chunks taken from each ranked list (vector search, BM25): this many times ``top_chunks``."""


@dataclass
class _Matches:
    """What one question matched in the vector indexes and the graph."""

    question_vector: Any
    names_embedded: int
    vectors: QueryVectors | None
    entity_scores: dict[int, float] = field(default_factory=dict)
    exact: set[int] = field(default_factory=set)
    matched_names: int = 0
    relation_hits: list[Any] = field(default_factory=list)
    chunk_hits: dict[int, float] = field(default_factory=dict)

    def raise_entity(self, eid: int, score: float) -> None:
        self.entity_scores[eid] = max(self.entity_scores.get(eid, 0.0), score)


def _evidence(found: _Matches, chunks: list[ScoredChunk], terms: list[str], lexical: float) -> Evidence:
    """How strongly the knowledge base supports the question (a gate signal): the share of its names that
    matched an entity, with the best chunk's similarity; and, for routing, the best term coverage of a retrieved
    chunk and the ``lexical`` coverage over the whole store."""
    coverage = found.matched_names / found.names_embedded if found.names_embedded else 0.0
    best_entity = max(found.entity_scores.values(), default=0.0)
    best_chunk = max((c.vector_score for c in chunks), default=0.0)
    score = (coverage + max(best_chunk, 0.0)) / 2 if found.names_embedded else max(best_chunk, 0.0)
    return Evidence(coverage, best_entity, best_chunk, score, term_coverage(terms, chunks), lexical)


def term_coverage(terms: list[str], chunks: list[ScoredChunk]) -> float:
    """The largest share of ``terms`` (whole words, any case) that one of ``chunks`` contains; 0 without terms."""
    return term_share(terms, [c.text for c in chunks])
