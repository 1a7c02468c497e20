"""Local retrieval (DESIGN step 4 without generation): question -> keywords -> matching entities and
relations -> graph neighbours -> their chunks, plus direct chunk vector search -> a token-budgeted context.

Callable on its own: the cloud asks edges for exactly this.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edge_node.store.graph import KnowledgeGraph
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from shared import prompts
from shared.candidates import find_candidates
from shared.config import RetrievalConfig
from shared.models.base import Embedder, GenerationRequest, TextGenerator
from shared.text import normalise_name, occurs_in, sentences, truncate_chars
from shared.tokenizer import Tokenizer

_WORD = re.compile(r"[A-Za-z0-9][\w'-]*")
_QUOTED = re.compile(r"(?<!\w)[\"'‘“]([^\"'’”]{3,60})[\"'’”](?!\w)")
_COMMON = {
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "does",
    "did",
    "do",
    "is",
    "are",
    "was",
    "were",
    "the",
    "and",
    "that",
    "this",
    "these",
    "those",
    "with",
    "from",
    "about",
    "article",
    "articles",
    "report",
    "reported",
    "according",
    "between",
    "both",
    "after",
    "before",
    "while",
    "their",
    "there",
    "have",
    "has",
    "had",
    "been",
    "being",
    "into",
    "than",
    "then",
    "them",
    "they",
    "would",
    "could",
    "should",
    "also",
    "more",
    "most",
    "same",
    "other",
    "such",
    "only",
    "over",
    "under",
    "published",
    "news",
    "suggest",
    "mentioned",
    "mention",
    "yes",
}


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
    graph_score: float
    tokens: int


@dataclass(frozen=True)
class Evidence:
    """Model-free strength of the match between the question and this edge's knowledge, in [0, 1]."""

    name_coverage: float
    """Share of the question's names that are entities here (exactly, or by a close embedding)."""
    best_entity: float
    best_chunk: float
    score: float


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

    @property
    def sources(self) -> list[dict[str, Any]]:
        return [{"doc_id": c.doc_id, "chunk_id": c.id, "score": round(c.score, 4)} for c in self.chunks]


def question_terms(question: str) -> tuple[list[str], list[str]]:
    """Model-free (names, keywords) of a question: names are capitalised spans and quoted titles."""
    names = [c.name for c in find_candidates(question, limit=12)]
    names += [m.group(1).strip() for m in _QUOTED.finditer(question) if m.group(1).strip() not in names]
    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(normalise_name(name), name)
    names = list(by_key.values())
    words = [w.strip("'’") for w in _WORD.findall(question) if len(w) >= 4 and w.casefold() not in _COMMON]
    return names, list(dict.fromkeys(names + words))


