"""What the cloud accepts of an edge's retrieval reply (transport-free): provenance and sizes are the cloud's.

An edge's reply says which edge it is from, how well each piece scored and how many tokens each chunk costs.
None of that is trusted: the edge id is the session's, scores are clamped to finite values in range,
texts and counts are capped, and token counts are left for the cloud's tokenizer to compute. An edge can
thus neither pass its chunks off as another edge's, nor rank itself first beyond range, nor overflow the
cloud LLM's context with a huge chunk declared as one token.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping

from shared.core.knowledge import EdgeKnowledge, KnowledgeChunk, KnowledgeEntity, KnowledgeRelation, ProbeScores

MAX_ITEMS = 64
"""Most chunks, entities and relations each taken from one reply."""
MAX_CHUNK_CHARS = 4000
"""Longest chunk text kept (an edge's own cap, privacy.max_chunk_chars, is 2,000 by default)."""
MAX_DESCRIPTION_CHARS = 1000
MAX_NAME_CHARS = 200


def accept_knowledge(edge_id: str, knowledge: EdgeKnowledge) -> EdgeKnowledge:
    """``knowledge`` as the cloud uses it: from ``edge_id`` (the session's), bounded, tokens uncounted."""
    chunks = tuple(
        KnowledgeChunk(c.doc_id[:MAX_NAME_CHARS], c.chunk_id, c.text[:MAX_CHUNK_CHARS], _score(c.score), 0, c.proof)
        for c in knowledge.chunks[:MAX_ITEMS]
    )
    entities = tuple(
        KnowledgeEntity(
            e.name[:MAX_NAME_CHARS], e.type[:MAX_NAME_CHARS], e.description[:MAX_DESCRIPTION_CHARS], _score(e.score)
        )
        for e in knowledge.entities[:MAX_ITEMS]
    )
    relations = tuple(
        KnowledgeRelation(
            r.source[:MAX_NAME_CHARS], r.target[:MAX_NAME_CHARS], r.description[:MAX_DESCRIPTION_CHARS], _score(r.score)
        )
        for r in knowledge.relations[:MAX_ITEMS]
    )
    return dataclasses.replace(
        knowledge,
        edge_id=edge_id,
        chunks=chunks,
        entities=entities,
        relations=relations,
        evidence=min(max(_score(knowledge.evidence), 0.0), 1.0),
        retrieval_seconds=max(_finite(knowledge.retrieval_seconds), 0.0),
    )


def accept_probe(edge_id: str, scores: ProbeScores) -> ProbeScores:
    """An edge's probe scores as the cloud uses them: from ``edge_id`` (the session's), each clamped to its range
    (an edge cannot outbid the others beyond a perfect score); its evidence score to what the edge's own formula
    gives from the fields it comes with (:func:`consistent_evidence`; a probe of an edge that keeps raw text
    home carries the score alone, checked only against the chunks it returns); and its lexical coverage, which the cloud
    cannot measure, to at most LEXICAL_OVER_TERMS above its term coverage, which it checks (claim_check)."""
    terms = min(max(_finite(scores.term_coverage), 0.0), 1.0)
    names = min(max(_finite(scores.name_coverage), 0.0), 1.0)
    best_chunk = _score(scores.best_chunk)
    evidence = min(max(_finite(scores.score), 0.0), 1.0)
    # an edge keeping raw text home sends its evidence score alone: nothing beside it to bound it by
    detailed = max(names, best_chunk, _score(scores.best_entity), terms, _finite(scores.lexical)) > 0
    return ProbeScores(
        edge_id,
        consistent_evidence(evidence, names, best_chunk) if detailed else evidence,
        names,
        _score(scores.best_entity),
        best_chunk,
        error=scores.error[:500],
        term_coverage=terms,
        lexical=bounded_lexical(scores.lexical, terms),
        signals=bounded_signals(scores.signals),
    )


def consistent_evidence(score: float, name_coverage: float, best_chunk: float) -> float:
    """An evidence score no higher than an honest edge's formula gives from the name coverage and best chunk it
    claims beside it (edge_node.query.retrieval: the best chunk's similarity, or its mean with the name coverage
    when the question has names): ``max(best chunk, (best chunk + name coverage) / 2)``. The best chunk and the
    name coverage are checked against what the edge returns (claim_check); the score alone could not be."""
    bound = max(best_chunk, (max(best_chunk, 0.0) + name_coverage) / 2, 0.0)
    return score if score <= bound + EVIDENCE_ROUNDING else bound


EVIDENCE_ROUNDING = 1e-6
"""Leeway for the float rounding of an honest edge's own computation and of the wire."""
LEXICAL_OVER_TERMS = 0.5
"""How far an edge's lexical coverage (over its whole store) may exceed its term coverage (over the chunks it
retrieved). Honest edges' probes of every dev question (benchmarks.probe_routing): multihop4 p99 0.10, max 0.29;
lihua4 p95 0.28, p99 0.50, max 0.67."""


def bounded_lexical(lexical: float, terms: float) -> float:
    """A claimed lexical coverage in [0, 1] and at most LEXICAL_OVER_TERMS above the claimed term coverage."""
    return min(max(_finite(lexical), 0.0), 1.0, terms + LEXICAL_OVER_TERMS)


MAX_SIGNALS = 16
"""Routing signals one probe reply may carry; more are dropped (after the first, by name)."""
_SIGNAL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def bounded_signals(signals: Mapping[str, float]) -> dict[str, float]:
    """An edge's extra routing signals as the cloud takes them: at most :data:`MAX_SIGNALS`, named in lower-case
    letters, digits and ``_`` (32 at most), each clamped to [0, 1] (not a number: 0)."""
    named = sorted(name for name in signals if _SIGNAL_NAME.match(name))[:MAX_SIGNALS]
    return {name: min(max(_finite(float(signals[name])), 0.0), 1.0) for name in named}


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def _score(value: float) -> float:
    """Similarity scores live in [-1, 1]; anything else is clamped, NaN counts as 0."""
    return min(max(_finite(value), -1.0), 1.0)
