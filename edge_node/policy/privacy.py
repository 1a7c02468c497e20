"""What may leave an edge, and the audit log of everything that did (what, to whom, when, bytes).

The policy turns a local retrieval into the knowledge sent to the cloud: raw chunks, entity descriptions
and relation descriptions can each be withheld; at level ``entities`` only names and types leave, at
``summaries_only`` nothing but the summaries. When raw text is forbidden, the leak guard holds back any
description or summary that quotes a document. The audit log is an append-only JSON-lines file in the
edge's data directory, flushed and fsynced per line, so it survives a crash of the edge.
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass
from pathlib import PurePosixPath

from edge_node.policy.chunk_commitment import CommittedChunks
from edge_node.policy.doc_id_key import opaque_id
from edge_node.policy.leak_guard import LeakGuard
from edge_node.query.retrieval import Evidence, Retrieval
from shared.config import PrivacyConfig
from shared.core.knowledge import (
    EdgeKnowledge,
    KnowledgeChunk,
    KnowledgeEntity,
    KnowledgeRelation,
    ProbeScores,
    SummaryCard,
    SummaryChanges,
)


def forbids_raw_text(policy: PrivacyConfig) -> bool:
    """Whether no sentence of a document may leave (so every outbound text is leak-checked)."""
    return policy.level != "chunks" or not policy.share_chunks


def stays_unnamed(policy: PrivacyConfig) -> bool:
    """Whether askers may not learn that this edge exists (only its summaries leave it: that it matched a question
    would tell what it holds); the edge says so in its hello."""
    return policy.level == "summaries_only"


def word_scores(policy: PrivacyConfig, term_coverage: float, lexical: float) -> tuple[float, float]:
    """Term and lexical coverage as they may leave the edge (probes, the evidence check): they tell which words the
    edge's chunks hold, so both are 0 under a policy that keeps raw text home (its probes compete on evidence)."""
    return (0.0, 0.0) if forbids_raw_text(policy) else (term_coverage, lexical)


def probe_reply(edge_id: str, evidence: Evidence, policy: PrivacyConfig) -> ProbeScores:
    """The scores a probe reply carries: under a policy that keeps raw text home, the evidence score alone (the
    name coverage and best entity, chunk, term and lexical matches each tell whether a name or word is in the
    edge's documents)."""
    if forbids_raw_text(policy):
        return ProbeScores(edge_id, evidence.score)
    return ProbeScores(
        edge_id,
        evidence.score,
        evidence.name_coverage,
        evidence.best_entity,
        evidence.best_chunk,
        term_coverage=evidence.term_coverage,
        lexical=evidence.lexical,
        signals=dict(evidence.signals),
    )


@dataclass(frozen=True)
class Outbound:
    """Knowledge that may leave, and how many texts the leak check held back."""

    knowledge: EdgeKnowledge
    withheld: int = 0


def knowledge_for_cloud(
    edge_id: str,
    retrieval: Retrieval,
    policy: PrivacyConfig,
    guard: LeakGuard | None = None,
    id_key: bytes = b"",
    commitment: CommittedChunks | None = None,
) -> Outbound:
    """The part of ``retrieval`` this edge's policy lets leave; with raw text forbidden, a description that
    quotes a document (``guard``) goes without its description. ``id_key`` keys opaque document ids (empty: a
    random key for this call, for callers that never map ids back); each chunk carries its proof in
    ``commitment`` when given."""
    id_key = id_key or secrets.token_bytes(32)
    base = EdgeKnowledge(
        edge_id=edge_id,
        evidence=retrieval.evidence.score,
        retrieval_seconds=sum(retrieval.timings.values()),
        answers=policy.answers,
    )
    if policy.level == "summaries_only":
        return Outbound(base)
    describe = policy.level == "chunks"
    withheld = 0

    def quotes(text: str) -> bool:
        """Whether ``text`` (a description, or a name long enough to be a document's title) quotes a document
        under a policy without raw text; each such text is counted as withheld."""
        nonlocal withheld
        if guard is not None and forbids_raw_text(policy) and guard.shared_run(text) is not None:
            withheld += 1
            return True
        return False

    def description(text: str) -> str:
        return "" if not describe or quotes(text) else text

    entities = tuple(
        KnowledgeEntity(e.name, e.type, description(e.description), e.score)
        for e in retrieval.entities
        if not quotes(e.name)
    )
    relations = tuple(
        KnowledgeRelation(r.source, r.target, description(r.description), r.score)
        for r in retrieval.relations
        if not quotes(f"{r.source} {r.target}")
    )
    chunks = _outbound_chunks(edge_id, retrieval, policy, id_key, commitment)
    knowledge = dataclasses.replace(
        base,
        entities=entities if policy.share_entities else (),
        relations=relations if policy.share_relations else (),
        chunks=chunks if policy.share_chunks and policy.level == "chunks" else (),
    )
    return Outbound(knowledge, withheld)


def _outbound_chunks(
    edge_id: str, retrieval: Retrieval, policy: PrivacyConfig, id_key: bytes, commitment: CommittedChunks | None
) -> tuple[KnowledgeChunk, ...]:
    """The retrieved chunks as they leave: cut to privacy.max_chunk_chars, with outbound ids and their proofs."""
    out = []
    for c in retrieval.chunks:
        text = c.text[: policy.max_chunk_chars]
        proof = commitment.proof(c.id, text) if commitment is not None else None
        out.append(
            KnowledgeChunk(outbound_doc_id(c.doc_id, policy, edge_id, id_key), c.id, text, c.score, c.tokens, proof)
        )
    return tuple(out)


def outbound_doc_id(doc_id: str, policy: PrivacyConfig, edge_id: str, key: bytes) -> str:
    """The id a document is known by outside the edge: a keyed hash (``key``: edge_node.policy.doc_id_key), or its
    last part (a file's name without the folders above it), or as it is."""
    if policy.doc_ids == "as_is":
        return doc_id
    if policy.doc_ids == "opaque":
        return opaque_id(key, edge_id, doc_id)
    return PurePosixPath(doc_id.replace("\\", "/")).name or doc_id


def knowledge_texts(knowledge: EdgeKnowledge) -> list[str]:
    """Every text a retrieval reply carries (what a leak check reads)."""
    return [
        *(c.text for c in knowledge.chunks),
        *(f"{e.name} ({e.type}): {e.description}" for e in knowledge.entities),
        *(f"{r.source} -- {r.target}: {r.description}" for r in knowledge.relations),
    ]


def names_only(card: SummaryCard) -> str:
    """A summary's stand-in when its text quotes a document: the names it is about."""
    names = ", ".join(card.top_entities[:8])
    return f"A part of this edge's knowledge about: {names}." if names else "A part of this edge's knowledge."


def guard_summaries(changes: SummaryChanges, policy: PrivacyConfig, guard: LeakGuard) -> tuple[SummaryChanges, int]:
    """``changes`` with every summary that quotes a document replaced by :func:`names_only` (when the policy
    forbids raw text), and how many were replaced."""
    if not forbids_raw_text(policy):
        return changes, 0
    cards: list[SummaryCard] = []
    replaced = 0
    for card in changes.upserts:
        if guard.shared_run(card.text) is not None:
            stand_in = names_only(card)
            if guard.shared_run(stand_in) is not None:
                stand_in = "A part of this edge's knowledge."
            card = dataclasses.replace(card, text=stand_in)
            replaced += 1
        cards.append(card)
    return dataclasses.replace(changes, upserts=tuple(cards)), replaced