def excerpt(text: str, terms: list[str], max_chars: int) -> str:
    """``text`` itself when it fits in ``max_chars``; otherwise its sentences that mention the most question
    terms, kept in text order, within ``max_chars`` (so more sources fit in a small model's context)."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    parts = sentences(text)
    wanted = [t for t in terms if t]
    ranked = sorted(range(len(parts)), key=lambda i: (-sum(occurs_in(t, parts[i]) for t in wanted), i))
    keep: list[int] = []
    used = 0
    for i in ranked:
        if used + len(parts[i]) + 1 <= max_chars:
            keep.append(i)
            used += len(parts[i]) + 1
    if not keep:
        return truncate_chars(parts[ranked[0]] if parts else text, max_chars)
    return " ".join(parts[i].strip() for i in sorted(keep))


class Retriever:
    """Runs local retrieval against one knowledge base."""

    def __init__(
        self,
        kb: EdgeKnowledgeBase,
        embedder: Embedder,
        tokenizer: Tokenizer,
        generator: TextGenerator | None,
        config: RetrievalConfig,
    ) -> None:
        self._kb = kb
        self._embedder = embedder
        self._tokenizer = tokenizer
        self._generator = generator
        self._config = config
        self._graph: KnowledgeGraph | None = None

    def graph(self) -> KnowledgeGraph:
        if self._graph is None or self._graph.generation != self._kb.store.generation:
            self._graph = KnowledgeGraph.load(self._kb.store)
        return self._graph

    def slm_keywords(self, question: str) -> list[str]:
        """Keywords the SLM picks from the question (constrained JSON); only words of the question are kept."""
        if self._generator is None:
            return []
        schema = {
            "type": "object",
            "properties": {"keywords": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 6}},
            "required": ["keywords"],
        }
        request = GenerationRequest(
            prompt=prompts.QUESTION_KEYWORDS.format(question=question),
            system=prompts.EXTRACTION_SYSTEM,
            json_schema=schema,
            max_tokens=80,
        )
        try:
            data = json.loads(self._generator.generate(request).texts[0])
        except json.JSONDecodeError:
            return []
        words = data.get("keywords", []) if isinstance(data, dict) else []
        return [w.strip() for w in words if isinstance(w, str) and w.strip() and occurs_in(w.strip(), question)]

    def retrieve(self, question: str, use_graph: bool = True, slm_keywords: list[str] | None = None) -> Retrieval:
        """Entities, relations and chunks for ``question`` and the context built from them."""
        cfg = self._config
        started = time.perf_counter()
        names, keywords = question_terms(question)
        keywording = time.perf_counter() - started
        graph = self.graph()
        for word in slm_keywords or []:
            if word not in keywords:
                keywords.append(word)
        # Only the question and its names are embedded (other keywords match entities by exact name):
        # embedding is most of retrieval's time on a CPU.
        embedded_names = [w for w in keywords if w in names]
        vectors = self._embedder.embed([question, *embedded_names])
        qv = vectors[0]
        spaces = self._kb.vectors

        entity_scores: dict[int, float] = {}
        exact: set[int] = set()
        for word in keywords:
            eid = graph.entity_by_key.get(normalise_name(word))
            if eid is not None:
                exact.add(eid)
                entity_scores[eid] = 1.0
        for hit in spaces.entities.search(qv, cfg.top_entities):
            entity_scores[hit.id] = max(entity_scores.get(hit.id, 0.0), hit.score)
        name_vectors = {w: vectors[1 + i] for i, w in enumerate(embedded_names)}
        matched_names = 0
        for name, vec in name_vectors.items():
            hits = spaces.entities.search(vec, 3)
            best = hits[0].score if hits else 0.0
            found = graph.entity_by_key.get(normalise_name(name)) is not None or best >= cfg.name_match_cosine
            matched_names += int(found)
            for hit in hits:
                entity_scores[hit.id] = max(entity_scores.get(hit.id, 0.0), hit.score)
        relation_hits = spaces.relations.search(qv, cfg.top_relations)
        chunk_hits = {h.id: h.score for h in spaces.chunks.search(qv, cfg.top_chunks * 2)}

        graph_scores: dict[int, float] = defaultdict(float)
        seeds = {e: s for e, s in entity_scores.items() if s >= cfg.min_entity_score and e in graph.entities}
        if use_graph and seeds:
            expanded = dict(seeds)
            # Neighbours adjacent to two or more matched entities lie on a path between them: keep them.
            reach: dict[int, list[float]] = defaultdict(list)
            for eid, score in seeds.items():
                for nb in graph.neighbours.get(eid, {}):
                    if nb not in seeds:
                        reach[nb].append(score)
            for nb, scores in reach.items():
                expanded[nb] = (sum(scores) / len(scores)) * (0.8 if len(scores) >= 2 else 0.4)
            for rel in relation_hits:
                r = graph.relations.get(rel.id)
                if r is not None:
                    for eid in (r.src_id, r.tgt_id):
                        expanded[eid] = max(expanded.get(eid, 0.0), rel.score * 0.8)
            for eid, score in expanded.items():
                for cid in graph.entity_chunks.get(eid, ()):
                    graph_scores[cid] += score
            for cid in list(graph_scores):
                linked_seeds = len(graph.chunk_entities.get(cid, set()) & seeds.keys())
                graph_scores[cid] = (1 - math.exp(-graph_scores[cid])) + 0.15 * max(0, linked_seeds - 1)

        candidates = set(chunk_hits) | set(sorted(graph_scores, key=lambda c: -graph_scores[c])[: cfg.top_chunks * 3])
        scored: list[tuple[float, float, float, int]] = []
        for cid in candidates:
            vscore = chunk_hits.get(cid)
            if vscore is None:
                vscore = float(np.dot(spaces.chunks.vector(cid), qv))
            gscore = graph_scores.get(cid, 0.0)
            total = vscore
            if use_graph:
                total = cfg.vector_weight * vscore + (1 - cfg.vector_weight) * min(gscore, 1.0)
            scored.append((total, vscore, gscore, cid))
        scored.sort(key=lambda t: (-t[0], t[3]))
        rows = self._kb.store.chunks_by_id([cid for *_, cid in scored[: cfg.top_chunks * 2]])
        chunks: list[ScoredChunk] = []
        used = 0
        for total, vscore, gscore, cid in scored:
            row = rows.get(cid)
            if row is None or len(chunks) >= cfg.top_chunks:
                continue
            text = excerpt(row.text, keywords, cfg.excerpt_chars)
            tokens = row.tokens if text == row.text else self._tokenizer.count(text)
            if used + tokens > cfg.context_tokens and chunks:
                continue
            used += tokens
            chunks.append(ScoredChunk(cid, row.doc_id, text, total, vscore, gscore, tokens))
        context = "\n\n".join(f"[{i + 1}] {c.text}" for i, c in enumerate(chunks))

        entities = [
            ScoredEntity(
                e, graph.entities[e].name, graph.entities[e].type, graph.entities[e].description, s, e in exact
            )
            for e, s in sorted(entity_scores.items(), key=lambda t: -t[1])[: cfg.top_entities]
            if e in graph.entities
        ]
        relations = []
        for hit in relation_hits:
            r = graph.relations.get(hit.id)
            if r is not None:
                src, tgt = graph.entities[r.src_id].name, graph.entities[r.tgt_id].name
                relations.append(ScoredRelation(r.id, src, tgt, r.description, hit.score))
        coverage = matched_names / len(name_vectors) if name_vectors else 0.0
        best_entity = max(entity_scores.values(), default=0.0)
        best_chunk = max((c.vector_score for c in chunks), default=0.0)
        evidence_score = (coverage + max(best_chunk, 0.0)) / 2 if name_vectors else max(best_chunk, 0.0)
        evidence = Evidence(coverage, best_entity, best_chunk, evidence_score)
        timings = {"keywording": keywording, "retrieval": time.perf_counter() - started - keywording}
        return Retrieval(question, keywords, names, entities, relations, chunks, context, used, evidence, timings)
